/**
 * A user waiting on a model the server is still loading (a stand-in llama-server: `/health` and
 * chat requests answer 503 "Loading model" until it has loaded) is told so once, before the answer:
 * a `notice` to a client with `session.notices`, else a short message of its own that is not part
 * of the saved answer. The wait goes on until the server serves; one that never does ends at
 * OPENAI_TIMEOUT_MS with words naming the server and what it said (also one that went silent while
 * its /health said it was loading); a cancel ends it at once.
 */
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { chunk, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectInProcess } from '../helpers/in-process.js';
import { llamaRecord } from '../helpers/fake-llama-server.js';
import { startFakeOllama } from '../helpers/fake-ollama.js';

/** The real llama-server's answer to /health and to a chat request while it loads (test/fixtures/llamacpp/README.md). */
const LOADING = llamaRecord('chat-loading.json').response.body;
let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A llama-server stand-in that loads its model until `loaded()` says otherwise. */
async function loadingServer(loaded: () => boolean) {
  const seen: string[] = [];
  server = await startFakeOpenAI((req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? '').split('?')[0]!;
    const ready = loaded();
    seen.push(`${path} ${ready ? 'ready' : 'loading'}`);
    if (!ready) return void res.writeHead(503, { 'content-type': 'application/json' }).end(LOADING);
    if (path === '/health') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ content: 'Loaded and answering.' }));
    res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
  });
  return { base: server.baseUrl, seen };
}

const env = (base: string, more: Record<string, string> = {}) => ({
  OPENAI_BASE_URL: base,
  OPENAI_PROVIDER: 'llamacpp',
  OPENAI_CONTEXT_WINDOW: '32768',
  ...more,
});

describe('a model the server is loading', () => {
  it.each([true, false])('is told once before the answer (session.notices %s), and the answer saved is only the answer', async (notices) => {
    // Loaded once the agent asked /health (and heard it was loading).
    const { base, seen } = await loadingServer(() => seen.includes('/health loading'));
    const io = await connectInProcess(env(base));
    await io.agent.request('initialize', { protocolVersion: 1, clientCapabilities: notices ? { session: { notices: {} } } : {} });
    const sessionId = await io.newSession();
    const answer = await io.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(answer.stopReason).toBe('end_turn');
    const updates = io.notifications.filter((n) => n.sessionId === sessionId).map((n) => n.update);
    const told = updates.findIndex((u) =>
      notices ? u.sessionUpdate === 'notice' : u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text.startsWith('Loading'),
    );
    const answered = updates.findIndex(
      (u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text === 'Loaded and answering.',
    );
    expect(told).toBeGreaterThanOrEqual(0);
    expect(told).toBeLessThan(answered);
    expect(updates[told]).toMatchObject(
      notices
        ? { sessionUpdate: 'notice', severity: 'info', title: 'Loading test-model on the server…' }
        : { content: { text: 'Loading test-model on the server…\n\n' } },
    );
    expect(
      updates.filter((u) => u.sessionUpdate === 'notice' || (u.sessionUpdate === 'agent_message_chunk' && JSON.stringify(u).includes('Loading'))),
    ).toHaveLength(1);
    // The server was asked while it was loading, and the chat request was asked again until it served.
    expect(seen).toContain('/health loading');
    expect(seen.filter((s) => s.startsWith('/v1/chat/completions'))).toEqual(
      expect.arrayContaining(['/v1/chat/completions loading', '/v1/chat/completions ready']),
    );
    // The next request carries the answer alone as the assistant's message.
    await io.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    expect(server!.requests.at(-1)!.body.messages.filter((m: { role: string }) => m.role === 'assistant')).toEqual([
      { role: 'assistant', content: 'Loaded and answering.' },
    ]);
    io.close();
  });

  it('is told on Ollama when /api/ps does not list the model yet while the first answer waits', async () => {
    const ollama = await startFakeOllama({ loadMs: 3000 });
    try {
      const io = await connectInProcess({ OPENAI_BASE_URL: ollama.baseUrl, OPENAI_PROVIDER: 'ollama', OPENAI_MODEL: 'qwen3:8b' });
      await io.agent.request('initialize', { protocolVersion: 1, clientCapabilities: { session: { notices: {} } } });
      const sessionId = await io.newSession();
      await io.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
      const updates = io.notifications.filter((n) => n.sessionId === sessionId).map((n) => n.update);
      const told = updates.findIndex((u) => u.sessionUpdate === 'notice' && u.title === 'Loading qwen3:8b on the server…');
      expect(told).toBeGreaterThanOrEqual(0);
      expect(updates[told]).toMatchObject({ description: expect.stringContaining('GET /api/ps does not list it yet') });
      expect(told).toBeLessThan(updates.findIndex((u) => u.sessionUpdate === 'agent_message_chunk'));
      expect(io.text(sessionId)).toContain('Hello from Ollama');
      io.close();
    } finally {
      await ollama.close();
    }
  });

  it('ends at OPENAI_TIMEOUT_MS when the server never finishes loading, naming the server and what it said', async () => {
    const { base } = await loadingServer(() => false);
    const io = await connectInProcess(env(base, { OPENAI_TIMEOUT_MS: '2500' }));
    const sessionId = await io.newSession();
    // A turn that failed with no answer is a JSON-RPC error for the prompt, its words the error's message.
    await expect(io.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(
        new RegExp(`The server at ${base} was still loading the model after \\d+ s: it kept answering HTTP 503 "Loading model"\\.`),
      ),
      data: { kind: 'http', status: 503 },
    });
    expect(io.text(sessionId)).not.toContain('still loading');
    io.close();
  });

  it('says what the server said of its loading when a silent request ends at OPENAI_TIMEOUT_MS', async () => {
    server = await startFakeOpenAI((req: http.IncomingMessage, res: http.ServerResponse) => {
      // /health says it is loading; the chat request is never answered.
      if ((req.url ?? '').startsWith('/health')) res.writeHead(503, { 'content-type': 'application/json' }).end(LOADING);
    });
    const io = await connectInProcess(env(server.baseUrl, { OPENAI_TIMEOUT_MS: '2600' }));
    const sessionId = await io.newSession();
    const failed = await io.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: -32603, data: { kind: 'timeout' } });
    const { message } = failed as { message: string };
    expect(message).toContain('No data from');
    expect(message).toContain(`(The server at ${server.baseUrl} was loading the model when the wait began: GET /health answered 503 "Loading model".)`);
    io.close();
  });

  it('stops waiting when the turn is cancelled', async () => {
    const { base, seen } = await loadingServer(() => false);
    const io = await connectInProcess(env(base, { OPENAI_TIMEOUT_MS: '60000' }));
    const sessionId = await io.newSession();
    const answer = io.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    while (!seen.some((s) => s.startsWith('/v1/chat/completions'))) await new Promise((resolve) => setTimeout(resolve, 20));
    await io.agent.notify('session/cancel', { sessionId });
    expect((await answer).stopReason).toBe('cancelled');
    const asked = seen.length;
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(seen).toHaveLength(asked);
    io.close();
  });
});
