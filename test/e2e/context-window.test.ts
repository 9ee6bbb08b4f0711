/**
 * Knowing the window, end to end: the built CLI against a loopback server that speaks Ollama's
 * native `/api/ps`, `/api/show` and `/api/generate` (or llama.cpp's `/props`) beside the OpenAI
 * API. The meter after `session/new` and `session/load` carries the runtime window, the
 * small-window notice comes once, and an overflow answer teaches the window.
 */
import type http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeServerPool, streamText, type ChatHandler, type FakeOpenAI } from '../helpers/fake-openai.js';
import { spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';

const startServer = fakeServerPool();
const agents: AgentProcess[] = [];
let stateDir: string;
beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'openai-acp-e2e-window-'));
});
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
  rmSync(stateDir, { recursive: true, force: true });
});

const json = (res: http.ServerResponse, body: unknown, status = 200): void =>
  void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const text = (t: string) => [{ type: 'text', text: t }];
const meters = (agent: AgentProcess, sessionId: string) => agent.updates(sessionId).filter((u) => u.sessionUpdate === 'usage_update');

/** Routes native paths to `native`, chat requests to the current `chat` handler. */
function dispatcher(native: Record<string, (res: http.ServerResponse, body: any) => void>, chat: { handler: ChatHandler }): ChatHandler {
  const handler: ChatHandler = (req, res, body) => {
    const route = native[`${req.method} ${req.url}`];
    if (route) return route(res, body);
    if (req.url?.endsWith('/chat/completions')) return chat.handler(req, res, body);
    res.writeHead(404).end('404 page not found');
  };
  handler.gets = new Set(
    Object.keys(native)
      .filter((key) => key.startsWith('GET '))
      .map((key) => key.slice(4)),
  );
  return handler;
}

function launch(server: FakeOpenAI, env: Record<string, string>) {
  const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_ACP_STATE_DIR: stateDir, OPENAI_ACP_TOOLS: 'off', OPENAI_MAX_RETRIES: '0', ...env });
  agents.push(agent);
  return agent;
}

describe('an Ollama server', () => {
  it('is asked for the window it loads the model with; the meter, the notice and an overflow follow it', async () => {
    let loadedWith: number | undefined;
    const chat = { handler: streamText(['Hi'], { prompt_tokens: 900, completion_tokens: 100, total_tokens: 1000 }) };
    const server = await startServer();
    server.handle(
      dispatcher(
        {
          'GET /api/ps': (res) =>
            json(res, {
              models: loadedWith ? [{ name: 'qwen3:8b', model: 'qwen3:8b', size: 6591830464, size_vram: 6591830464, context_length: loadedWith }] : [],
            }),
          'POST /api/show': (res) =>
            json(res, { model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 262144 }, parameters: 'temperature 0.6' }),
          'POST /api/generate': (res, body) => (
            (loadedWith = body.model === 'qwen3:8b' ? 4096 : undefined), json(res, { model: body.model, response: '', done: true, done_reason: 'load' })
          ),
        },
        chat,
      ),
    );
    server.setModels({ object: 'list', data: [{ id: 'qwen3:8b', object: 'model', owned_by: 'library' }] });
    const agent = launch(server, { OPENAI_PROVIDER: 'ollama', OPENAI_MODEL: 'qwen3:8b', OPENAI_ACP_OLLAMA_NUM_CTX: '0' });
    const sessionId = await agent.start();

    // The model was not loaded: it is loaded, then /api/ps says 4096 — not the trained 262,144.
    await waitFor(() => meters(agent, sessionId).length > 0, 10_000, 'the meter after session/new');
    expect(meters(agent, sessionId)).toEqual([{ sessionUpdate: 'usage_update', used: 0, size: 4096 }]);
    expect(server.requests.some((r) => r.url === '/api/generate' && r.body.model === 'qwen3:8b')).toBe(true);

    expect((await agent.request('session/prompt', { sessionId, prompt: text('one') })).result.stopReason).toBe('end_turn');
    // The agent's own notice is text of its own, never a thought (acpx would show it as [thinking]).
    expect(agent.thoughts(sessionId)).toBe('');
    expect(agent.text(sessionId)).toContain('The context window of qwen3:8b is 4,096 tokens');
    expect(agent.text(sessionId)).toContain('OLLAMA_CONTEXT_LENGTH=32768 ollama serve');
    expect(agent.text(sessionId)).toContain('PARAMETER num_ctx');
    expect(meters(agent, sessionId).at(-1)).toEqual({ sessionUpdate: 'usage_update', used: 1000, size: 4096 });

    // The server was restarted with a smaller window: its overflow answer says so.
    chat.handler = (_req, res) =>
      json(
        res,
        {
          error: {
            code: 400,
            message: 'request (5162 tokens) exceeds the available context size (3072 tokens), try increasing it',
            type: 'exceed_context_size_error',
            n_prompt_tokens: 5162,
            n_ctx: 3072,
          },
        },
        400,
      );
    const failed = await agent.request('session/prompt', { sessionId, prompt: text('two') });
    expect(failed.error).toMatchObject({ code: -32603, data: { kind: 'http', status: 400 } });
    expect(failed.error.message).toContain(
      "The conversation no longer fits the model's context window (3,072 tokens). Fix: restart Ollama with a larger " +
        'window (`OLLAMA_CONTEXT_LENGTH=32768 ollama serve`)',
    );

    chat.handler = streamText(['Ok'], { prompt_tokens: 1200, completion_tokens: 20, total_tokens: 1220 });
    expect((await agent.request('session/prompt', { sessionId, prompt: text('three') })).result.stopReason).toBe('end_turn');
    expect(meters(agent, sessionId).at(-1)).toEqual({ sessionUpdate: 'usage_update', used: 1220, size: 3072 });
    // Told once per session.
    expect(agent.text(sessionId).split('The context window of').length - 1).toBe(1);
    agent.kill();
    await agent.exited;

    // A new process loads the session: the meter comes with the runtime window and the conversation's size.
    const second = launch(server, { OPENAI_PROVIDER: 'ollama', OPENAI_MODEL: 'qwen3:8b', OPENAI_ACP_OLLAMA_NUM_CTX: '0' });
    await second.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect((await second.request('session/load', { sessionId, cwd: process.cwd(), mcpServers: [] })).error).toBeUndefined();
    await waitFor(() => meters(second, sessionId).length > 0, 10_000, 'the meter after session/load');
    const [meter] = meters(second, sessionId);
    expect(meter.size).toBe(4096);
    expect(meter.used).toBeGreaterThan(0);
  });
});

describe('a llama.cpp server', () => {
  it("reports its per-slot window in /props, which wins over the model's trained window in /models", async () => {
    const server = await startServer();
    server.handle(
      dispatcher({ 'GET /props': (res) => json(res, { default_generation_settings: { n_ctx: 8192 }, total_slots: 1 }) }, { handler: streamText(['Hi']) }),
    );
    server.setModels({ object: 'list', data: [{ id: 'qwen3-8b.gguf', object: 'model', meta: { n_ctx_train: 131072 } }] });
    const agent = launch(server, { OPENAI_PROVIDER: 'llamacpp', OPENAI_MODEL: 'qwen3-8b.gguf' });
    const sessionId = await agent.start();
    await waitFor(() => meters(agent, sessionId).length > 0, 10_000, 'the meter after session/new');
    expect(meters(agent, sessionId)).toEqual([{ sessionUpdate: 'usage_update', used: 0, size: 8192 }]);
    await agent.request('session/prompt', { sessionId, prompt: text('hi') });
    expect(agent.text(sessionId)).toContain('-c 32768');
  });

  it('is overruled by OPENAI_CONTEXT_WINDOW, its /props read for the slots only', async () => {
    const server = await startServer();
    server.handle(dispatcher({ 'GET /props': (res) => json(res, { default_generation_settings: { n_ctx: 8192 } }) }, { handler: streamText(['Hi']) }));
    const agent = launch(server, { OPENAI_PROVIDER: 'llamacpp', OPENAI_MODEL: 'm', OPENAI_CONTEXT_WINDOW: '32768' });
    const sessionId = await agent.start();
    await waitFor(() => meters(agent, sessionId).length > 0, 10_000, 'the meter after session/new');
    expect(meters(agent, sessionId)).toEqual([{ sessionUpdate: 'usage_update', used: 0, size: 32768 }]);
    await agent.request('session/prompt', { sessionId, prompt: text('hi') });
    expect(agent.thoughts(sessionId)).toBe('');
    // Asked once, at the first request, for its slots (`total_slots`: none here); the window stays the setting's.
    expect(server.requests.filter((r) => r.url === '/props').length).toBeLessThanOrEqual(1);
    expect(meters(agent, sessionId).every((m) => m.size === 32768)).toBe(true);
  });
});

describe('a model change', () => {
  it("sends the meter with the new model's window", async () => {
    const server = await startServer();
    server.setModels({
      object: 'list',
      data: [
        { id: 'big', context_length: 131072 },
        { id: 'small', context_length: 8192 },
      ],
    });
    const agent = launch(server, { OPENAI_MODEL: 'big' });
    const sessionId = await agent.start();
    await waitFor(() => meters(agent, sessionId).length > 0, 10_000, 'the meter after session/new');
    expect(meters(agent, sessionId)).toEqual([{ sessionUpdate: 'usage_update', used: 0, size: 131072 }]);
    expect((await agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'small' })).error).toBeUndefined();
    await waitFor(() => meters(agent, sessionId).length > 1, 10_000, 'the meter after the model change');
    expect(meters(agent, sessionId)[1]).toEqual({ sessionUpdate: 'usage_update', used: 0, size: 8192 });
  });
});
