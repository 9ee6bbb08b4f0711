/**
 * Durable sessions end to end: the built CLI spawned as clients spawn it, killed with SIGKILL
 * mid-turn, restarted, and driven over raw JSON-RPC against a loopback endpoint.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chunk, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';
import { sharedPerFile } from '../helpers/shared-agent.js';

let server: FakeOpenAI;
let stateDir: string;
const agents: AgentProcess[] = [];

beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'openai-acp-e2e-state-'));
  // Answers "reply N" (N = messages received); the prompt "hang now" streams one chunk and never
  // ends (only that prompt: folded in front of a later one, as an unanswered prompt is, it must not
  // hang that one too); one containing "fail" is answered 500.
  server.handle((_req, res, body) => {
    const last = JSON.stringify(body.messages.at(-1).content);
    if (last.includes('fail')) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'upstream broke' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (body.messages.at(-1).content === 'hang now') {
      res.write(chunk({ content: 'partial' }));
      return;
    }
    res.write(chunk({ content: `reply ${body.messages.length}` }, 'stop'));
    res.end('data: [DONE]\n\n');
  });
});
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
  rmSync(stateDir, { recursive: true, force: true });
});

/** An agent saving its sessions in `dir`; not ended by the case (see {@link launch}). */
const spawnOn = (dir: string) =>
  spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: dir, OPENAI_ACP_TOOLS: 'off' });
/** The case's own agent, killed after it; its sessions in the case's state directory unless `dir` says. */
const launch = (dir = stateDir) => {
  const agent = spawnOn(dir);
  agents.push(agent);
  return agent;
};
/**
 * One agent per describe block on a state directory of the block's own, for cases that neither end
 * it nor look at the directory's files: started when a case first needs it, with its `initialize`
 * answer. Returns the directory and the agent.
 */
function sharedOnOwnDir() {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'openai-acp-e2e-state-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // Registered after the directory's removal, so run before it (after-hooks run in reverse).
  const shared = sharedPerFile(async () => {
    const agent = spawnOn(dir);
    return { agent, init: await initialize(agent) };
  });
  return { dir: () => dir, shared };
}
const text = (t: string) => [{ type: 'text', text: t }];
const initialize = (agent: AgentProcess) =>
  agent.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
/** `role: text` of each message of the last upstream request. */
const lastMessages = () =>
  server.requests
    .at(-1)!
    .body.messages.map((m: { role: string; content: unknown }) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);

/** Two completed turns in `dir`, then SIGKILL while a third streams. Returns the session id. */
async function twoTurnsThenKill(dir: string): Promise<string> {
  const first = launch(dir);
  const sessionId = await first.start();
  expect((await first.request('session/prompt', { sessionId, prompt: text('one') })).result.stopReason).toBe('end_turn');
  expect((await first.request('session/prompt', { sessionId, prompt: text('two') })).result.stopReason).toBe('end_turn');
  void first.request('session/prompt', { sessionId, prompt: text('hang now') });
  await waitFor(() => first.text(sessionId).endsWith('partial'), 5000, 'the third turn to stream');
  first.kill();
  await first.exited;
  return sessionId;
}

describe('surviving SIGKILL', () => {
  // The killed agents' sessions are loaded by another agent, which never held them.
  const { dir, shared } = sharedOnOwnDir();

  it('session/load in a new process replays both completed turns and the killed prompt, and the next request carries them', async () => {
    const sessionId = await twoTurnsThenKill(dir());
    const { agent: second, init } = await shared();
    expect(init.result.agentCapabilities).toMatchObject({ loadSession: true, sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} } });
    const loaded = await second.request('session/load', { sessionId, cwd: process.cwd(), mcpServers: [] });
    expect(loaded.error).toBeUndefined();
    const replay = second
      .updates(sessionId)
      .filter((u) => u.sessionUpdate !== 'available_commands_update')
      .map((u) => `${u.sessionUpdate}: ${u.content?.text}`);
    // The killed turn's prompt was saved as it started; only its answer is lost.
    expect(replay).toEqual([
      'user_message_chunk: one',
      'agent_message_chunk: reply 1',
      'user_message_chunk: two',
      'agent_message_chunk: reply 3',
      'user_message_chunk: hang now',
    ]);
    expect((await second.request('session/prompt', { sessionId, prompt: text('four') })).result.stopReason).toBe('end_turn');
    // Unanswered, the killed prompt goes in front of the next one, so user and assistant still alternate.
    expect(lastMessages()).toEqual(['user: one', 'assistant: reply 1', 'user: two', 'assistant: reply 3', 'user: hang now\n\nfour']);
    expect(second.badLines).toEqual([]);
  });

  it('session/resume in a new process restores without replay and continues', async () => {
    const sessionId = await twoTurnsThenKill(dir());
    const { agent: second } = await shared();
    const resumed = await second.request('session/resume', { sessionId, cwd: process.cwd(), mcpServers: [] });
    expect(resumed.result.configOptions.find((o: { id: string }) => o.id === 'model').currentValue).toBe('test-model');
    expect(second.updates(sessionId).filter((u) => u.sessionUpdate !== 'available_commands_update')).toEqual([]);
    expect((await second.request('session/prompt', { sessionId, prompt: text('four') })).result.stopReason).toBe('end_turn');
    // Unanswered, the killed prompt goes in front of the next one, so user and assistant still alternate.
    expect(lastMessages()).toEqual(['user: one', 'assistant: reply 1', 'user: two', 'assistant: reply 3', 'user: hang now\n\nfour']);
  });
});

describe("Open Design's pattern: one process per turn", () => {
  it('three processes, each loading the session and adding a turn', async () => {
    let sessionId = '';
    for (const [index, words] of ['first', 'second', 'third'].entries()) {
      const agent = launch();
      await initialize(agent);
      if (index === 0) sessionId = (await agent.request('session/new', { cwd: process.cwd(), mcpServers: [] })).result.sessionId;
      else expect((await agent.request('session/load', { sessionId, cwd: process.cwd(), mcpServers: [] })).error).toBeUndefined();
      expect((await agent.request('session/prompt', { sessionId, prompt: text(words) })).result.stopReason).toBe('end_turn');
      agent.child.stdin.end();
      setTimeout(() => agent.child.kill('SIGTERM'), 500).unref();
      expect(await agent.exited).toBe(0);
    }
    expect(lastMessages()).toEqual(['user: first', 'assistant: reply 1', 'user: second', 'assistant: reply 3', 'user: third']);
  });
});

describe('a session without a kept turn', () => {
  /** The session files in the state directory. */
  const sessionFiles = () => readdirSync(stateDir).filter((name) => name.endsWith('.jsonl'));
  const endAndWait = async (agent: AgentProcess) => {
    agent.child.stdin.end();
    setTimeout(() => agent.child.kill('SIGTERM'), 5000).unref();
    expect(await agent.exited).toBe(0);
  };

  it('leaves no file when its only prompt was refused before the model was asked (a setting is wrong) and the client ended stdin', async () => {
    const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: stateDir, OPENAI_MAX_RETRIES: 'lots' });
    agents.push(agent);
    await initialize(agent);
    const refused = (await agent.request('session/new', { cwd: process.cwd(), mcpServers: [] })).result.sessionId;
    const asked = server.requests.length;
    // Listed while it lives, as any session is.
    const listed = (await agent.request('session/list', {})).result.sessions.map((s: { sessionId: string }) => s.sessionId);
    expect(listed).toEqual([refused]);
    const answer = await agent.request('session/prompt', { sessionId: refused, prompt: text('hello') });
    expect(answer.error?.message).toMatch(/OPENAI_MAX_RETRIES/);
    expect(server.requests.length).toBe(asked);
    await endAndWait(agent);
    expect(sessionFiles()).toEqual([]);
  });

  it("keeps a session whose only prompt failed at the endpoint: it holds the user's prompt", async () => {
    const agent = launch();
    await initialize(agent);
    const failed = (await agent.request('session/new', { cwd: process.cwd(), mcpServers: [] })).result.sessionId;
    const kept = (await agent.request('session/new', { cwd: process.cwd(), mcpServers: [] })).result.sessionId;
    const answer = await agent.request('session/prompt', { sessionId: failed, prompt: text('fail please') });
    expect(answer.error).toMatchObject({ code: -32603, data: { status: 500 } });
    expect((await agent.request('session/prompt', { sessionId: kept, prompt: text('one') })).result.stopReason).toBe('end_turn');
    await endAndWait(agent);
    expect(sessionFiles().sort()).toEqual([`${failed}.jsonl`, `${kept}.jsonl`].sort());
  });

  it('leaves no file once session/close lets go of it', async () => {
    const agent = launch();
    await initialize(agent);
    const sessionId = (await agent.request('session/new', { cwd: process.cwd(), mcpServers: [] })).result.sessionId;
    expect(sessionFiles()).toEqual([`${sessionId}.jsonl`]);
    expect((await agent.request('session/close', { sessionId })).result).toEqual({});
    expect(sessionFiles()).toEqual([]);
    await endAndWait(agent);
  });
});

describe('session/list, close and delete over stdio', () => {
  // The sessions listed are those of the list case alone: the other case makes none.
  const { shared } = sharedOnOwnDir();

  it('lists 120 sessions newest first in pages of 50, filters by cwd, and rejects a bad cursor', async () => {
    const { agent } = await shared();
    const created: string[] = [];
    for (let i = 0; i < 120; i++) {
      const cwd = i % 3 === 0 ? '/projects/a' : '/projects/b';
      created.push((await agent.request('session/new', { cwd, mcpServers: [] })).result.sessionId);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    do {
      const page = await agent.request('session/list', cursor ? { cursor } : {});
      sizes.push(page.result.sessions.length);
      seen.push(...page.result.sessions.map((s: { sessionId: string }) => s.sessionId));
      for (const s of page.result.sessions) expect(Date.parse(s.updatedAt)).not.toBeNaN();
      cursor = page.result.nextCursor;
    } while (cursor);
    expect(sizes).toEqual([50, 50, 20]);
    expect(new Set(seen)).toEqual(new Set(created));
    const filtered = await agent.request('session/list', { cwd: '/projects/a' });
    expect(filtered.result.sessions).toHaveLength(40);
    expect(filtered.result.nextCursor).toBeUndefined();
    expect(filtered.result.sessions.every((s: { cwd: string }) => s.cwd === '/projects/a')).toBe(true);
    const bad = await agent.request('session/list', { cursor: 'not-a-cursor' });
    expect(bad.error.code).toBe(-32602);
  });

  it('answers -32002 with the sessionId when closing an unknown session; delete of an unknown id succeeds', async () => {
    const { agent } = await shared();
    const closed = await agent.request('session/close', { sessionId: 'no-such-session' });
    expect(closed.error).toMatchObject({ code: -32002, data: { sessionId: 'no-such-session' } });
    expect((await agent.request('session/delete', { sessionId: 'no-such-session' })).result).toEqual({});
  });

  it('keeps sessions in memory only, with a warning, when OPENAI_ACP_STATE_DIR=off', async () => {
    const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_ACP_STATE_DIR: 'off' });
    agents.push(agent);
    const init = await initialize(agent);
    expect(init.result.agentCapabilities.loadSession).toBe(false);
    expect(init.result.agentCapabilities.sessionCapabilities).toEqual({ additionalDirectories: {}, fork: {} });
    expect(agent.stderr()).toMatch(/warn/i);
  });
});
