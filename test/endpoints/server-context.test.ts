/**
 * The context window a self-hosted server reports (Ollama /api/show, LM Studio /api/v0/models),
 * against a loopback server; and a prompt through the agent that gets usage_update and trimming
 * from it without OPENAI_CONTEXT_WINDOW.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseOllamaShow, requestedNumCtx, serverContextLookup } from '../../src/endpoints/server-context.js';
import { PROVIDER_PROFILES } from '../../src/config/provider-profiles.js';
import { createEndpoint } from '../../src/endpoints/endpoint.js';
import { createLogger } from '../../src/log.js';
import { chunk } from '../helpers/fake-openai.js';

/** Shapes from Ollama 0.6's `/api/show` (trimmed to the fields read). */
const SHOW_TRAINED = { model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960, 'qwen3.embedding_length': 4096 }, parameters: 'temperature 0.6\ntop_k 20' };
const SHOW_NUM_CTX = { ...SHOW_TRAINED, parameters: 'num_ctx 16384\nstop "<|im_end|>"' };

describe('parseOllamaShow', () => {
  it('prefers num_ctx of parameters, else <arch>.context_length', () => {
    expect(parseOllamaShow(SHOW_NUM_CTX)).toBe(16384);
    expect(parseOllamaShow(SHOW_TRAINED)).toBe(40960);
    expect(parseOllamaShow({ model_info: {} })).toBeUndefined();
    expect(parseOllamaShow('nope')).toBeUndefined();
  });

  it('reads options.num_ctx of the extra body', () => {
    expect(requestedNumCtx({ options: { num_ctx: 8192 } })).toBe(8192);
    expect(requestedNumCtx({ options: { num_ctx: '8192' } })).toBeUndefined();
    expect(requestedNumCtx(undefined)).toBeUndefined();
  });
});

interface Server {
  baseUrl: string;
  asked: { method: string; url: string; body: string; auth: string | undefined }[];
  close(): Promise<void>;
}
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A loopback server answering `routes[METHOD path]` with JSON (404 otherwise); chat requests stream "Hi". */
async function serve(routes: Record<string, unknown>): Promise<Server> {
  const asked: Server['asked'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      asked.push({ method: req.method ?? '', url: req.url ?? '', body, auth: req.headers.authorization });
      const key = `${req.method} ${req.url}`;
      if (req.url?.endsWith('/chat/completions')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`${chunk({ content: 'Hi' })}${chunk({}, 'stop', { prompt_tokens: 900, completion_tokens: 100, total_tokens: 1000 })}data: [DONE]\n\n`);
      } else if (key in routes) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(routes[key]));
      else res.writeHead(404).end('404 page not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const state = { baseUrl: `http://127.0.0.1:${port}/v1`, asked, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
  servers.push(state);
  return state;
}

describe('serverContextLookup', () => {
  it('asks Ollama /api/show once per model, with the endpoint\'s key, and caches the answer', async () => {
    const server = await serve({ 'POST /api/show': SHOW_NUM_CTX });
    const lookup = serverContextLookup({ query: PROVIDER_PROFILES.ollama.contextWindowQuery, baseUrl: server.baseUrl, headers: { authorization: 'Bearer k-123' } });
    expect(await Promise.all([lookup('qwen3:8b'), lookup('qwen3:8b')])).toEqual([16384, 16384]);
    expect(await lookup('qwen3:8b')).toBe(16384);
    expect(server.asked).toHaveLength(1);
    expect(server.asked[0]).toMatchObject({ method: 'POST', url: '/api/show', auth: 'Bearer k-123' });
    expect(JSON.parse(server.asked[0]!.body)).toEqual({ model: 'qwen3:8b' });
  });

  it('takes options.num_ctx of the extra body without asking', async () => {
    const server = await serve({ 'POST /api/show': SHOW_TRAINED });
    const lookup = serverContextLookup({ query: PROVIDER_PROFILES.ollama.contextWindowQuery, baseUrl: server.baseUrl, headers: {}, extraBody: { options: { num_ctx: 32768 } } });
    expect(await lookup('qwen3:8b')).toBe(32768);
    expect(server.asked).toHaveLength(0);
  });

  it('reads LM Studio /api/v0/models', async () => {
    const server = await serve({ 'GET /api/v0/models': { object: 'list', data: [{ id: 'qwen3-8b', type: 'llm', max_context_length: 32768 }] } });
    const lookup = serverContextLookup({ query: PROVIDER_PROFILES.lmstudio.contextWindowQuery, baseUrl: server.baseUrl, headers: {} });
    expect(await lookup('qwen3-8b')).toBe(32768);
    expect(await lookup('other')).toBeUndefined();
  });

  it('asks nothing of other providers, and gives up on a silent server within its bound', async () => {
    const server = await serve({});
    expect(await serverContextLookup({ query: PROVIDER_PROFILES.vllm.contextWindowQuery, baseUrl: server.baseUrl, headers: {} })('m')).toBeUndefined();
    expect(server.asked).toHaveLength(0);
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const started = Date.now();
    const lookup = serverContextLookup({ query: PROVIDER_PROFILES.ollama.contextWindowQuery, baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`, headers: {}, timeoutMs: 200 });
    expect(await lookup('m')).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2000);
    silent.closeAllConnections();
    silent.close();
  });

  it('asks again after a failure, once a minute has passed', async () => {
    const server = await serve({});
    let now = 0;
    const lookup = serverContextLookup({ query: PROVIDER_PROFILES.ollama.contextWindowQuery, baseUrl: server.baseUrl, headers: {} }, () => now);
    expect(await lookup('m')).toBeUndefined();
    expect(await lookup('m')).toBeUndefined();
    expect(server.asked).toHaveLength(1);
    now = 61_000;
    await lookup('m');
    expect(server.asked).toHaveLength(2);
  });
});

describe('an Ollama endpoint', () => {
  it('exposes the lookup through createEndpoint', async () => {
    const server = await serve({ 'POST /api/show': SHOW_TRAINED });
    const logger = createLogger({ level: 'error', write: () => undefined });
    const endpoint = createEndpoint(
      { provider: 'ollama', baseUrl: server.baseUrl, chatCompletionsUrl: `${server.baseUrl}/chat/completions`, apiKey: undefined, headers: {}, query: undefined, model: 'qwen3:8b', models: undefined, maxRetries: 0, timeoutMs: 5000 },
      { logger },
    );
    expect(await endpoint.contextWindowOf?.('qwen3:8b')).toBe(40960);
  });
});
