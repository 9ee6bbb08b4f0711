/** Issue 11 items 12–15 and 17: protocol input refused or handled, in process (agent + SDK client). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RequestError } from '@agentclientprotocol/sdk/unstable';
import { chunk, startFakeOpenAI, streamText, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectInProcess, type InProcess } from '../helpers/in-process.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { createLogger } from '../../src/shared/log.js';
import { storablePrompt, UNSTORABLE_TEXT } from '../../src/sessions/storable.js';

let server: FakeOpenAI;
let acp: InProcess | undefined;
const dirs: string[] = [];
beforeAll(async () => void (server = await startFakeOpenAI()));
afterAll(async () => {
  await server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  acp?.close();
  acp = undefined;
  server.handle(streamText(['Hello']));
});

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e as RequestError,
  );
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

describe('cwd (item 12)', () => {
  it.each(['relative/dir', '', '~/x', '/tmp/a\0b'])('refuses %j with -32602 naming cwd, on new, load and resume', async (cwd) => {
    acp = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl });
    for (const method of ['session/new', 'session/load', 'session/resume'] as const) {
      const error = await errorOf(acp.agent.request(method, { sessionId: 'x', cwd, mcpServers: [] } as never));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('"cwd" must be an absolute path');
    }
  });

  it('accepts a directory that does not exist, with a warning', async () => {
    const lines: string[] = [];
    acp = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl }, { logger: createLogger({ level: 'warn', write: (line) => void lines.push(line) }) });
    const created = await acp.agent.request('session/new', { cwd: '/no/such/dir/openai-acp', mcpServers: [] });
    expect(created.sessionId).toBeTruthy();
    expect(lines.join('')).toMatch(/warn: the session directory does not exist.*no\/such\/dir/);
  });
});

describe('prompt blocks', () => {
  it('refuses an image whose data is not base64, or whose mimeType is not an image, naming the block (item 14)', async () => {
    acp = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl });
    const sessionId = await acp.newSession();
    const before = server.requests.length;
    const bad = await errorOf(
      acp.agent.request('session/prompt', {
        sessionId,
        prompt: [
          { type: 'text', text: 'see' },
          { type: 'image', mimeType: 'image/png', data: 'not base64!!' },
        ],
      }),
    );
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain('prompt[1] (image)');
    const wrongType = await errorOf(acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'image', mimeType: 'text/html', data: PNG }] }));
    expect(wrongType.code).toBe(-32602);
    expect(wrongType.message).toContain('prompt[0] (image) has mimeType "text/html"');
    expect(server.requests.length).toBe(before);
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'image', mimeType: 'image/png', data: PNG }] });
    expect(server.requests.length).toBe(before + 1);
  });

  it('answers an empty prompt end_turn with nothing sent upstream (item 15)', async () => {
    acp = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl });
    const sessionId = await acp.newSession();
    const before = server.requests.length;
    expect(await acp.agent.request('session/prompt', { sessionId, prompt: [] })).toEqual({ stopReason: 'end_turn' });
    expect(server.requests.length).toBe(before);
  });

  it('answers and saves a prompt with a 10,000-deep _meta, without that part (item 13)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openai-acp-deep-'));
    dirs.push(dir);
    const logger = createLogger({ level: 'error', write: () => undefined });
    const store = openSessionStore({ stateDir: dir, env: {}, logger });
    acp = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl }, { store });
    const sessionId = await acp.newSession();
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { deep };
    const answer = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'deep one', _meta: { deep } }] });
    expect(answer.stopReason).toBe('end_turn');
    const stored = await (await store).load(sessionId);
    const turn = stored?.records.find((r) => r.type === 'turn');
    expect(turn).toMatchObject({ prompt: [{ type: 'text', text: 'deep one' }], assistant: 'Hello' });
  });

  it('storablePrompt keeps what serialises and replaces what cannot', () => {
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    const ok = { type: 'text' as const, text: 'a' };
    const out = storablePrompt([ok, { type: 'text', text: 'b', _meta: cycle }, { type: 'text', text: cycle as never }]);
    expect(out[0]).toBe(ok);
    expect(out[1]).toEqual({ type: 'text', text: 'b' });
    expect(out[2]).toEqual({ type: 'text', text: UNSTORABLE_TEXT });
  });
});

describe('an error chunk with usage after a finish reason (item 17)', () => {
  it('shows the error and still reports usage, usage_update and max_tokens', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'partial' }));
      res.write(chunk({}, 'length'));
      const failure = { error: { message: 'upstream hiccup', code: 'server_error' }, usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 } };
      res.end(`data: ${JSON.stringify(failure)}\n\n`);
    });
    acp = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl, OPENAI_CONTEXT_WINDOW: '8000' });
    const sessionId = await acp.newSession();
    const answer = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(acp.text(sessionId)).toContain('upstream hiccup');
    expect(answer.stopReason).toBe('max_tokens');
    expect(answer.usage).toMatchObject({ inputTokens: 11, outputTokens: 5, totalTokens: 16 });
    // Besides the meter sent after session/new (used 0), the request's own.
    const usageUpdates = acp.notifications.filter(
      (n) => n.sessionId === sessionId && n.update.sessionUpdate === 'usage_update' && (n.update as { used: number }).used > 0,
    );
    expect(usageUpdates).toHaveLength(1);
    expect(usageUpdates[0]!.update).toMatchObject({ used: 16, size: 8000 });
  });
});
