/**
 * The context window a self-hosted server reports (Ollama /api/ps and /api/show, LM Studio
 * /api/v0/models, llama.cpp /props), against a loopback server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  OLLAMA_DEFAULT_CONTEXT,
  parseLlamaCppProps,
  parseLmStudioModels,
  parseOllamaShow,
  requestedNumCtx,
  serverWindowLookup,
} from '../../src/endpoints/server-context.js';
import { parseOllamaPs } from '../../src/endpoints/ollama-ps.js';
import { createEndpoint } from '../../src/endpoints/endpoint.js';
import { createLogger } from '../../src/shared/log.js';
import { chunk } from '../helpers/fake-openai.js';

/** Shapes from Ollama 0.6's `/api/show` (trimmed to the fields read). */
const SHOW_TRAINED = {
  model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960, 'qwen3.embedding_length': 4096 },
  parameters: 'temperature 0.6\ntop_k 20',
};
const SHOW_NUM_CTX = { ...SHOW_TRAINED, parameters: 'num_ctx 16384\nstop "<|im_end|>"' };
/** Ollama's `/api/ps` as its API docs show it (docs/api.md "List Running Models"), with `context_length`. */
const PS_LOADED = {
  models: [
    {
      name: 'qwen3:8b',
      model: 'qwen3:8b',
      size: 6591830464,
      digest: 'c6eb396dbd59',
      details: { format: 'gguf', family: 'qwen3', parameter_size: '8.2B', quantization_level: 'Q4_K_M' },
      expires_at: '2025-10-17T16:47:07.93355-07:00',
      size_vram: 5333539264,
      context_length: 4096,
    },
  ],
};
/** llama-server's `/props` (trimmed): the per-slot window in default_generation_settings. */
const PROPS = { default_generation_settings: { n_ctx: 8192, params: { n_predict: -1 } }, total_slots: 1, model_path: 'qwen3-8b-q4_k_m.gguf' };

describe('parseOllamaShow', () => {
  it('reads num_ctx of parameters and <arch>.context_length', () => {
    expect(parseOllamaShow(SHOW_NUM_CTX)).toEqual({ numCtx: 16384, trained: 40960 });
    expect(parseOllamaShow(SHOW_TRAINED)).toEqual({ trained: 40960 });
    expect(parseOllamaShow({ model_info: {} })).toEqual({});
    expect(parseOllamaShow('nope')).toBeUndefined();
  });

  it('reads options.num_ctx of the extra body', () => {
    expect(requestedNumCtx({ options: { num_ctx: 8192 } })).toBe(8192);
    expect(requestedNumCtx({ options: { num_ctx: '8192' } })).toBeUndefined();
    expect(requestedNumCtx(undefined)).toBeUndefined();
  });
});

describe('parseOllamaPs', () => {
  it('finds the model by name, with :latest implied, and reads its window and memory', () => {
    expect(parseOllamaPs(PS_LOADED, 'qwen3:8b')).toEqual({ contextLength: 4096, size: 6591830464, sizeVram: 5333539264 });
    const latest = { models: [{ name: 'llama3.2:latest', model: 'llama3.2:latest', size: 10, size_vram: 0, context_length: 32768 }] };
    expect(parseOllamaPs(latest, 'llama3.2')).toEqual({ contextLength: 32768, size: 10, sizeVram: 0 });
  });
  it('says undefined for a model not loaded or another shape, and leaves out what an older Ollama lacks', () => {
    expect(parseOllamaPs(PS_LOADED, 'qwen3:14b')).toBeUndefined();
    expect(parseOllamaPs({ models: [] }, 'qwen3:8b')).toBeUndefined();
    expect(parseOllamaPs({ data: [] }, 'qwen3:8b')).toBeUndefined();
    expect(parseOllamaPs(null, 'qwen3:8b')).toBeUndefined();
    expect(parseOllamaPs({ models: [{ name: 'qwen3:8b', size: 5 }] }, 'qwen3:8b')).toEqual({ size: 5 });
    expect(parseOllamaPs({ models: [{ name: 'qwen3:8b', context_length: 0, size: -1 }] }, 'qwen3:8b')).toEqual({});
  });
});

describe('parseLlamaCppProps and parseLmStudioModels', () => {
  it('read the runtime window', () => {
    expect(parseLlamaCppProps(PROPS)).toBe(8192);
    expect(parseLlamaCppProps({ n_ctx: 4096 })).toBe(4096);
    expect(parseLlamaCppProps({ default_generation_settings: {} })).toBeUndefined();
    expect(parseLlamaCppProps('x')).toBeUndefined();
    const lm = {
      object: 'list',
      data: [
        { id: 'qwen3-8b', state: 'loaded', loaded_context_length: 4096, max_context_length: 32768 },
        { id: 'b', state: 'not-loaded', max_context_length: 8192 },
      ],
    };
    expect(parseLmStudioModels(lm, 'qwen3-8b')).toEqual({ runtime: 4096, trained: 32768 });
    expect(parseLmStudioModels(lm, 'b')).toEqual({ trained: 8192 });
    expect(parseLmStudioModels(lm, 'c')).toEqual({});
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

/** A loopback server answering `routes[METHOD path]` with JSON (a function: its result; 404 otherwise); chat requests stream "Hi". */
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
      } else if (key in routes) {
        const route = routes[key];
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(typeof route === 'function' ? route() : route));
      } else res.writeHead(404).end('404 page not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const state = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    asked,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  servers.push(state);
  return state;
}

const paths = (server: Server) => server.asked.map((a) => `${a.method} ${a.url}`);

describe('serverWindowLookup', () => {
  it('reads Ollama /api/ps of a loaded model (runtime) and /api/show (trained), with the endpoint key, once', async () => {
    const server = await serve({ 'GET /api/ps': PS_LOADED, 'POST /api/show': SHOW_TRAINED });
    const lookup = serverWindowLookup({ query: 'ollama-ps', baseUrl: server.baseUrl, headers: { authorization: 'Bearer k-123' } });
    expect(await Promise.all([lookup('qwen3:8b'), lookup('qwen3:8b')])).toEqual([
      { runtime: 4096, trained: 40960 },
      { runtime: 4096, trained: 40960 },
    ]);
    expect(await lookup('qwen3:8b')).toEqual({ runtime: 4096, trained: 40960 });
    expect(paths(server).sort()).toEqual(['GET /api/ps', 'POST /api/show']);
    expect(server.asked.every((a) => a.auth === 'Bearer k-123')).toBe(true);
    expect(JSON.parse(server.asked.find((a) => a.url === '/api/show')!.body)).toEqual({ model: 'qwen3:8b' });
  });

  it('loads an Ollama model that is not loaded yet, then reads /api/ps again', async () => {
    let loaded = false;
    const server = await serve({
      'GET /api/ps': () => (loaded ? PS_LOADED : { models: [] }),
      'POST /api/show': SHOW_TRAINED,
      'POST /api/generate': () => ((loaded = true), { model: 'qwen3:8b', response: '', done: true, done_reason: 'load' }),
    });
    const lookup = serverWindowLookup({ query: 'ollama-ps', baseUrl: server.baseUrl, headers: {} });
    expect(await lookup('qwen3:8b')).toEqual({ runtime: 4096, trained: 40960 });
    expect(paths(server).slice(2)).toEqual(['POST /api/generate', 'GET /api/ps']);
    expect(JSON.parse(server.asked.find((a) => a.url === '/api/generate')!.body)).toEqual({ model: 'qwen3:8b' });
  });

  it("falls back to a Modelfile's num_ctx, else Ollama's default, when /api/ps does not say", async () => {
    const older = await serve({ 'GET /api/ps': { models: [{ name: 'qwen3:8b', size: 1 }] }, 'POST /api/show': SHOW_NUM_CTX });
    expect(await serverWindowLookup({ query: 'ollama-ps', baseUrl: older.baseUrl, headers: {} })('qwen3:8b')).toEqual({ runtime: 16384, trained: 40960 });
    const failing = await serve({ 'GET /api/ps': { models: [] }, 'POST /api/show': SHOW_TRAINED });
    expect(await serverWindowLookup({ query: 'ollama-ps', baseUrl: failing.baseUrl, headers: {} })('qwen3:8b')).toEqual({
      runtime: OLLAMA_DEFAULT_CONTEXT,
      trained: 40960,
      assumed: true,
    });
    const small = await serve({ 'POST /api/show': { model_info: { 'x.context_length': 2048 } } });
    expect(await serverWindowLookup({ query: 'ollama-ps', baseUrl: small.baseUrl, headers: {} })('tiny')).toEqual({
      runtime: 2048,
      trained: 2048,
      assumed: true,
    });
  });

  it('takes options.num_ctx of the extra body over what the server says', async () => {
    const server = await serve({ 'GET /api/ps': PS_LOADED, 'POST /api/show': SHOW_TRAINED });
    const lookup = serverWindowLookup({ query: 'ollama-ps', baseUrl: server.baseUrl, headers: {}, extraBody: { options: { num_ctx: 32768 } } });
    expect(await lookup('qwen3:8b')).toEqual({ runtime: 32768, trained: 40960 });
    expect(paths(server)).not.toContain('POST /api/generate');
  });

  it('reads llama.cpp /props and LM Studio /api/v0/models', async () => {
    const llama = await serve({ 'GET /props': PROPS });
    expect(await serverWindowLookup({ query: 'llamacpp-props', baseUrl: llama.baseUrl, headers: {} })('any')).toEqual({ runtime: 8192, slots: 1 });
    const lm = await serve({
      'GET /api/v0/models': { object: 'list', data: [{ id: 'qwen3-8b', type: 'llm', loaded_context_length: 8192, max_context_length: 32768 }] },
    });
    const lookup = serverWindowLookup({ query: 'lmstudio-models', baseUrl: lm.baseUrl, headers: {} });
    expect(await lookup('qwen3-8b')).toEqual({ runtime: 8192, trained: 32768 });
    expect(await lookup('other')).toEqual({});
  });

  it('asks nothing without a probe, and gives up on a silent server within its bound', async () => {
    const server = await serve({});
    expect(await serverWindowLookup({ query: undefined, baseUrl: server.baseUrl, headers: {} })('m')).toEqual({});
    expect(server.asked).toHaveLength(0);
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    // A server that never answers: only the 200 ms bound can end the look-up.
    const lookup = serverWindowLookup({
      query: 'llamacpp-props',
      baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`,
      headers: {},
      timeoutMs: 200,
    });
    expect(await lookup('m')).toEqual({});
    silent.closeAllConnections();
    silent.close();
  });

  it('asks again after a failure or an assumed window, once a minute has passed', async () => {
    const server = await serve({});
    let now = 0;
    const lookup = serverWindowLookup({ query: 'llamacpp-props', baseUrl: server.baseUrl, headers: {} }, () => now);
    expect(await lookup('m')).toEqual({});
    expect(await lookup('m')).toEqual({});
    expect(server.asked).toHaveLength(1);
    now = 61_000;
    await lookup('m');
    expect(server.asked).toHaveLength(2);
  });
});

describe('an Ollama endpoint', () => {
  it('exposes the lookup through createEndpoint, chosen by the profile (on /v1: OPENAI_ACP_OLLAMA_NUM_CTX=0)', async () => {
    const server = await serve({ 'GET /api/ps': PS_LOADED, 'POST /api/show': SHOW_TRAINED });
    const logger = createLogger({ level: 'error', write: () => undefined });
    const endpoint = createEndpoint(
      {
        provider: 'ollama',
        baseUrl: server.baseUrl,
        chatCompletionsUrl: `${server.baseUrl}/chat/completions`,
        apiKey: undefined,
        headers: {},
        query: undefined,
        model: 'qwen3:8b',
        models: undefined,
        maxRetries: 0,
        timeoutMs: 5000,
        ollamaNumCtx: 0,
      },
      { logger },
    );
    expect(await endpoint.serverWindowOf?.('qwen3:8b')).toEqual({ runtime: 4096, trained: 40960 });
  });

  it('on the native API the runtime window is the one asked for, capped by the trained one, and nothing is loaded first', async () => {
    const server = await serve({ 'GET /api/ps': PS_LOADED, 'POST /api/show': SHOW_TRAINED });
    const logger = createLogger({ level: 'error', write: () => undefined });
    const settings = {
      provider: 'ollama' as const,
      baseUrl: server.baseUrl,
      chatCompletionsUrl: `${server.baseUrl}/chat/completions`,
      apiKey: undefined,
      headers: {},
      query: undefined,
      model: 'qwen3:8b',
      models: undefined,
      maxRetries: 0,
      timeoutMs: 5000,
    };
    expect(await createEndpoint(settings, { logger }).serverWindowOf?.('qwen3:8b')).toEqual({ runtime: 32768, trained: 40960 });
    expect(await createEndpoint({ ...settings, ollamaNumCtx: 65536 }, { logger }).serverWindowOf?.('qwen3:8b')).toEqual({ runtime: 40960, trained: 40960 });
    expect(server.asked.some((asked) => asked.url.includes('/api/generate') || asked.url.includes('/api/ps'))).toBe(false);
  });
});
