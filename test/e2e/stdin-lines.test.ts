/**
 * Issue 11 items 1–4 against the built CLI: no stdin line stops the agent. The reproductions are
 * the issue's own (a 5,000-deep invalid request, a 50 MB prompt line, a 20 MB invalid request).
 * The big lines are written as bytes ({@link bigLine}: the bytes `JSON.stringify` gives), which
 * spares the test process building and encoding tens of MB of text. Each big line has an agent of
 * its own: one agent reading them all in turn spent more CPU than three starts (measured).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';

let agent: AgentProcess | undefined;
afterEach(() => {
  agent?.kill();
  agent = undefined;
});

const env = { OPENAI_ACP_STATE_DIR: 'off', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'm' };
/** One line's bytes with its line feed: `head` and `tail`, JSON text around a string of `size` `fill` characters. */
const bigLine = (head: string, fill: string, size: number, tail: string) =>
  Buffer.concat([Buffer.from(head), Buffer.alloc(size, fill), Buffer.from(`${tail}\n`)]);
const promptLine = (id: string, sessionId: string, size: number) =>
  bigLine(`{"jsonrpc":"2.0","id":"${id}","method":"session/prompt","params":{"sessionId":"${sessionId}","prompt":[{"type":"text","text":"`, 'x', size, '"}]}}');
const answerTo = (id: unknown) => agent!.messages.find((m) => m.id === id && m.method === undefined);

describe('stdin lines that used to stop the agent', () => {
  it('answers a 5,000-deep invalid request with -32600 (no echo) and keeps serving', async () => {
    agent = spawnAgent(env);
    await agent.request('initialize', { protocolVersion: 1 });
    agent.writeLine(`{"jsonrpc":"1.0","id":7,"method":"x","params":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    const list = await agent.request('session/list', {});
    expect(list.result.sessions).toEqual([]);
    const bad = answerTo(7);
    expect(bad.error.code).toBe(-32600);
    expect(bad.error).not.toHaveProperty('data');
    expect(agent.stderr()).toMatch(/openai-acp error: stdin line 2 is not a JSON-RPC message/);
    expect(agent.child.exitCode).toBeNull();
  });

  it('takes a 50 MB prompt line (under the 64 MiB limit) and answers it', async () => {
    agent = spawnAgent({ ...env, OPENAI_MAX_RETRIES: '0' });
    const sessionId = await agent.start();
    agent.child.stdin.write(promptLine('big', sessionId, 50_000_000));
    await waitFor(() => answerTo('big') !== undefined, 25_000, 'the answer to the 50 MB line');
    // Nothing listens there: the prompt is read whole, then fails as a connection failure.
    expect(answerTo('big').error).toMatchObject({ code: -32603, data: { kind: 'connection' } });
    expect(answerTo('big').error.message).toContain('Nothing is listening at http://127.0.0.1:9/v1');
  }, 30_000);

  it('refuses a 70 MB line naming the limit and its id, and keeps serving', async () => {
    agent = spawnAgent(env);
    const sessionId = await agent.start();
    agent.child.stdin.write(promptLine('huge', sessionId, 70_000_000));
    await waitFor(() => answerTo('huge') !== undefined, 25_000, 'the answer to the 70 MB line');
    expect(answerTo('huge').error.code).toBe(-32600);
    expect(answerTo('huge').error.message).toContain('64 MiB');
    expect((await agent.request('session/list', {})).result).toBeDefined();
    expect(agent.stderr()).toMatch(/openai-acp error: stdin line 3 refused/);
  }, 30_000);

  it('answers a 20 MB invalid request with a small error', async () => {
    agent = spawnAgent(env);
    await agent.request('initialize', { protocolVersion: 1 });
    agent.child.stdin.write(bigLine('{"jsonrpc":"2.0","id":5,"method":["not","a","string"],"params":{"text":"', 'z', 20_000_000, '"}}'));
    await agent.request('session/list', {});
    const bad = answerTo(5);
    expect(bad.error.code).toBe(-32600);
    expect(JSON.stringify(bad).length).toBeLessThan(300);
  }, 30_000);

  it('still exits 0 at the end of stdin', async () => {
    agent = spawnAgent(env);
    await agent.request('initialize', { protocolVersion: 1 });
    agent.writeLine('{"broken');
    await waitFor(() => agent!.messages.some((m) => m.error?.code === -32700), 5000, 'the parse error');
    agent.child.stdin.end();
    expect(await agent.exited).toBe(0);
  });
});
