/**
 * What a live session keeps in memory, through the real agent wiring (in process, a file store in
 * a temp dir, the loopback fake OpenAI server): after `/compact` only the live part of the
 * conversation is held, while `session/load` still replays the whole history from disk; an idle
 * session leaves memory (and gives its lease back) and its next prompt reads it again, the model
 * seeing the same conversation.
 */
import { COMPACT_INSTRUCTION } from '../../src/context/compaction.js';
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, type SessionNotification } from '@agentclientprotocol/sdk/unstable';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIAgent, type OpenAIAgent } from '../../src/acp/agent.js';
import { createLogger } from '../../src/shared/log.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { chunk, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { testConfig } from '../helpers/in-process.js';
import { waitFor } from '../helpers/spawn-agent.js';

const quiet = createLogger({ level: 'error', write: () => undefined });
/**
 * The idle time of the sessions here, in ms: long enough that a busy machine's pause between two
 * steps of a test does not let a session go before the test looks, short enough to wait for.
 */
const IDLE_MS = '2500';

let server: FakeOpenAI;
const dirs: string[] = [];
const closers: (() => void)[] = [];
beforeAll(async () => {
  server = await startFakeOpenAI((_req, res, body) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const last = String(body.messages.at(-1).content);
    res.write(chunk({ content: last.startsWith('Summarize') ? 'SUMMARY of one and two' : `reply to ${last}` }, 'stop'));
    res.end('data: [DONE]\n\n');
  });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  for (const close of closers.splice(0)) close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function connect(env: Record<string, string> = {}) {
  const stateDir = mkdtempSync(join(tmpdir(), 'openai-acp-memory-'));
  dirs.push(stateDir);
  const agent: OpenAIAgent = createOpenAIAgent({
    config: testConfig({ OPENAI_BASE_URL: server.baseUrl, OPENAI_ACP_TOOLS: 'off', ...env }),
    logger: quiet,
    store: openSessionStore({ stateDir, env: {}, logger: quiet }),
  });
  const updates: SessionNotification[] = [];
  const connection = client()
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .connect(agent.app);
  closers.push(() => connection.close());
  await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request('session/new', { cwd: '/', mcpServers: [] });
  const prompt = (text: string) => connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  return { agent, rpc: connection.agent, updates, sessionId, stateDir, prompt };
}
const sent = () => server.requests.at(-1)!.body.messages.map((m: { role: string; content: unknown }) => `${m.role}: ${m.content}`);

describe('a held session in memory', () => {
  it('holds only what the model is sent after /compact, while session/load replays the whole history', async () => {
    const { agent, rpc, updates, sessionId, prompt } = await connect();
    await prompt('one');
    await prompt('two');
    await prompt('/compact');
    await prompt('three');
    expect(agent.sessions.get(sessionId)!.records.map((r) => r.type)).toEqual(['compact', 'turn']);
    // No system prompt (tools off): the summary as the answer to the request for it, then the prompt.
    expect(sent()).toHaveLength(3);
    expect(sent()[0]).toBe(`user: ${COMPACT_INSTRUCTION}`);
    expect(sent()[1]).toMatch(/^assistant: /);
    expect(sent()[2]).toBe('user: three');
    updates.length = 0;
    await rpc.request('session/load', { sessionId, cwd: '/', mcpServers: [] });
    const replayed = updates
      .filter((n) => n.update.sessionUpdate === 'user_message_chunk')
      .map((n) => (n.update as { content: { text: string } }).content.text);
    expect(replayed).toEqual(['one', 'two', '/compact', 'three']);
    expect(agent.sessions.get(sessionId)!.records.map((r) => r.type)).toEqual(['compact', 'turn']);
  });

  it('lets an idle session go (records and lease) and reads it again at its next prompt', async () => {
    const { agent, sessionId, stateDir, prompt } = await connect({ OPENAI_ACP_SESSION_IDLE_MS: IDLE_MS });
    await prompt('one');
    await prompt('two');
    const lease = join(stateDir, '.leases', `${sessionId}.lease`);
    expect(existsSync(lease)).toBe(true);
    await waitFor(() => agent.sessions.get(sessionId)!.records.length === 0);
    expect(agent.sessions.get(sessionId)!.records).toEqual([]);
    await waitFor(() => !existsSync(lease));
    expect(existsSync(lease)).toBe(false);
    await prompt('three');
    expect(sent().slice(-5)).toEqual(['user: one', 'assistant: reply to one', 'user: two', 'assistant: reply to two', 'user: three']);
    expect(existsSync(lease)).toBe(true);
  });

  it('gives the lease back once idle after /undo took back a turn compacted inside (its records read again later)', async () => {
    const { agent, rpc, sessionId, stateDir, prompt } = await connect({ OPENAI_ACP_SESSION_IDLE_MS: IDLE_MS });
    await prompt('one');
    // A turn compacted inside (the context planner's summary), written as the store writes records.
    const compacted = {
      type: 'turn',
      at: new Date().toISOString(),
      prompt: [{ type: 'text', text: 'two' }],
      assistant: 'done',
      reasoning: '',
      stopReason: 'end_turn',
    };
    appendFileSync(join(stateDir, `${sessionId}.jsonl`), `\n${JSON.stringify({ ...compacted, context: { summary: 'SUMMARY of one', summarizedSteps: 0 } })}`);
    await rpc.request('session/load', { sessionId, cwd: '/', mcpServers: [] });
    expect(agent.sessions.get(sessionId)!.records).toHaveLength(1);
    await prompt('/undo');
    const lease = join(stateDir, '.leases', `${sessionId}.lease`);
    await waitFor(() => !existsSync(lease));
    expect(existsSync(lease)).toBe(false);
    await prompt('three');
    expect(sent().slice(-3)).toEqual(['user: one', 'assistant: reply to one', 'user: three']);
  });

  it('answers -32002 to the next prompt of an idle session another process deleted meanwhile', async () => {
    const { rpc, sessionId, stateDir, prompt } = await connect({ OPENAI_ACP_SESSION_IDLE_MS: IDLE_MS });
    await prompt('one');
    const lease = join(stateDir, '.leases', `${sessionId}.lease`);
    await waitFor(() => !existsSync(lease));
    // Another agent on the same directory deletes it once this one gave it back.
    const other = createOpenAIAgent({
      config: testConfig({ OPENAI_BASE_URL: server.baseUrl, OPENAI_ACP_TOOLS: 'off' }),
      logger: quiet,
      store: openSessionStore({ stateDir, env: {}, logger: quiet }),
    });
    const connection = client().connect(other.app);
    closers.push(() => connection.close());
    await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await connection.agent.request('session/delete', { sessionId });
    await expect(prompt('two')).rejects.toMatchObject({ code: -32002, data: { sessionId } });
    expect((await rpc.request('session/list', {})).sessions).toEqual([]);
  });
});
