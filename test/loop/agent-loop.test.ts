import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/loop/agent-loop.js';
import { CANCELLED } from '../../src/loop/tool-call-runner.js';
import { prepareTurnTools } from '../../src/loop/turn-tools.js';
import { createLogger } from '../../src/shared/log.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import type { Session } from '../../src/sessions/session.js';
import { type ClientToolCapabilities, DECLINED, MAX_CALLS_PER_ANSWER, type McpServers, type UpdateSink } from '../../src/tools/index.js';
import type { McpToolDescriptor } from '../../src/tools/mcp/mcp-tools.js';
import { fakeClient, type FakeClientOptions } from '../helpers/fake-acp-client.js';
import { scriptedChat, type ScriptedAnswer } from '../helpers/scripted-chat.js';

const logger = createLogger({ level: 'error', write: () => undefined });
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const noCapabilities: ClientToolCapabilities = { readTextFile: false, writeTextFile: false, terminal: false };
const allow =
  (optionId = 'allow_once') =>
  () => ({ outcome: { outcome: 'selected', optionId } });

interface Setup {
  answers: ScriptedAnswer[];
  mode?: string;
  options?: Record<string, string>;
  capabilities?: ClientToolCapabilities;
  client?: FakeClientOptions;
  mcp?: { tools: McpToolDescriptor[]; call?: (name: string, args: Record<string, unknown>) => Promise<unknown> };
  maxSteps?: number;
  contextWindow?: number;
  controller?: AbortController;
  /** Sees each update's log entry as it is sent. */
  onUpdate?: (entry: string) => void;
}

async function run(setup: Setup) {
  const cwd = await mkdtemp(join(tmpdir(), 'agent-loop-'));
  dirs.push(cwd);
  const fake = fakeClient(setup.client);
  const chat = scriptedChat(setup.answers);
  const session = {
    id: 's1',
    cwd,
    createdAt: '',
    records: [],
    model: 'm',
    options: { ...(setup.mode ? { mode: setup.mode } : {}), ...setup.options },
  } as unknown as Session;
  const mcpCalls: { name: string; args: Record<string, unknown> }[] = [];
  const mcp = setup.mcp && {
    tools: () => setup.mcp!.tools,
    takeNotices: () => [],
    call: async (name: string, args: Record<string, unknown>) => {
      mcpCalls.push({ name, args });
      return setup.mcp!.call
        ? setup.mcp!.call(name, args)
        : { isError: false, text: `ran ${name}`, images: [], content: [{ type: 'text', text: `ran ${name}` }] };
    },
  };
  const saved: Record<string, string>[] = [];
  const tools = prepareTurnTools({
    session,
    state: { roots: { cwd, extra: [] }, mcp: mcp as unknown as McpServers | undefined, mcpList: '' },
    client: fake.client,
    capabilities: setup.capabilities ?? noCapabilities,
    profile: {},
    logger,
    saveOptions: async (options) => void saved.push(options),
  });
  const updates: SessionUpdate[] = [];
  const controller = setup.controller ?? new AbortController();
  const send: UpdateSink = async (batch) => {
    for (const update of batch) {
      updates.push(update);
      const u = update as { status?: string; content?: { type: string }[] };
      const entry = `update:${update.sessionUpdate}${u.status ? `:${u.status}` : ''}${Array.isArray(u.content) && u.content.some((c) => c.type === 'terminal') ? ':terminal' : ''}`;
      fake.log.push(entry);
      setup.onUpdate?.(entry);
    }
  };
  const outcome = await runAgentLoop(
    { signal: controller.signal, send, turnId: globalThis.crypto.randomUUID() },
    {
      context: { system: 'sys', turns: [], task: { role: 'user', content: 'go' }, contextWindow: setup.contextWindow },
      endpoint: { chat: chat.client, request: { model: 'm' }, toolMessageRules: { echoReasoning: false, shortToolCallIds: false }, takesImages: false },
      tools,
      limits: { maxSteps: setup.maxSteps ?? 10 },
      callbacks: { logger },
    },
  );
  const toolUpdates = fake.log.filter((entry) => entry.startsWith('update:tool_call') || entry.startsWith('request:') || entry.startsWith('terminal:'));
  const toolMessages = (i: number) => chat.seen[i]?.messages.filter((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool') ?? [];
  const text = updates
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => (u as { content: { text: string } }).content.text)
    .join('');
  return { cwd, outcome, updates, fake, chat, session, saved, toolUpdates, toolMessages, text, mcpCalls };
}

const write = (path: string, content = 'hello', id?: string) => ({ ...(id ? { id } : {}), name: 'write_file', arguments: JSON.stringify({ path, content }) });

describe('runAgentLoop: one call end to end', () => {
  it('announces, asks, runs, completes, and gives the result back to the model', async () => {
    const r = await run({
      answers: [{ toolCalls: [write('a.txt', 'hi', 'c1')] }, { text: 'done' }],
      client: { handlers: { 'session/request_permission': allow() } },
    });
    expect(r.toolUpdates).toEqual([
      'update:tool_call:pending',
      'request:session/request_permission',
      'update:tool_call_update:in_progress',
      'update:tool_call_update:completed',
    ]);
    expect(await readFile(join(r.cwd, 'a.txt'), 'utf8')).toBe('hi');
    expect(r.outcome.stopReason).toBe('end_turn');
    expect(r.outcome.text).toBe('done');
    expect(r.outcome.steps).toHaveLength(1);
    expect(r.outcome.steps[0]?.results[0]?.status).toBe('completed');
    // the second request carries the assistant tool_calls message then its tool message
    const second = r.chat.seen[1]!.messages;
    const assistant = second[2] as Extract<ChatMessage, { role: 'assistant' }>;
    expect(assistant.tool_calls?.map((c) => c.id)).toEqual(['c1']);
    expect(second[3]).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    expect(second).toHaveLength(4);
    // the permission request reuses the announced toolCallId and offers an allow first
    const announced = r.updates.find((u) => u.sessionUpdate === 'tool_call') as { toolCallId: string };
    const asked = r.fake.requests[0]!.params as { toolCall: { toolCallId: string }; options: { kind: string }[] };
    expect(asked.toolCall.toolCallId).toBe(announced.toolCallId);
    expect(asked.options[0]?.kind).toBe('allow_once');
  });

  it('runs at most MAX_CALLS_PER_ANSWER calls of one answer, and tells the model of those left out', async () => {
    const reads = Array.from({ length: MAX_CALLS_PER_ANSWER + 3 }, (_, i) => ({ id: `r${i}`, name: 'read_file', arguments: `{"path":"f${i}.txt"}` }));
    const r = await run({ answers: [{ toolCalls: reads }, { text: 'done' }], mode: 'read-only' });
    expect(r.outcome.steps[0]?.results).toHaveLength(MAX_CALLS_PER_ANSWER);
    const second = r.chat.seen[1]!.messages;
    const assistant = second.find((m) => m.role === 'assistant') as Extract<ChatMessage, { role: 'assistant' }>;
    expect(assistant.tool_calls).toHaveLength(MAX_CALLS_PER_ANSWER);
    const results = second.filter((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool');
    expect(results).toHaveLength(MAX_CALLS_PER_ANSWER);
    expect(results.at(-1)?.content).toContain('3 more tool calls of that answer were not run');
    expect(results.at(-2)?.content).not.toContain('not run');
  });

  it('a client terminal is embedded while running and released only after the final update', async () => {
    const r = await run({
      mode: 'full-access',
      capabilities: { readTextFile: false, writeTextFile: false, terminal: true },
      client: { terminalExit: { exitCode: 0, output: 'ok\n' } },
      answers: [{ toolCalls: [{ id: 'c1', name: 'run_command', arguments: '{"command":"echo ok"}' }] }, { text: 'done' }],
    });
    expect(r.toolUpdates).toEqual([
      'update:tool_call:pending',
      'update:tool_call_update:in_progress',
      'terminal:term-1:create',
      'terminal:term-1:exit',
      'update:tool_call_update:in_progress:terminal',
      'update:tool_call_update:completed:terminal',
      'terminal:term-1:release',
    ]);
    expect(r.fake.terminals[0]?.released).toBe(1);
    // the stored result shows the output text instead of the released terminal
    expect(r.outcome.steps[0]?.results[0]?.content).toEqual([{ type: 'content', content: { type: 'text', text: expect.stringContaining('ok') } }]);
    expect(r.toolMessages(1)[0]?.content).toContain('Exit code 0');
  });
});

describe('runAgentLoop: permission', () => {
  it('rejected → failed, DECLINED to the model, nothing written, the loop goes on', async () => {
    const r = await run({
      answers: [{ toolCalls: [write('a.txt')] }, { text: 'ok, not writing' }],
      client: { handlers: { 'session/request_permission': allow('reject_once') } },
    });
    expect(r.toolUpdates).toEqual(['update:tool_call:pending', 'request:session/request_permission', 'update:tool_call_update:failed']);
    expect(existsSync(join(r.cwd, 'a.txt'))).toBe(false);
    expect(r.toolMessages(1)[0]?.content).toBe(DECLINED);
    expect(r.outcome.text).toBe('ok, not writing');
  });

  it('a `cancelled` outcome ends the turn: answered cancelled, no further request, the call cancelled (not declined), later calls not run', async () => {
    const r = await run({
      answers: [{ toolCalls: [write('a.txt', 'x', 'c1'), write('b.txt', 'y', 'c2')] }, { text: 'must not be asked' }],
      client: { handlers: { 'session/request_permission': () => ({ outcome: { outcome: 'cancelled' } }) } },
    });
    expect(r.outcome.stopReason).toBe('cancelled');
    expect(r.chat.seen).toHaveLength(1);
    expect(r.fake.requests.filter((q) => q.method === 'session/request_permission')).toHaveLength(1);
    expect(existsSync(join(r.cwd, 'a.txt'))).toBe(false);
    expect(existsSync(join(r.cwd, 'b.txt'))).toBe(false);
    const [first, second] = r.outcome.steps[0]!.results;
    expect(first!.forModel).toBe(CANCELLED);
    expect(first!.content).toEqual([{ type: 'content', content: { type: 'text', text: 'Cancelled.' } }]);
    expect(second!.toolCallId).toBe('');
    expect(r.outcome.steps[0]!.results.some((result) => result.forModel === DECLINED)).toBe(false);
  });

  it('a client whose request_permission throws counts as declined; the loop goes on', async () => {
    const r = await run({
      answers: [{ toolCalls: [write('a.txt')] }, { text: 'fine' }],
      client: { handlers: { 'session/request_permission': () => Promise.reject(new Error('boom')) } },
    });
    expect(existsSync(join(r.cwd, 'a.txt'))).toBe(false);
    expect(r.toolMessages(1)[0]?.content).toBe(DECLINED);
    expect(r.outcome.stopReason).toBe('end_turn');
  });

  it('a client without request_permission at all (method not found) also declines', async () => {
    const r = await run({ answers: [{ toolCalls: [write('a.txt')] }, { text: 'fine' }] });
    expect(r.toolMessages(1)[0]?.content).toBe(DECLINED);
  });

  it('cancel during a pending permission request returns cancelled within a second, nothing written', async () => {
    const controller = new AbortController();
    const r = await run({
      controller,
      answers: [{ toolCalls: [write('a.txt'), write('b.txt')] }],
      client: {
        handlers: {
          'session/request_permission': () => {
            setTimeout(() => controller.abort(new Error('cancelled by the user')), 20);
            return new Promise(() => undefined);
          },
        },
      },
    });
    // The permission request never answers: only a cancel that reaches it ends the turn.
    expect(r.outcome.stopReason).toBe('cancelled');
    expect(existsSync(join(r.cwd, 'a.txt'))).toBe(false);
    expect(existsSync(join(r.cwd, 'b.txt'))).toBe(false);
    expect(r.fake.requests).toHaveLength(1);
    // every call of the answer has a result, so the stored step stays well-formed; the asked one
    // keeps its ACP id (a replay shows it) and is shown failed, the other was never announced
    const [asked, never] = r.outcome.steps[0]!.results;
    expect(asked).toMatchObject({ status: 'failed', forModel: CANCELLED });
    expect(asked?.toolCallId).toBe((r.updates[0] as { toolCallId: string }).toolCallId);
    expect(never?.toolCallId).toBe('');
    expect(r.toolUpdates.filter((e) => e.startsWith('update:tool_call'))).toEqual(['update:tool_call:pending', 'update:tool_call_update:failed']);
    expect(r.chat.seen).toHaveLength(1);
  });

  it('cancel while a client terminal runs kills and releases it, runs no further call, and returns cancelled', async () => {
    const controller = new AbortController();
    const r = await run({
      controller,
      mode: 'full-access',
      capabilities: { readTextFile: false, writeTextFile: false, terminal: true },
      answers: [{ toolCalls: [{ name: 'run_command', arguments: '{"command":"sleep 100"}' }, write('a.txt')] }],
      onUpdate: (entry) => {
        if (entry.endsWith(':terminal')) setTimeout(() => controller.abort(new Error('cancelled')), 5);
      },
    });
    expect(r.outcome.stopReason).toBe('cancelled');
    expect(r.fake.terminals[0]).toMatchObject({ killed: 1, released: 1 });
    expect(r.toolUpdates.slice(-4)).toEqual(['terminal:term-1:kill', 'terminal:term-1:exit', 'terminal:term-1:release', 'update:tool_call_update:failed']);
    expect(existsSync(join(r.cwd, 'a.txt'))).toBe(false);
    expect(r.outcome.steps[0]?.results.map((x) => x.status)).toEqual(['failed', 'failed']);
    expect(r.outcome.steps[0]?.results[0]).toMatchObject({ forModel: CANCELLED, toolCallId: expect.stringMatching(/^call-/) });
    expect(r.chat.seen).toHaveLength(1);
  });

  it('cancel while the model answers after a tool step returns cancelled with the completed step', async () => {
    const controller = new AbortController();
    const r = await run({
      controller,
      answers: [{ toolCalls: [{ name: 'list_directory', arguments: '{}' }] }, { hang: true }],
      onUpdate: (entry) => {
        if (entry === 'update:tool_call_update:completed') setTimeout(() => controller.abort(new Error('cancelled')), 5);
      },
    });
    expect(r.outcome.stopReason).toBe('cancelled');
    expect(r.outcome.steps).toHaveLength(1);
    expect(r.chat.seen).toHaveLength(2);
  });

  it('allow_always is remembered: the next call with the same key in the same turn does not ask, and the choice is saved', async () => {
    const r = await run({
      answers: [{ toolCalls: [write('a.txt')] }, { toolCalls: [write('b.txt')] }, { text: 'done' }],
      client: { handlers: { 'session/request_permission': allow('allow_always') } },
    });
    expect(r.fake.requests.filter((q) => q.method === 'session/request_permission')).toHaveLength(1);
    expect(existsSync(join(r.cwd, 'a.txt')) && existsSync(join(r.cwd, 'b.txt'))).toBe(true);
    expect(r.saved).toEqual([{ 'permission:write_file': 'allow' }]);
    expect(r.session.options['permission:write_file']).toBe('allow');
  });

  it('"always allow git" does not cover a compound line that starts with git', async () => {
    const r = await run({
      options: { 'permission:run_command:git': 'allow' },
      answers: [{ toolCalls: [{ name: 'run_command', arguments: '{"command":"git --version && touch pwned"}' }] }, { text: 'ok' }],
    });
    expect(r.fake.requests.map((q) => q.method)).toEqual(['session/request_permission']);
    expect(existsSync(join(r.cwd, 'pwned'))).toBe(false);
  });

  it('a remembered reject refuses without asking', async () => {
    const r = await run({
      options: { 'permission:run_command:rm': 'reject' },
      answers: [{ toolCalls: [{ name: 'run_command', arguments: '{"command":"rm -rf x"}' }] }, { text: 'ok' }],
    });
    expect(r.fake.requests).toHaveLength(0);
    expect(r.toolMessages(1)[0]?.content).toBe(DECLINED);
  });

  it('read-only mode refuses an edit without asking, saying why', async () => {
    const r = await run({ mode: 'read-only', answers: [{ toolCalls: [write('a.txt')] }, { text: 'ok' }] });
    // Offered as in every mode (the prefix stays put), refused when called.
    expect(r.chat.seen[0]?.tools).toContain('write_file');
    expect(r.fake.requests).toHaveLength(0);
    expect(r.toolMessages(1)[0]?.content).toContain('read-only');
    expect(existsSync(join(r.cwd, 'a.txt'))).toBe(false);
  });

  it('accept-edits asks before writing outside the cwd', async () => {
    const r = await run({
      mode: 'accept-edits',
      answers: [{ toolCalls: [write('../outside.txt')] }, { text: 'ok' }],
      client: { handlers: { 'session/request_permission': allow('reject_once') } },
    });
    expect(r.fake.requests.map((q) => q.method)).toEqual(['session/request_permission']);
    expect(existsSync(join(r.cwd, '..', 'outside.txt'))).toBe(false);
  });

  it('reject_always is remembered: the next call with the same key is refused without asking', async () => {
    const r = await run({
      answers: [
        { toolCalls: [{ name: 'run_command', arguments: '{"command":"touch one"}' }] },
        { toolCalls: [{ name: 'run_command', arguments: '{"command":"touch two"}' }] },
        { text: 'ok' },
      ],
      client: { handlers: { 'session/request_permission': allow('reject_always') } },
    });
    expect(r.fake.requests).toHaveLength(1);
    expect(r.saved).toEqual([{ 'permission:run_command:touch': 'reject' }]);
    expect(r.toolMessages(2).map((m) => m.content)).toEqual([DECLINED, DECLINED]);
    expect(existsSync(join(r.cwd, 'one')) || existsSync(join(r.cwd, 'two'))).toBe(false);
  });

  it('accept-edits writes inside the cwd without asking', async () => {
    const r = await run({ mode: 'accept-edits', answers: [{ toolCalls: [write('a.txt')] }, { text: 'ok' }] });
    expect(r.fake.requests).toHaveLength(0);
    expect(existsSync(join(r.cwd, 'a.txt'))).toBe(true);
  });
});

describe('runAgentLoop: limits', () => {
  it('the same call three times in a row ends with max_turn_requests', async () => {
    const call = { name: 'list_directory', arguments: '{"path":"."}' };
    const r = await run({ answers: [{ toolCalls: [call] }, { toolCalls: [call] }, { toolCalls: [call] }, { text: 'never' }] });
    expect(r.outcome.stopReason).toBe('max_turn_requests');
    expect(r.outcome.steps).toHaveLength(2);
    expect(r.chat.seen).toHaveLength(3);
    // A failure for programs (acpx exits non-zero), its words the error's message, not streamed.
    expect(r.outcome.error).toMatchObject({ kind: 'loop', retryable: false, message: expect.stringContaining('looks like a loop') });
    expect(r.text).not.toContain('looks like a loop');
  });

  it('the step limit ends with max_turn_requests after maxSteps requests', async () => {
    const answers = [0, 1, 2, 3].map((i) => ({ toolCalls: [{ name: 'list_directory', arguments: JSON.stringify({ path: `d${i}` }) }] }));
    const r = await run({ maxSteps: 2, answers });
    expect(r.outcome.stopReason).toBe('max_turn_requests');
    expect(r.chat.seen).toHaveLength(2);
    expect(r.outcome.steps).toHaveLength(2);
    expect(r.outcome.error).toMatchObject({ kind: 'loop', retryable: false, message: expect.stringContaining('step limit') });
    expect(r.text).not.toContain('step limit');
  });

  it('sums usage across steps', async () => {
    const r = await run({
      answers: [
        { toolCalls: [{ name: 'list_directory', arguments: '{}' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
        { text: 'done', usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 } },
      ],
    });
    expect(r.outcome.usage).toMatchObject({ inputTokens: 40, outputTokens: 12, totalTokens: 52 });
  });
});

describe('runAgentLoop: bad calls', () => {
  it('an unknown tool and invalid JSON arguments are error results; the loop continues', async () => {
    const r = await run({
      answers: [
        {
          toolCalls: [
            { id: 'u', name: 'delete_everything', arguments: '{}' },
            { id: 'j', name: 'read_file', arguments: '{"path": ' },
          ],
        },
        { text: 'sorry' },
      ],
    });
    const messages = r.toolMessages(1);
    expect(messages.map((m) => m.tool_call_id)).toEqual(['u', 'j']);
    expect(messages[0]?.content).toMatch(/delete_everything/);
    expect(messages[0]?.content).toContain('read_file');
    expect(messages[1]?.content.length).toBeGreaterThan(0);
    expect(r.outcome.steps[0]?.results.map((x) => x.status)).toEqual(['failed', 'failed']);
    expect(r.outcome.text).toBe('sorry');
  });

  it('several calls in one answer give results in the same order, with unique ids', async () => {
    const r = await run({
      mode: 'full-access',
      answers: [
        {
          toolCalls: [
            write('1.txt', 'one'),
            { name: 'read_file', arguments: '{"path":"1.txt"}' },
            write('2.txt', 'two'),
            { name: 'read_file', arguments: '{"path":"2.txt"}' },
          ],
        },
        { text: 'done' },
      ],
    });
    const messages = r.toolMessages(1);
    const assistant = r.chat.seen[1]!.messages.find((m) => m.role === 'assistant') as Extract<ChatMessage, { role: 'assistant' }>;
    const ids = assistant.tool_calls!.map((c) => c.id);
    expect(new Set(ids).size).toBe(4);
    expect(messages.map((m) => m.tool_call_id)).toEqual(ids);
    expect(messages[1]?.content).toContain('one');
    expect(messages[3]?.content).toContain('two');
  });
});

describe('runAgentLoop: text tool calls', () => {
  it('a call written as text is run, never shown, and sent back as a native tool_calls message', async () => {
    const r = await run({ answers: [{ text: ['<tool_call>{"name": "list_directory", ', '"arguments": {"path": "."}}</tool_call>'] }, { text: 'done' }] });
    expect(r.text).toBe('done');
    expect(r.outcome.steps[0]?.results[0]?.status).toBe('completed');
    const assistant = r.chat.seen[1]!.messages[2] as Extract<ChatMessage, { role: 'assistant' }>;
    expect(assistant.tool_calls?.[0]?.function.name).toBe('list_directory');
    expect(r.toolMessages(1)[0]?.tool_call_id).toBe(assistant.tool_calls?.[0]?.id);
    expect(assistant.tool_calls?.[0]?.id).toBeTruthy();
  });
});

describe('runAgentLoop: MCP tools', () => {
  const descriptor = (over: Partial<McpToolDescriptor>): McpToolDescriptor => ({
    name: 'docs__search',
    server: 'docs',
    tool: 'search',
    description: 'Search docs',
    parameters: { type: 'object', properties: {} } as McpToolDescriptor['parameters'],
    readOnly: true,
    kind: 'read',
    title: 'docs: search',
    ...over,
  });

  it('uses the descriptor title and kind, and a read-only MCP tool runs without asking in accept-edits', async () => {
    const r = await run({
      mode: 'accept-edits',
      mcp: { tools: [descriptor({})] },
      answers: [{ toolCalls: [{ name: 'docs__search', arguments: '{"q":"x"}' }] }, { text: 'done' }],
    });
    expect(r.chat.seen[0]?.tools).toContain('docs__search');
    const announced = r.updates.find((u) => u.sessionUpdate === 'tool_call') as { title: string; kind: string };
    expect(announced).toMatchObject({ title: 'docs: search', kind: 'read' });
    expect(r.fake.requests).toHaveLength(0);
    expect(r.mcpCalls).toEqual([{ name: 'docs__search', args: { q: 'x' } }]);
    expect(r.toolMessages(1)[0]?.content).toBe('ran docs__search');
  });

  it('an MCP tool that changes things asks in accept-edits, keyed by server and tool', async () => {
    const r = await run({
      mode: 'accept-edits',
      mcp: { tools: [descriptor({ name: 'db__drop', server: 'db', tool: 'drop', readOnly: false, kind: 'other', title: 'db: drop' })] },
      client: { handlers: { 'session/request_permission': allow('allow_always') } },
      answers: [{ toolCalls: [{ name: 'db__drop', arguments: '{}' }] }, { text: 'done' }],
    });
    expect(r.fake.requests).toHaveLength(1);
    expect(r.saved).toEqual([{ 'permission:mcp:db/drop': 'allow' }]);
  });

  it('passes nested and double-encoded arguments through; invalid JSON is an error result without a call', async () => {
    const nested = { filter: { tags: ['a', 'b'], limit: 3 } };
    const r = await run({
      mode: 'full-access',
      mcp: { tools: [descriptor({})] },
      answers: [
        {
          toolCalls: [
            { name: 'docs__search', arguments: JSON.stringify(nested) },
            { name: 'docs__search', arguments: JSON.stringify(JSON.stringify({ q: 1 })) },
            { name: 'docs__search', arguments: '{"q": 1} {"q": 2}' },
            { name: 'docs__search', arguments: '[1]' },
          ],
        },
        { text: 'done' },
      ],
    });
    expect(r.mcpCalls.map((c) => c.args)).toEqual([nested, { q: 1 }]);
    expect(r.outcome.steps[0]?.results.map((x) => x.status)).toEqual(['completed', 'completed', 'failed', 'failed']);
    expect(r.toolMessages(1)[2]?.content).toContain('not valid JSON');
    expect(r.toolMessages(1)[3]?.content).toContain('JSON object');
  });

  it('an MCP error result is a failed call the model hears about', async () => {
    const r = await run({
      mode: 'full-access',
      mcp: {
        tools: [descriptor({})],
        call: async () => ({ isError: true, text: 'index missing', images: [], content: [{ type: 'text', text: 'index missing' }] }),
      },
      answers: [{ toolCalls: [{ name: 'docs__search', arguments: '{}' }] }, { text: 'done' }],
    });
    expect(r.outcome.steps[0]?.results[0]?.status).toBe('failed');
    expect(r.toolMessages(1)[0]?.content).toBe('index missing');
  });
});

describe('runAgentLoop: calls that are almost right', () => {
  it('a call of an answer stopped at its token limit is not run; the calls before it are, and the model is told how to write it shorter', async () => {
    const r = await run({
      mode: 'full-access',
      answers: [{ toolCalls: [write('a.txt', 'one'), write('b.txt', 'two, complete as it looks')], finishReason: 'length' }, { text: 'done' }],
    });
    expect(await readFile(join(r.cwd, 'a.txt'), 'utf8')).toBe('one');
    expect(existsSync(join(r.cwd, 'b.txt'))).toBe(false);
    expect(r.toolMessages(1)[1]?.content).toMatch(/^write_file: this call was cut off .*Write the file in parts/);
  });

  it('a call written as text and followed by more text was not cut by the token limit: it runs; one the text ends in does not', async () => {
    const call = (path: string) => `<tool_call>{"name": "write_file", "arguments": {"path": "${path}", "content": "one"}}</tool_call>`;
    const r = await run({
      mode: 'full-access',
      answers: [
        // The model goes on to invent the result until its token limit: the call before it is whole.
        { text: `${call('a.txt')}\nThe file now holds "one", and then the next step is to`, finishReason: 'length' },
        { text: `${call('b.txt')}`, finishReason: 'length' },
        { text: 'done' },
      ],
    });
    expect(await readFile(join(r.cwd, 'a.txt'), 'utf8')).toBe('one');
    expect(r.outcome.steps[0]?.results[0]?.status).toBe('completed');
    expect(existsSync(join(r.cwd, 'b.txt'))).toBe(false);
    expect(r.toolMessages(2)[1]?.content).toMatch(/^write_file: this call was cut off/);
  });

  it('a tool name with a leaked template token, and a camelCase name, run the offered tool with a one-line note', async () => {
    const r = await run({
      mode: 'full-access',
      answers: [
        {
          toolCalls: [
            { name: 'write_file<|channel|>commentary', arguments: '{"path": "a.txt", "content": "x"}' },
            { name: 'readFile', arguments: "{'file_path': 'a.txt',}" },
          ],
        },
        { text: 'done' },
      ],
    });
    expect(await readFile(join(r.cwd, 'a.txt'), 'utf8')).toBe('x');
    expect(r.outcome.steps[0]?.results.map((x) => x.status)).toEqual(['completed', 'completed']);
    expect(r.toolMessages(1)[0]?.content).toMatch(/\n\n\(Note: the tool is named "write_file"\.\)$/);
    expect(r.toolMessages(1)[1]?.content).toMatch(
      /^1\tx\n\n\(Note: the tool is named "read_file"; the arguments were not valid JSON \(.*\) and were repaired; "file_path" was read as "path"\.\)$/,
    );
  });

  it('the history carries the name of the tool that ran, not the leaked one (a template token or an invalid name would go back to the server)', async () => {
    const r = await run({
      mode: 'full-access',
      answers: [
        {
          toolCalls: [
            { name: 'write_file<|channel|>commentary', arguments: '{"path": "a.txt", "content": "x"}' },
            { name: 'functions.read_file', arguments: '{"path": "a.txt"}' },
            { name: 'no_such_tool', arguments: '{}' },
          ],
        },
        { text: 'done' },
      ],
    });
    const assistant = r.chat.seen[1]!.messages.find(
      (m): m is Extract<ChatMessage, { role: 'assistant' }> => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0,
    );
    expect(assistant?.tool_calls?.map((call) => call.function.name)).toEqual(['write_file', 'read_file', 'no_such_tool']);
    expect(r.outcome.steps[0]?.toolCalls.map((call) => call.name)).toEqual(['write_file', 'read_file', 'no_such_tool']);
    expect(r.toolMessages(1)[0]?.content).toMatch(/\(Note: the tool is named "write_file"\.\)$/);
  });
});
