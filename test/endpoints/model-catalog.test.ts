/**
 * GET /models: every supported shape served by a loopback server, failures that give [], the
 * catalog's sharing and fallbacks, and what session/new offers (also when /models is slow).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchModels, ModelCatalog, modelsUrl, parseModels } from '../../src/endpoints/model-catalog.js';
import { connectInProcess } from '../helpers/in-process.js';
import { startFakeOpenAI, streamText } from '../helpers/fake-openai.js';
import { llamaRecord } from '../helpers/fake-llama-server.js';

/** `/models` bodies by the first path segment of the base URL. */
const SHAPES: Record<string, unknown> = {
  openai: {
    object: 'list',
    data: [
      { id: 'gpt-4o', object: 'model', created: 1, owned_by: 'openai' },
      { id: 'gpt-4o-mini', object: 'model' },
    ],
  },
  openrouter: { data: [{ id: 'anthropic/claude-sonnet-4', name: 'Anthropic: Claude Sonnet 4', context_length: 200000, pricing: {} }] },
  vllm: { object: 'list', data: [{ id: 'Qwen/Qwen3-8B', object: 'model', owned_by: 'vllm', root: 'Qwen/Qwen3-8B', max_model_len: 32768 }] },
  lmstudio: {
    data: [
      { id: 'qwen3-8b', type: 'llm', state: 'loaded', max_context_length: 40960, loaded_context_length: 8192 },
      { id: 'gemma-3', type: 'vlm', state: 'not-loaded', max_context_length: 131072 },
    ],
  },
  llamacpp: {
    models: [{ name: 'model.gguf', model: 'model.gguf', capabilities: ['completion'] }],
    data: [{ id: 'model.gguf', object: 'model', owned_by: 'llamacpp', meta: { n_ctx_train: 131072, n_params: 8e9 } }],
  },
  ollama: { models: [{ name: 'llama3.2:latest', model: 'llama3.2:latest', size: 2019393189 }] },
  bare: ['a-model', { id: 'b-model' }, { nope: true }, 'a-model', ''],
  empty: { object: 'list', data: [] },
};

let server: http.Server;
const sockets = new Set<Socket>();
let root: string;
const seen: http.IncomingHttpHeaders[] = [];
const urls: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(req.headers);
    urls.push(req.url ?? '');
    const shape = (req.url ?? '').split('/')[1] ?? '';
    if (shape === 'garbage') return void res.end('<html>not json</html>');
    if (shape === 'slow') return void setTimeout(() => res.end(JSON.stringify(SHAPES['openai'])), 2000);
    // A list that never ends: 1 MiB pieces, as long as it is read.
    if (shape === 'endless') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const piece = `{"id":"m","object":"model","pad":"${'x'.repeat(1024 * 1024)}"},`;
      res.write('{"object":"list","data":[');
      const more = () => {
        while (!res.destroyed && res.write(piece));
        if (!res.destroyed) res.once('drain', more);
      };
      return void more();
    }
    if (!(shape in SHAPES)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end('{"error":"not found"}');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(SHAPES[shape]));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('fetchModels', () => {
  it('stops reading a list past 16 MiB (no list is that large) and reports none', async () => {
    // Without the bound this read runs until the time limit, holding what arrived.
    expect(await fetchModels({ baseUrl: `${root}/endless`, timeoutMs: 600_000 })).toEqual([]);
  });

  it('reads the OpenAI list shape', async () => {
    expect(await fetchModels({ baseUrl: `${root}/openai` })).toEqual([{ id: 'gpt-4o' }, { id: 'gpt-4o-mini' }]);
  });

  it.each([
    ['openrouter', [{ id: 'anthropic/claude-sonnet-4', name: 'Anthropic: Claude Sonnet 4', contextWindow: 200000 }]],
    ['vllm', [{ id: 'Qwen/Qwen3-8B', contextWindow: 32768 }]],
    [
      'lmstudio',
      [
        { id: 'qwen3-8b', contextWindow: 8192 },
        { id: 'gemma-3', contextWindow: 131072 },
      ],
    ],
    ['llamacpp', [{ id: 'model.gguf', contextWindow: 131072 }]],
    ['ollama', [{ id: 'llama3.2:latest' }]],
    ['bare', [{ id: 'a-model' }, { id: 'b-model' }]],
    ['empty', []],
  ])('reads the %s shape', async (shape, expected) => {
    expect(await fetchModels({ baseUrl: `${root}/${shape}` })).toEqual(expected);
  });

  it('sends the key, the extra headers and the query string', async () => {
    await fetchModels({ baseUrl: `${root}/openai`, apiKey: 'sk-models', headers: { 'x-extra': '1' }, query: 'api-version=1' });
    expect(urls.at(-1)).toBe('/openai/models?api-version=1');
    expect(seen.at(-1)).toMatchObject({ authorization: 'Bearer sk-models', 'x-extra': '1' });
  });

  it('gives [] on 404, garbage, a refused connection and a timeout, never throwing', async () => {
    const debug: string[] = [];
    const logger = { level: 'debug', error() {}, warn() {}, info() {}, debug: (msg: string) => debug.push(msg) } as const;
    expect(await fetchModels({ baseUrl: `${root}/missing`, logger })).toEqual([]);
    expect(await fetchModels({ baseUrl: `${root}/garbage`, logger })).toEqual([]);
    expect(await fetchModels({ baseUrl: 'http://127.0.0.1:1', logger })).toEqual([]);
    // /slow answers a list after 2 s: [] shows the 100 ms bound cut it.
    expect(await fetchModels({ baseUrl: `${root}/slow`, timeoutMs: 100, logger })).toEqual([]);
    expect(debug).toHaveLength(4);
  });

  it('reads the window a real llama-server runs (meta.n_ctx 4,096), not the trained one (n_ctx_train 32,768)', () => {
    const recorded = JSON.parse(llamaRecord('models.json').response.body);
    expect(parseModels(recorded)).toEqual([{ id: '/models/math.gguf', contextWindow: 4096 }]);
  });

  it('parses nothing from non-lists, and builds the URL without doubling slashes', () => {
    expect(parseModels(null)).toEqual([]);
    expect(parseModels({ data: 'x' })).toEqual([]);
    expect(parseModels({ data: [{ id: 'm', context_length: -1 }] })).toEqual([{ id: 'm' }]);
    expect(modelsUrl('http://h/v1/', 'a=1')).toBe('http://h/v1/models?a=1');
  });
});

describe('ModelCatalog', () => {
  it('shares one request between concurrent callers and keeps the answer', async () => {
    const before = urls.length;
    const catalog = new ModelCatalog({ baseUrl: `${root}/openai`, configuredModel: 'gpt-4o' });
    const [a, b] = await Promise.all([catalog.list(), catalog.list()]);
    expect(a).toBe(b);
    await catalog.list();
    expect(urls.length - before).toBe(1);
    expect(a.map((m) => m.id)).toEqual(['gpt-4o', 'gpt-4o-mini']);
  });

  it('always lists the configured model, first when the endpoint omits it', async () => {
    const catalog = new ModelCatalog({ baseUrl: `${root}/openai`, configuredModel: 'my-deployment' });
    expect((await catalog.list()).map((m) => m.id)).toEqual(['my-deployment', 'gpt-4o', 'gpt-4o-mini']);
  });

  it('falls back to OPENAI_MODELS, then to the configured model alone', async () => {
    const withFallback = new ModelCatalog({ baseUrl: `${root}/missing`, configuredModel: 'b', fallbackModels: ['a', 'b', 'a'] });
    expect((await withFallback.list()).map((m) => m.id)).toEqual(['a', 'b']);
    const alone = new ModelCatalog({ baseUrl: `${root}/missing`, configuredModel: 'only' });
    expect(await alone.list()).toEqual([{ id: 'only' }]);
  });

  it('asks now on refresh: answered follows the endpoint, a list with models replaces the kept one, an empty answer keeps it', async () => {
    const server = await startFakeOpenAI();
    try {
      server.setModels({ object: 'list', data: [{ id: 'one' }] });
      const catalog = new ModelCatalog({ baseUrl: server.baseUrl, configuredModel: 'one' });
      expect((await catalog.list()).map((m) => m.id)).toEqual(['one']);
      expect(catalog.answered).toBe(true);
      server.setModels({ error: 'down' }, 503);
      expect((await catalog.list()).map((m) => m.id)).toEqual(['one']);
      expect(catalog.answered).toBe(true);
      // The server went down: asked now, it lists nothing; the models known stay offered.
      expect((await catalog.refresh()).map((m) => m.id)).toEqual(['one']);
      expect(catalog.answered).toBe(false);
      // Back with another model.
      server.setModels({ object: 'list', data: [{ id: 'one' }, { id: 'two' }] });
      expect((await catalog.refresh()).map((m) => m.id)).toEqual(['one', 'two']);
      expect(catalog.answered).toBe(true);
      expect((await catalog.list()).map((m) => m.id)).toEqual(['one', 'two']);
      expect(server.modelRequests).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('asks again after an empty answer once retryEmptyAfterMs has passed', async () => {
    const before = urls.length;
    const catalog = new ModelCatalog({ baseUrl: `${root}/missing`, configuredModel: 'x', retryEmptyAfterMs: 0 });
    await catalog.list();
    await catalog.list();
    expect(urls.length - before).toBe(2);
  });
});

describe('session/new model options', () => {
  it('answers without the slow /models list (after its timeout), offering the configured model', async () => {
    const conn = await connectInProcess({ OPENAI_BASE_URL: `${root}/slow`, OPENAI_MODEL: 'configured' }, { modelsTimeoutMs: 200 });
    const created: any = await conn.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    expect(created.configOptions.filter((option: any) => option.category === 'model')).toEqual([
      { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'configured', options: [{ value: 'configured', name: 'configured' }] },
    ]);
    conn.close();
  });

  it('offers OPENAI_MODELS when /models is 404, in both shapes', async () => {
    const conn = await connectInProcess({ OPENAI_BASE_URL: `${root}/missing`, OPENAI_MODEL: 'b', OPENAI_MODELS: 'a, b,c' });
    const created: any = await conn.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    expect(created.configOptions[0].options.map((o: any) => o.value)).toEqual(['a', 'b', 'c']);
    expect(created.configOptions[0].currentValue).toBe('b');
    expect(created.models).toEqual({
      currentModelId: 'b',
      availableModels: [
        { modelId: 'a', name: 'a' },
        { modelId: 'b', name: 'b' },
        { modelId: 'c', name: 'c' },
      ],
    });
    conn.close();
  });

  it('uses the context window from /models for usage_update when OPENAI_CONTEXT_WINDOW is unset', async () => {
    const fake = await startFakeOpenAI(streamText(['hi']));
    fake.setModels({ data: [{ id: 'test-model', context_length: 64000 }] });
    const conn = await connectInProcess({ OPENAI_BASE_URL: fake.baseUrl });
    const sessionId = await conn.newSession();
    await conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    const usage = conn.notifications.find((n) => n.update.sessionUpdate === 'usage_update')?.update as any;
    expect(usage).toMatchObject({ size: 64000 });
    conn.close();
    await fake.close();
  });
});

describe('ModelCatalog with an invalid configuration', () => {
  it('never asks the endpoint and offers the configured model and fallbacks', async () => {
    let calls = 0;
    const catalog = new ModelCatalog({
      baseUrl: 'http://127.0.0.1:9/v1',
      configuredModel: 'gpt-4o',
      fallbackModels: ['gpt-4o-mini'],
      enabled: false,
      fetch: async () => {
        calls++;
        throw new Error('must not be called');
      },
    });
    expect((await catalog.list()).map((model) => model.id)).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(calls).toBe(0);
  });
});
