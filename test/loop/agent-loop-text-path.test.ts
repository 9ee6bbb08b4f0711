/**
 * The text path of the agent loop (templates that cannot take tools): a template error answering
 * a request with tools switches the endpoint and model to it and sends the same step again, once;
 * on it no message of any request has the `tool` role or `tool_calls`, the tools are described
 * in the system message, calls are read from the text, and the user is told once.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { UpdateSink } from '../../src/tools/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/loop/agent-loop.js';
import { prepareTurnTools } from '../../src/loop/turn-tools.js';
import { createLogger } from '../../src/shared/log.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import type { Session } from '../../src/sessions/session.js';
import { LearnedWindows } from '../../src/endpoints/learned-windows.js';
import { TextToolPaths } from '../../src/endpoints/learned-text-paths.js';
import type { Notify, UserNotice } from '../../src/loop/notify.js';
import { fakeClient } from '../helpers/fake-acp-client.js';
import { scriptedChat, type ScriptedAnswer } from '../helpers/scripted-chat.js';

const logger = createLogger({ level: 'error', write: () => undefined });
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** llama-server 0.7.0's answer to a `tool` message under Gemma 3's own template (recorded). */
const templateError = JSON.parse(readFileSync(new URL('../fixtures/llamacpp/template-error-gemma.json', import.meta.url), 'utf8')).response as {
  status: number;
  body: string;
};
const URL_OF_FAKE = 'http://127.0.0.1:1/v1/chat/completions';

/** The endpoint of these turns: model `gemma` on the scripted server, whose text paths are `paths`. */
const gemma = (chat: ReturnType<typeof scriptedChat>, paths: TextToolPaths) => ({
  chat: chat.client,
  request: { model: 'gemma' },
  toolMessageRules: { echoReasoning: false, shortToolCallIds: false },
  takesImages: false,
  learned: { textPaths: paths, windows: new LearnedWindows() },
});

async function run(answers: ScriptedAnswer[], paths = new TextToolPaths(), earlier: ChatMessage[][] = [], notify?: Notify) {
  const cwd = await mkdtemp(join(tmpdir(), 'agent-loop-text-'));
  dirs.push(cwd);
  const fake = fakeClient();
  const chat = scriptedChat(answers);
  const session = { id: 's1', cwd, createdAt: '', records: [], model: 'm', options: { mode: 'full-access' } } as unknown as Session;
  const tools = prepareTurnTools({
    session,
    state: { roots: { cwd, extra: [] }, mcp: undefined, mcpList: '' } as never,
    client: fake.client,
    capabilities: { readTextFile: false, writeTextFile: false, terminal: false },
    profile: {},
    logger,
    saveOptions: async () => undefined,
  });
  const updates: SessionUpdate[] = [];
  const send: UpdateSink = async (batch) => void updates.push(...batch);
  const outcome = await runAgentLoop(
    { signal: new AbortController().signal, send, turnId: globalThis.crypto.randomUUID() },
    {
      context: { system: 'sys', turns: earlier, task: { role: 'user', content: 'write a.txt' } },
      endpoint: gemma(chat, paths),
      tools,
      limits: { maxSteps: 10 },
      callbacks: { logger, notify },
    },
  );
  // The agent's own words (a notice told as text, never a thought): messages under an id of their own, not the step's.
  const own = updates
    .filter((u) => u.sessionUpdate === 'agent_thought_chunk' || (u.sessionUpdate === 'agent_message_chunk' && !/-\d+-m$/.test(u.messageId ?? '')))
    .map((u) => (u as { content: { text: string } }).content.text)
    .join('');
  const text = updates
    .filter((u) => u.sessionUpdate === 'agent_message_chunk' && /-\d+-m$/.test(u.messageId ?? ''))
    .map((u) => (u as { content: { text: string } }).content.text)
    .join('');
  return { cwd, outcome, chat, paths, text, thoughts: own };
}

const noToolShapes = (messages: ChatMessage[]) => messages.every((m) => m.role !== 'tool' && !(m.role === 'assistant' && m.tool_calls));
const alternate = (messages: ChatMessage[]) => messages.slice(1).every((m, i, rest) => i === 0 || m.role !== rest[i - 1]!.role);

describe('the text path', () => {
  it('a template error mid-turn switches to the text path and sends the same step again; the task gets done', async () => {
    const earlier: ChatMessage[][] = [
      [
        { role: 'user', content: 'look' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'old', type: 'function', function: { name: 'list_directory', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'old', content: 'a.txt' },
        { role: 'assistant', content: 'There is a.txt.' },
      ],
    ];
    const r = await run(
      [
        // The server dropped `tools`; the model wrote its call as text.
        { text: '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "hi"}}\n</tool_call>' },
        // Sending the call back as tool_calls + tool: the template refuses.
        { error: templateError },
        { text: 'Wrote a.txt.' },
      ],
      undefined,
      earlier,
    );
    expect(r.outcome.stopReason).toBe('end_turn');
    expect(r.outcome.error).toBeUndefined();
    expect(r.text).toBe('Wrote a.txt.');
    expect(await readFile(join(r.cwd, 'a.txt'), 'utf8')).toBe('hi');
    expect(r.chat.seen).toHaveLength(3);
    // The retry: no tools, no tool role and no tool_calls in any message (the earlier turn's included), roles alternating.
    const retry = r.chat.seen[2]!;
    expect(retry.noTools).toBe(true);
    expect(noToolShapes(retry.messages)).toBe(true);
    expect(alternate(retry.messages)).toBe(true);
    expect(retry.messages[0]).toMatchObject({
      role: 'system',
      content: expect.stringMatching(/^sys\n\nTo call a tool, answer with only a block like this[\s\S]*- write_file: /),
    });
    expect(retry.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(retry.messages[2]!.content).toBe('<tool_call>\n{"name":"list_directory","arguments":{}}\n</tool_call>');
    expect(retry.messages[3]!.content).toBe('Result of list_directory:\na.txt');
    expect(retry.messages[6]!.content).toBe('<tool_call>\n{"name":"write_file","arguments":{"path":"a.txt","content":"hi"}}\n</tool_call>');
    expect(String(retry.messages[7]!.content)).toMatch(/^Result of write_file:\n/);
    expect(r.thoughts.match(/gets its tools as text/g)).toHaveLength(1);
    expect(r.paths.has(URL_OF_FAKE, 'gemma')).toBe(true);
  });

  it('remembered: the next turn starts on the text path without a failed request, and the notice is not repeated', async () => {
    const paths = new TextToolPaths();
    paths.use(URL_OF_FAKE, 'gemma', 'server');
    const first = await run([{ text: '<tool_call>\n{"name": "list_directory", "arguments": {}}\n</tool_call>' }, { text: 'Empty.' }], paths);
    expect(first.chat.seen.every((s) => s.noTools && noToolShapes(s.messages))).toBe(true);
    expect(first.thoughts).toContain('the server says its chat template cannot take tools');
    const second = await run([{ text: 'Hi.' }], paths);
    expect(second.chat.seen[0]!.noTools).toBe(true);
    expect(second.thoughts).toBe('');
  });

  it('on the text path the user is told once, as the text path, not also as a model that wrote its calls as text (whose fix would be wrong here)', async () => {
    const paths = new TextToolPaths();
    paths.use(URL_OF_FAKE, 'gemma', 'server');
    const notices: UserNotice[] = [];
    const r = await run(
      [{ text: '<tool_call>\n{"name": "list_directory", "arguments": {}}\n</tool_call>' }, { text: 'Empty.' }],
      paths,
      [],
      async (notice) => void notices.push(notice),
    );
    expect(r.outcome.steps).toHaveLength(1);
    expect(notices.map((n) => n.title)).toEqual(['Tools sent as text']);
  });

  it('retries once only: a template error on the text path is explained to the user', async () => {
    const r = await run([{ error: templateError }, { error: templateError }]);
    expect(r.chat.seen).toHaveLength(2);
    expect(r.chat.seen[1]!.noTools).toBe(true);
    expect(r.outcome.error?.message).toMatch(/Conversation roles must alternate/);
  });
});

describe('the text path without tools offered', () => {
  const earlier: ChatMessage[][] = [
    [
      { role: 'user', content: 'look' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'old', type: 'function', function: { name: 'list_directory', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'old', content: 'a.txt' },
      { role: 'assistant', content: 'There is a.txt.' },
    ],
  ];
  const loop = (chat: ReturnType<typeof scriptedChat>, paths: TextToolPaths) =>
    runAgentLoop(
      { signal: new AbortController().signal, send: async () => undefined, turnId: globalThis.crypto.randomUUID() },
      {
        context: { system: 'sys', turns: earlier, task: { role: 'user', content: 'Summarize our conversation so far.' } },
        endpoint: gemma(chat, paths),
        limits: { maxSteps: 1 },
        callbacks: { logger },
      },
    );

  it('a request whose history has tool calls (a /compact) is spelled as text too, without tool instructions', async () => {
    const paths = new TextToolPaths();
    paths.use(URL_OF_FAKE, 'gemma', 'server');
    const chat = scriptedChat([{ text: 'Summary.' }]);
    const outcome = await loop(chat, paths);
    expect(outcome.text).toBe('Summary.');
    expect(noToolShapes(chat.seen[0]!.messages)).toBe(true);
    expect(chat.seen[0]!.messages[0]).toEqual({ role: 'system', content: 'sys' });
  });

  it('a template error on such a request switches it and sends it again', async () => {
    const chat = scriptedChat([{ error: templateError }, { text: 'Summary.' }]);
    const outcome = await loop(chat, new TextToolPaths());
    expect(outcome.text).toBe('Summary.');
    expect(chat.seen).toHaveLength(2);
    expect(noToolShapes(chat.seen[0]!.messages)).toBe(false);
    expect(noToolShapes(chat.seen[1]!.messages)).toBe(true);
  });
});
