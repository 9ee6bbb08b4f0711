/**
 * The protocol as editors speak it now, end to end with the ACP SDK's own client side (`client()`
 * over `ndJsonStream`, the SDK 2.x form of a client-side connection) against the built CLI: each
 * capability advertised and not — compaction entities (`session.compaction`), notices
 * (`session.notices`), questions of MCP servers (`elicitation.form`) — what is sent, and that
 * nothing capability-gated reaches a client that did not ask for it; message ids stable across
 * `session/load`; the cumulative cost of a recorded OpenRouter stream. Every message the agent
 * writes is checked against the SDK's stable JSON Schema (`test/helpers/acp-schema.ts`).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import {
  client,
  ndJsonStream,
  RequestError,
  type ClientCapabilities,
  type ClientContext,
  type ContentBlock,
  type McpServer,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk/unstable';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadAcpSchema } from '../helpers/acp-schema.js';
import { bundledScript } from '../helpers/bundled-script.js';
import { fakeServerPool, startFakeOpenAI, type ChatHandler, type FakeOpenAI } from '../helpers/fake-openai.js';
import { CLI, waitFor } from '../helpers/spawn-agent.js';
import { script, tempDirs } from '../helpers/tool-script.js';

const schema = loadAcpSchema();
const servers = fakeServerPool();
const tempDir = tempDirs('openai-acp-caps-');
/** The elicitation fixture server, bundled once (it starts in about half the CPU time), with the SDK's schemas as they are (it imports one). */
const ELICIT_SERVER = bundledScript(fileURLToPath(new URL('./fixtures/mcp-elicit-server.mjs', import.meta.url)), [], true);
const OPENROUTER_SSE = fileURLToPath(new URL('../fixtures/providers/openrouter__anthropic_text_processing_comment.sse', import.meta.url));

/** Streams the recorded OpenRouter answer (it reports `usage.cost` 0.000106). */
const openRouter: ChatHandler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(readFileSync(OPENROUTER_SSE));
};

interface Session {
  agent: ClientContext;
  updates: SessionNotification[];
  elicitations: CreateElicitationRequest[];
  /** Every message the agent wrote, in order. */
  written: any[];
  /** Schema problems of what the agent wrote. */
  problems: () => string[];
  stderr: () => string;
  close(): Promise<void>;
}

const opened: Session[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

/** Spawns the CLI (temp HOME and state directory), connects the SDK client and runs `initialize`. */
async function open(
  capabilities: ClientCapabilities,
  options: { home?: string; baseUrl: string; env?: Record<string, string>; elicit?: (request: CreateElicitationRequest) => Promise<CreateElicitationResponse> },
): Promise<Session> {
  const home = options.home ?? tempDir();
  const child = spawn(process.execPath, [CLI], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      OPENAI_ACP_STATE_DIR: join(home, 'state'),
      OPENAI_ACP_IN_CONTAINER: 'false',
      OPENAI_BASE_URL: options.baseUrl,
      OPENAI_MODEL: 'test-model',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_MAX_RETRIES: '0',
      OPENAI_ACP_LOG: 'debug',
      ...options.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const written: any[] = [];
  const sentMethods = new Map<unknown, string>();
  let fromAgent = '';
  child.stdout.on('data', (data: Buffer) => {
    fromAgent += data.toString('utf8');
    let newline: number;
    while ((newline = fromAgent.indexOf('\n')) >= 0) {
      const line = fromAgent.slice(0, newline);
      fromAgent = fromAgent.slice(newline + 1);
      if (line.trim()) written.push(JSON.parse(line));
    }
  });
  // What the client writes, to know which request an answer of the agent belongs to.
  let toAgentText = '';
  const decoder = new TextDecoder();
  const toAgent = new WritableStream<Uint8Array>({
    write(bytes) {
      toAgentText += decoder.decode(bytes, { stream: true });
      let newline: number;
      while ((newline = toAgentText.indexOf('\n')) >= 0) {
        const line = toAgentText.slice(0, newline);
        toAgentText = toAgentText.slice(newline + 1);
        const message = line.trim() ? JSON.parse(line) : undefined;
        if (message?.method && message.id !== undefined) sentMethods.set(message.id, message.method);
      }
      child.stdin.write(bytes);
    },
    close() {
      child.stdin.end();
    },
  });
  const updates: SessionNotification[] = [];
  const elicitations: CreateElicitationRequest[] = [];
  const connection = client()
    .onNotification('session/update', ({ params }) => void updates.push(params))
    .onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }))
    .onRequest('elicitation/create', async ({ params }) => {
      elicitations.push(params);
      return options.elicit ? options.elicit(params) : { action: 'decline' };
    })
    .connect(ndJsonStream(toAgent, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  const session: Session = {
    agent: connection.agent,
    updates,
    elicitations,
    written,
    stderr: () => stderr,
    problems: () =>
      written.flatMap((message) => schema.check(message, (id) => sentMethods.get(id)).map((p) => `${message.method ?? `answer ${message.id}`}: ${p}`)),
    async close() {
      connection.close();
      child.stdin.end();
      if (child.exitCode === null && (await Promise.race([exited, new Promise((r) => setTimeout(() => r('late'), 3000))])) === 'late') child.kill('SIGKILL');
    },
  };
  opened.push(session);
  const init = await session.agent.request('initialize', { protocolVersion: 1, clientCapabilities: capabilities });
  if (init.protocolVersion !== 1) throw new Error(`initialize failed; stderr:\n${stderr}`);
  return session;
}

const kinds = (s: Session, sessionId: string) => s.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
const gated = (update: { sessionUpdate: string }) => ['notice', 'compaction_update', 'compaction_summary_chunk'].includes(update.sessionUpdate);
const text = (value: string): ContentBlock[] => [{ type: 'text', text: value }];
const chunks = (updates: ReturnType<typeof kinds>) =>
  updates.filter(
    (u) => u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'agent_thought_chunk' || u.sessionUpdate === 'user_message_chunk',
  ) as Array<{ sessionUpdate: string; messageId?: string | null; content: { type: string; text?: string } }>;

describe('the schema check', () => {
  it('rejects what the stable schema forbids, so an empty list of problems means something', () => {
    const update = (u: object) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: u } });
    const none = () => undefined;
    expect(schema.check(update({ sessionUpdate: 'notice', severity: 'info', title: 'ok' }), none)).toEqual([]);
    expect(schema.check(update({ sessionUpdate: 'notice', severity: 'info', title: '' }), none)).not.toEqual([]);
    expect(schema.check(update({ sessionUpdate: 'compaction_update', status: 'completed' }), none)).not.toEqual([]);
    expect(schema.check(update({ sessionUpdate: 'usage_update', used: 1, size: 2, cost: { amount: 1 } }), none)).not.toEqual([]);
    expect(schema.check({ jsonrpc: '2.0', id: 1, result: { stopReason: 'error' } }, () => 'session/prompt')).not.toEqual([]);
    expect(schema.check({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: { sessionId: 's', mode: 'form', message: 'q' } }, none)).not.toEqual([]);
  });
});

describe('without the new capabilities', () => {
  it('tells compaction and the small window as text (no notice, no compaction entity); every chunk has a messageId a session/load repeats', async () => {
    const server = await servers(openRouter);
    const home = tempDir();
    const env = { OPENAI_CONTEXT_WINDOW: '4096', OPENAI_ACP_TOOLS: 'off' };
    const s = await open({}, { home, baseUrl: server.baseUrl, env });
    const { sessionId } = await s.agent.request('session/new', { cwd: home, mcpServers: [] });
    expect((await s.agent.request('session/prompt', { sessionId, prompt: text('hi') })).stopReason).toBe('end_turn');
    expect((await s.agent.request('session/prompt', { sessionId, prompt: text('again') })).stopReason).toBe('end_turn');
    // The model's answers (their step's message id), not the agent's own notice beside them.
    const answersLive = chunks(kinds(s, sessionId)).filter((u) => u.sessionUpdate === 'agent_message_chunk' && /-\d+-m$/.test(u.messageId ?? ''));
    expect((await s.agent.request('session/prompt', { sessionId, prompt: text('/compact') })).stopReason).toBe('end_turn');
    const live = kinds(s, sessionId);
    expect(live.filter(gated)).toEqual([]);
    // The small-window notice is a message of its own (never a thought, which clients show as the model's).
    expect(chunks(live).some((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.text?.includes('small for coding work'))).toBe(true);
    expect(chunks(live).some((u) => u.sessionUpdate === 'agent_thought_chunk' && u.content.text?.includes('small for coding work'))).toBe(false);
    expect(chunks(live).some((u) => u.content.text?.includes('Conversation compacted'))).toBe(true);
    for (const u of chunks(live)) expect(u.messageId, JSON.stringify(u)).toEqual(expect.any(String));
    // Two answers reporting 0.000106 USD each: the meter carries the session's total.
    const costs = live
      .filter((u) => u.sessionUpdate === 'usage_update')
      .map((u) => (u as { cost?: { amount: number; currency: string } }).cost)
      .filter(Boolean);
    expect(costs[0]).toEqual({ amount: 0.000106, currency: 'USD' });
    expect(costs[1]!.amount).toBeCloseTo(0.000212, 9);
    expect(costs[1]!.currency).toBe('USD');
    expect(s.problems()).toEqual([]);
    await s.close();

    // Loaded again by a new process: the same message ids, still no entity.
    const again = await open({}, { home, baseUrl: server.baseUrl, env });
    await again.agent.request('session/load', { sessionId, cwd: home, mcpServers: [] });
    const replay = kinds(again, sessionId);
    expect(replay.filter(gated)).toEqual([]);
    // The two answers before /compact: one message each live (however many chunks), the same ids replayed.
    const liveIds = [...new Set(answersLive.map((u) => u.messageId))];
    expect(liveIds).toHaveLength(2);
    const replayed = chunks(replay).filter((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.text?.startsWith('Olá'));
    expect(replayed.map((u) => u.messageId)).toEqual(liveIds);
    for (const u of chunks(replay)) expect(u.messageId).toEqual(expect.any(String));
    expect(again.problems()).toEqual([]);
  });
});

describe('with session.notices and session.compaction', () => {
  it('sends the small-window notice as a notice, /compact as a compaction entity, and replays it on session/load', async () => {
    const server = await servers(openRouter);
    const home = tempDir();
    const env = { OPENAI_CONTEXT_WINDOW: '4096', OPENAI_ACP_TOOLS: 'off' };
    const caps: ClientCapabilities = { session: { notices: {}, compaction: {} } };
    const s = await open(caps, { home, baseUrl: server.baseUrl, env });
    const { sessionId } = await s.agent.request('session/new', { cwd: home, mcpServers: [] });
    await s.agent.request('session/prompt', { sessionId, prompt: text('hi') });
    await s.agent.request('session/prompt', { sessionId, prompt: text('/compact') });
    const live = kinds(s, sessionId);
    const notices = live.filter((u) => u.sessionUpdate === 'notice') as Array<{ title: string; description?: string; severity: string }>;
    expect(notices).toHaveLength(1);
    expect(notices[0]!.title).toBe('Small context window: 4,096 tokens');
    expect(notices[0]!.description).toContain('OPENAI_CONTEXT_WINDOW');
    expect(chunks(live).some((u) => u.content.text?.includes('small for coding work'))).toBe(false);
    const compaction = live.filter((u) => u.sessionUpdate.startsWith('compaction')) as Array<{
      sessionUpdate: string;
      compactionId: string;
      status?: string;
      content?: { text: string };
    }>;
    expect(compaction.map((u) => `${u.sessionUpdate}:${u.status ?? ''}`)).toEqual([
      'compaction_update:in_progress',
      'compaction_summary_chunk:',
      'compaction_update:completed',
    ]);
    expect(new Set(compaction.map((u) => u.compactionId)).size).toBe(1);
    expect(compaction[1]!.content!.text).toContain('Olá');
    // The summary is not also an answer.
    expect(chunks(live).some((u) => u.content.text?.includes('Conversation compacted'))).toBe(false);
    expect(s.problems()).toEqual([]);
    await s.close();

    const again = await open(caps, { home, baseUrl: server.baseUrl, env });
    await again.agent.request('session/load', { sessionId, cwd: home, mcpServers: [] });
    const replayed = kinds(again, sessionId).filter((u) => u.sessionUpdate === 'compaction_update') as Array<{
      compactionId: string;
      status: string;
      summary: Array<{ text: string }>;
    }>;
    expect(replayed).toHaveLength(1);
    expect(replayed[0]!.compactionId).toBe(compaction[0]!.compactionId);
    expect(replayed[0]!.status).toBe('completed');
    expect(replayed[0]!.summary[0]!.text).toContain('Olá');
    expect(again.problems()).toEqual([]);
  });
});

describe('questions from MCP servers', () => {
  const mcp = (): McpServer[] => [{ name: 'el', command: process.execPath, args: [ELICIT_SERVER], env: [] }];

  /**
   * One agent (and its model server) for the cases whose client has `elicitation.form` and no
   * settings of their own: each case sets the model's script and the client's answer, works in a
   * session of its own, and sees only what was written, asked and logged from its start. A process
   * start costs ~0.3 s of CPU; every behaviour here is still shown by a real spawn.
   */
  let shared: { session: Session; server: FakeOpenAI; elicit: (request: CreateElicitationRequest) => Promise<CreateElicitationResponse> } | undefined;
  afterAll(async () => {
    await shared?.session.close();
    await shared?.server.close();
  });
  async function formClient(handler: ChatHandler, elicit: (request: CreateElicitationRequest) => Promise<CreateElicitationResponse>) {
    if (shared === undefined) {
      const server = await startFakeOpenAI(handler);
      const session = await open({ elicitation: { form: {} } }, { baseUrl: server.baseUrl, elicit: (request) => shared!.elicit(request) });
      opened.splice(opened.indexOf(session), 1); // closed after the file, not after this case
      shared = { session, server, elicit };
    }
    shared.server.handle(handler);
    shared.server.requests.length = 0;
    shared.elicit = elicit;
    const { session } = shared;
    const problems = session.problems();
    if (problems.length > 0) throw new Error(`schema problems before this case: ${problems.join('; ')}`);
    session.updates.length = 0;
    session.elicitations.length = 0;
    session.written.length = 0;
    const from = session.stderr().length;
    return { server: shared.server, s: { ...session, stderr: () => session.stderr().slice(from) } };
  }

  it('with elicitation.form: a question inside a tool call reaches the user tied to the session and the call, and the answer goes back', async () => {
    const { server, s } = await formClient(
      script([{ calls: [['el__ask', {}]] }, { calls: [['el__ask_later', {}]] }, { text: 'done' }, { calls: [['el__later_answer', {}]] }, { text: 'done' }]),
      async () => ({ action: 'accept', content: { name: 'Ada' } }),
    );
    const cwd = tempDir();
    const { sessionId } = await s.agent.request('session/new', { cwd, mcpServers: mcp() });
    expect((await s.agent.request('session/prompt', { sessionId, prompt: text('ask me') })).stopReason).toBe('end_turn');
    const call = kinds(s, sessionId).find((u) => u.sessionUpdate === 'tool_call') as { toolCallId: string };
    expect(s.elicitations[0]).toMatchObject({ sessionId, toolCallId: call.toolCallId, mode: 'form', message: 'What is your name?' });
    const result = (i: number) => server.requests[i]!.body.messages.filter((m: any) => m.role === 'tool').at(-1)?.content;
    expect(result(1)).toContain('action=accept content={"name":"Ada"}');
    // Asked while none of its calls runs (after ask_later returned): declined without asking the user.
    await waitFor(() => s.stderr().includes('while none of its tool calls runs; declined'), 10_000, 'the question outside a call');
    expect((await s.agent.request('session/prompt', { sessionId, prompt: text('and then?') })).stopReason).toBe('end_turn');
    expect(result(4)).toContain('later action=decline');
    expect(s.elicitations).toHaveLength(1);
    expect(s.problems()).toEqual([]);
  });

  it('without the capability: the server is told decline and the client is never asked', async () => {
    const server = await servers(script([{ calls: [['el__ask', {}]] }, { text: 'done' }]));
    const cwd = tempDir();
    const s = await open({}, { baseUrl: server.baseUrl });
    const { sessionId } = await s.agent.request('session/new', { cwd, mcpServers: mcp() });
    await s.agent.request('session/prompt', { sessionId, prompt: text('ask me') });
    expect(s.elicitations).toEqual([]);
    expect(s.written.some((m) => m.method === 'elicitation/create')).toBe(false);
    expect(server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').at(-1).content).toContain('action=decline');
    expect(s.problems()).toEqual([]);
  });

  it('a client that answers with an error: the tool call fails with that reason and the turn goes on', async () => {
    const { server, s } = await formClient(script([{ calls: [['el__ask', {}]] }, { text: 'went on' }]), async () =>
      Promise.reject(new RequestError(-32603, 'no form today')),
    );
    const cwd = tempDir();
    const { sessionId } = await s.agent.request('session/new', { cwd, mcpServers: mcp() });
    expect((await s.agent.request('session/prompt', { sessionId, prompt: text('ask me') })).stopReason).toBe('end_turn');
    const result = server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').at(-1).content as string;
    expect(result).toContain('could not ask it');
    expect(result).toContain('no form today');
    const done = kinds(s, sessionId)
      .filter((u) => u.sessionUpdate === 'tool_call_update')
      .at(-1) as { status: string };
    expect(done.status).toBe('failed');
    expect(s.problems()).toEqual([]);
  });

  it('a client that never answers: a cancelled turn withdraws the question and answers cancelled', async () => {
    const { server, s } = await formClient(script([{ calls: [['el__ask', {}]] }, { text: 'must not be asked' }]), () => new Promise(() => undefined));
    const cwd = tempDir();
    const { sessionId } = await s.agent.request('session/new', { cwd, mcpServers: mcp() });
    const pending = s.agent.request('session/prompt', { sessionId, prompt: text('ask me') });
    await waitFor(() => s.elicitations.length === 1, 10_000, 'the question');
    await s.agent.notify('session/cancel', { sessionId });
    expect((await pending).stopReason).toBe('cancelled');
    expect(server.requests).toHaveLength(1);
    const asked = s.written.find((m) => m.method === 'elicitation/create');
    await waitFor(() => s.written.some((m) => m.method === '$/cancel_request' && m.params?.requestId === asked.id), 5000, 'the withdrawal');
    expect(s.problems()).toEqual([]);
  });

  it('a client that never answers: the MCP call fails at its time limit, the question is withdrawn, and the turn goes on', async () => {
    const server = await servers(script([{ calls: [['el__ask', {}]] }, { text: 'went on' }]));
    const cwd = tempDir();
    const s = await open(
      { elicitation: { form: {} } },
      { baseUrl: server.baseUrl, env: { OPENAI_ACP_MCP_TOOL_TIMEOUT_MS: '1500' }, elicit: () => new Promise(() => undefined) },
    );
    const { sessionId } = await s.agent.request('session/new', { cwd, mcpServers: mcp() });
    expect((await s.agent.request('session/prompt', { sessionId, prompt: text('ask me') })).stopReason).toBe('end_turn');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').at(-1).content).toMatch(/time|timed out/i);
    const asked = s.written.find((m) => m.method === 'elicitation/create');
    expect(s.written.some((m) => m.method === '$/cancel_request' && m.params?.requestId === asked.id)).toBe(true);
    expect(s.problems()).toEqual([]);
  });
});
