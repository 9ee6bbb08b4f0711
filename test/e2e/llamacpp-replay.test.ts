/**
 * The built CLI against a replay of the real llama-server recorded in test/fixtures/llamacpp/
 * (a `node:http` server answering with the recorded bodies and closing the connection after each
 * streamed answer, as llama-server 0.7.0 does), on a port that is not 8080 and with only
 * OPENAI_BASE_URL set, as a user starts it: the server is recognised by its answers, the first
 * meter is its runtime window (4,096, not the trained 32,768), each request carries the answer's
 * cap, and the request after a streamed answer goes through on a new connection without a word
 * about the closed one.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';
import { startFakeLlama, type FakeLlama } from '../helpers/fake-llama-server.js';

let agent: AgentProcess | undefined;
let fake: FakeLlama | undefined;
const dirs: string[] = [];
afterEach(async () => {
  agent?.kill();
  await fake?.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'openai-acp-llamacpp-')));
  dirs.push(dir);
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'math.js'), 'export function add(a, b) {\n  return a - b;\n}\n');
  return dir;
}

describe('a real llama-server, replayed', () => {
  it('is known by its answers: the first meter is its runtime window, and a tool turn crosses the closed connection unseen', async () => {
    fake = await startFakeLlama({ templateTakesTools: true });
    expect(new URL(fake.baseUrl).port).not.toBe('8080');
    const cwd = workspace();
    const state = mkdtempSync(join(tmpdir(), 'openai-acp-llamacpp-state-'));
    dirs.push(state);
    agent = spawnAgent({ OPENAI_BASE_URL: fake.baseUrl, OPENAI_ACP_STATE_DIR: state });
    const sessionId = await agent.start(cwd);
    const meters = () => agent!.updates(sessionId).filter((u) => u.sessionUpdate === 'usage_update');
    await waitFor(() => meters().length > 0, 10_000, 'the meter after session/new');
    expect(meters()[0]).toEqual({ sessionUpdate: 'usage_update', used: 0, size: 4096 });
    expect(agent.stderr()).toMatch(/recognised the server by its answers.*llamacpp/);

    const answer = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'What does add return?' }] });
    expect(answer.result.stopReason).toBe('end_turn');
    const chats = fake.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats).toHaveLength(2);
    // The recorded tool call was run, and its result went back.
    expect(chats[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('return a - b') });
    // Each request carried the room the plan left the answer in a 4,096-token window.
    expect(chats.map((r) => r.body.max_tokens)).toEqual([1024, 1024]);
    // The server closed the first stream's connection: the second request went on a new one, unseen.
    expect(chats[0]!.socket).not.toBe(chats[1]!.socket);
    expect(fake.lost()).toBeGreaterThanOrEqual(1);
    const words = agent.text(sessionId);
    expect(words).toContain('Hello! I am a tiny synthetic test model.');
    expect(words).not.toMatch(/ECONNRESET|socket hang up|Cannot connect|retry/i);
    // Not even a retry of the chat client's policy: the transport sent it again at once.
    expect(agent.stderr()).not.toMatch(/request failed, retrying/);
    expect(agent.text(sessionId)).toContain('4,096 tokens (the window the server runs the model with)');
  }, 30_000);

  it('a Qwen3-Coder call after prose, left in the content by the real server, is read and run; the result invented after it is not shown', async () => {
    // Recorded: llama-server's Hermes parser leaves `<function=…>` after a sentence in `content` (finish_reason stop).
    fake = await startFakeLlama({ templateTakesTools: true, toolCallRecord: 'stream-xml-call-after-prose-hermes.json' });
    const cwd = workspace();
    agent = spawnAgent({ OPENAI_BASE_URL: fake.baseUrl, OPENAI_ACP_STATE_DIR: 'off' });
    const sessionId = await agent.start(cwd);
    const answer = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'What does add return?' }] });
    expect(answer.result.stopReason).toBe('end_turn');
    const chats = fake.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats).toHaveLength(2);
    expect(chats[1]!.body.messages.at(-2)).toMatchObject({
      role: 'assistant',
      content: "I'll read the file first.\n\n",
      tool_calls: [{ function: { name: 'read_file', arguments: '{"path":"src/math.js"}' } }],
    });
    expect(chats[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('return a - b') });
    const words = agent.text(sessionId);
    expect(words).toContain("I'll read the file first.");
    expect(words).toContain('Hello! I am a tiny synthetic test model.');
    expect(words).not.toContain('which returns a + b');
    expect(words).not.toContain('<function=');
  }, 30_000);
});
