/**
 * The user's prompt outlives a failed turn and a failure inside a failure: the built CLI spawned
 * as editors spawn it, against a loopback endpoint that answers HTTP 500, dies while its failure
 * is read, or whose client goes away meanwhile. After each, another agent on the same state
 * directory loads the session: the prompt is replayed (with no answer after it) and the next
 * prompt works. The model reads a failed prompt once: not again in front of the next prompt (it
 * may be what the endpoint refused), once when asked again; a prompt cut off by the client's
 * leaving (cancelled, killed) goes in front of the next one, once. Also: a `session/cancel` for
 * an unknown or finished session is ignored (ACP: a notification, never answered).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chunk, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';
import { sharedPerFile } from '../helpers/shared-agent.js';

let server: FakeOpenAI;
let stateDir: string;
const agents: AgentProcess[] = [];
/** The answer to a prompt holding `stall` (its 500 half written), kept open until the test ends it. */
let stalled: ServerResponse | undefined;

beforeAll(async () => {
  server = await startFakeOpenAI();
  stateDir = mkdtempSync(join(tmpdir(), 'openai-acp-e2e-failed-'));
});
afterAll(async () => {
  await server.close();
  rmSync(stateDir, { recursive: true, force: true });
});
beforeEach(() => {
  stalled = undefined;
  // The latest user message decides: "500" → HTTP 500 before any token; "dies" → a 500 whose
  // body breaks off (the socket destroyed while the agent reads the failure); "breaks" → a stream
  // whose first event is an error, then the socket destroyed; "stall" → a 500 whose body waits
  // for the test; anything else → "reply N" (N = messages received).
  server.handle((_req, res, body) => {
    const last = JSON.stringify(body.messages.at(-1).content);
    if (last.endsWith('500"')) {
      res.writeHead(500, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { message: 'upstream broke' } }));
    }
    if (last.endsWith('dies"')) {
      res.writeHead(500, { 'content-type': 'application/json' });
      return void res.write('{"error":{"message":"upstream bro', () => res.socket?.destroy());
    }
    if (last.endsWith('breaks"')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return void res.write(`data: ${JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } })}\n\n`, () => res.socket?.destroy());
    }
    if (last.endsWith('stall"')) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.write('{"error":{"message":"upstream bro');
      stalled = res;
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ content: `reply ${body.messages.length}` }, 'stop'));
    res.end('data: [DONE]\n\n');
  });
});
afterEach(() => {
  stalled?.destroy();
  for (const agent of agents.splice(0)) agent.kill();
});

/** An agent on the file's state directory; not ended by the case (see {@link launch}). */
const spawnOnState = () =>
  spawnAgent({
    OPENAI_BASE_URL: server.baseUrl,
    OPENAI_MODEL: 'test-model',
    OPENAI_ACP_STATE_DIR: stateDir,
    OPENAI_ACP_TOOLS: 'off',
    OPENAI_MAX_RETRIES: '0',
  });
/** An agent of the case's own, killed after it: the one whose turn fails and which then leaves. */
const launch = () => {
  const agent = spawnOnState();
  agents.push(agent);
  return agent;
};
/**
 * The agent that loads what another, ended, process saved: one per file, started when a case first
 * needs it, on the same state directory. It never held the sessions it loads (each case's own agent
 * made them), so what it replays comes from the saved file. Also serves the cases that need an
 * agent but no leaving.
 */
const loader = sharedPerFile(async () => {
  const agent = spawnOnState();
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return { agent };
});
const text = (t: string) => [{ type: 'text', text: t }];
const prompt = (agent: AgentProcess, sessionId: string, words: string) => agent.request('session/prompt', { sessionId, prompt: text(words) });
/** The latest chat request's messages, as `role: text`. */
const lastMessages = () =>
  server.requests
    .at(-1)!
    .body.messages.map((m: { role: string; content: unknown }) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
/** How often `words` occur in the latest chat request's messages. */
const timesSent = (words: string) => JSON.stringify(server.requests.at(-1)!.body.messages).split(words).length - 1;

/** Ends `agent` as a client does (stdin closed) and waits for it to leave. */
async function endAgent(agent: AgentProcess): Promise<void> {
  agent.child.stdin.end();
  setTimeout(() => agent.kill(), 20_000).unref();
  await agent.exited;
}

/** Another agent, which never held `sessionId`, loads it: the load's answer and what it replayed, as `kind: text`. */
async function loadFresh(sessionId: string): Promise<{ agent: AgentProcess; replay: string[] }> {
  const { agent } = await loader();
  const loaded = await agent.request('session/load', { sessionId, cwd: process.cwd(), mcpServers: [] });
  expect(loaded.error).toBeUndefined();
  const replay = agent
    .updates(sessionId)
    .filter((u) => u.sessionUpdate.endsWith('message_chunk'))
    .map((u) => `${u.sessionUpdate}: ${u.content.text}`);
  return { agent, replay };
}

describe('an HTTP 500 before any token', () => {
  it('keeps the prompt: replayed on session/load in another agent, with nothing after it; the next prompt works and goes alone', async () => {
    const first = launch();
    const sessionId = await first.start();
    const failed = await prompt(first, sessionId, 'why is the build red? 500');
    expect(failed.error).toMatchObject({ code: -32603, data: { kind: 'http', status: 500 } });
    expect(first.text(sessionId)).toBe('');
    // The client says goodbye as usual: a session holding a prompt is no blank one, it stays.
    await endAgent(first);

    const { agent: second, replay } = await loadFresh(sessionId);
    expect(replay).toEqual(['user_message_chunk: why is the build red? 500']);
    expect((await prompt(second, sessionId, 'and the tests?')).result.stopReason).toBe('end_turn');
    expect(lastMessages()).toEqual(['user: and the tests?']);
    expect(timesSent('why is the build red?')).toBe(0);
    expect(second.badLines).toEqual([]);
  });

  it('asked again word for word after a reload: the request carries the prompt once', async () => {
    const first = launch();
    const sessionId = await first.start();
    expect((await prompt(first, sessionId, 'say hi 500')).error).toMatchObject({ code: -32603 });
    await endAgent(first);
    const { agent: second } = await loadFresh(sessionId);
    // The endpoint fails the same words again; then it is back.
    expect((await prompt(second, sessionId, 'say hi 500')).error).toMatchObject({ code: -32603 });
    expect(lastMessages()).toEqual(['user: say hi 500']);
    server.handle((_req, res, body) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: `hi after ${body.messages.length}` }, 'stop'));
      res.end('data: [DONE]\n\n');
    });
    expect((await prompt(second, sessionId, 'say hi 500')).result.stopReason).toBe('end_turn');
    expect(lastMessages()).toEqual(['user: say hi 500']);
    expect((await prompt(second, sessionId, 'thanks')).result.stopReason).toBe('end_turn');
    expect(lastMessages()).toEqual(['user: say hi 500', 'assistant: hi after 1', 'user: thanks']);
  });
});

describe('the endpoint dies while its failure is read', () => {
  it.each([
    ['in the body of its HTTP 500', 'the question before the endpoint dies'],
    ['right after the error event of its stream', 'the question before the stream breaks'],
  ])('%s: the prompt fails, the agent serves on, and another agent loads the session with the prompt', async (_how, words) => {
    const first = launch();
    const sessionId = await first.start();
    const failed = await prompt(first, sessionId, words);
    expect(failed.error).toMatchObject({ code: -32603 });
    expect(failed.error.message).not.toMatch(/^Internal error/);
    // Still serving: the next prompt in the same process works.
    expect((await prompt(first, sessionId, 'still there?')).result.stopReason).toBe('end_turn');
    expect(lastMessages()).toEqual(['user: still there?']);
    await endAgent(first);

    const { agent: second, replay } = await loadFresh(sessionId);
    expect(replay).toEqual([`user_message_chunk: ${words}`, 'user_message_chunk: still there?', 'agent_message_chunk: reply 1']);
    expect(second.badLines).toEqual([]);
  });
});

describe('the client goes away while a failure is being reported', () => {
  /** A session whose prompt's failure is half read: the endpoint's 500 waits for the rest of its body. */
  async function midError(): Promise<{ agent: AgentProcess; sessionId: string; answer: Promise<any> }> {
    const agent = launch();
    const sessionId = await agent.start();
    const answer = prompt(agent, sessionId, 'a prompt whose failure stalls: stall');
    await waitFor(() => stalled !== undefined, 20_000, 'the 500 to start');
    return { agent, sessionId, answer };
  }

  it('stdin closed: the agent leaves, and another one loads the session with the prompt, sent once in front of the next', async () => {
    const { agent, sessionId } = await midError();
    agent.child.stdin.end();
    await agent.exited;
    const { agent: second, replay } = await loadFresh(sessionId);
    expect(replay).toEqual(['user_message_chunk: a prompt whose failure stalls: stall']);
    // Cancelled by the leaving, not failed: it goes in front of the next prompt, as a cancelled one does.
    expect((await prompt(second, sessionId, 'again')).result.stopReason).toBe('end_turn');
    expect(lastMessages()).toEqual(['user: a prompt whose failure stalls: stall\n\nagain']);
  });

  it('stdout closed, then the failure ends: the agent leaves, and another one loads the session with the prompt', async () => {
    const { agent, sessionId } = await midError();
    // The client stops reading: the failure's answer has nowhere to go.
    agent.child.stdout.destroy();
    stalled!.end('ke"}}');
    setTimeout(() => agent.kill(), 20_000).unref();
    await agent.exited;
    const { agent: second, replay } = await loadFresh(sessionId);
    expect(replay).toEqual(['user_message_chunk: a prompt whose failure stalls: stall']);
    // The failure ended the turn (its answer lost with the client): not sent again.
    expect((await prompt(second, sessionId, 'again')).result.stopReason).toBe('end_turn');
    expect(lastMessages()).toEqual(['user: again']);
  });

  it('killed (SIGKILL): another agent loads the session with the prompt, sent once in front of the next', async () => {
    const { agent, sessionId } = await midError();
    agent.kill();
    await agent.exited;
    const { agent: second, replay } = await loadFresh(sessionId);
    expect(replay).toEqual(['user_message_chunk: a prompt whose failure stalls: stall']);
    expect((await prompt(second, sessionId, 'again')).result.stopReason).toBe('end_turn');
    expect(timesSent('a prompt whose failure stalls')).toBe(1);
  });
});

describe('session/cancel for a session with no running turn', () => {
  it('is ignored for an unknown session and for one whose turn ended: a notification is not answered, a request gets an empty result, and the next prompt is not cancelled', async () => {
    const { agent } = await loader();
    const sessionId = (await agent.request('session/new', { cwd: process.cwd(), mcpServers: [] })).result.sessionId;
    expect((await prompt(agent, sessionId, 'one')).result.stopReason).toBe('end_turn');
    const before = agent.messages.length;
    agent.notify('session/cancel', { sessionId: 'no-such-session' });
    agent.notify('session/cancel', { sessionId });
    // A request after the notifications is answered after them (one line at a time, in order).
    expect((await agent.request('session/list', {})).result.sessions.map((s: { sessionId: string }) => s.sessionId)).toContain(sessionId);
    // Nothing but the list's answer: no error, no update for either cancel.
    expect(agent.messages.slice(before)).toEqual([expect.objectContaining({ id: expect.any(Number), result: expect.any(Object) })]);
    expect((await prompt(agent, sessionId, 'two')).result.stopReason).toBe('end_turn');
    // Sent as a request (some clients do), it is answered with an empty result, not an error.
    expect(await agent.request('session/cancel', { sessionId: 'no-such-session' })).toMatchObject({ result: {} });
    expect(await agent.request('session/cancel', { sessionId })).toMatchObject({ result: {} });
    expect((await prompt(agent, sessionId, 'three')).result.stopReason).toBe('end_turn');
    expect(agent.child.exitCode).toBeNull();
    expect(agent.badLines).toEqual([]);
  });
});
