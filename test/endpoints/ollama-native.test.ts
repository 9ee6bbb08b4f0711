/**
 * The Ollama native router of one endpoint against a loopback server: the window asked for
 * (setting, trained cap, extra body), think style from capabilities, the fallback when the
 * native API is not there, the memory note; and the pure readers of /api/show and /api/ps.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OllamaNativeChat } from '../../src/endpoints/ollama-native.js';
import { parseShowFacts, suggestNumCtx } from '../../src/endpoints/ollama-show.js';
import { parseOllamaPs } from '../../src/endpoints/ollama-ps.js';
import { PROVIDER_PROFILES } from '../../src/config/provider-profiles.js';
import { createLogger } from '../../src/shared/log.js';

const PROFILE = PROVIDER_PROFILES.ollama.nativeChat!;
const SHOW = {
  model_info: {
    'general.architecture': 'qwen3',
    'qwen3.context_length': 40960,
    'qwen3.block_count': 36,
    'qwen3.attention.head_count': 32,
    'qwen3.attention.head_count_kv': 8,
    'qwen3.embedding_length': 4096,
  },
  capabilities: ['completion', 'tools', 'thinking'],
};

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function serve(routes: Record<string, { status?: number; body: unknown }>): Promise<{ baseUrl: string; asked: string[] }> {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = `${req.method} ${req.url}`;
      asked.push(key);
      const route = routes[key];
      if (!route) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
      res.writeHead(route.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(route.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, asked };
}

function router(baseUrl: string, numCtx = 32768, extraBody?: Record<string, unknown>, lines: string[] = [], notServed?: Map<string, string>) {
  const logger = createLogger({ level: 'info', write: (text) => void lines.push(text) });
  return new OllamaNativeChat({ baseUrl, numCtx, profile: PROFILE, headers: {}, extraBody, logger, notServed });
}

describe('OllamaNativeChat', () => {
  it('asks for the setting under the trained window, for the cap otherwise (logged once), and for an extra body num_ctx as given', async () => {
    const { baseUrl, asked } = await serve({ 'POST /api/show': { body: SHOW } });
    expect(await router(baseUrl).target('qwen3:8b')).toEqual({ url: baseUrl.replace(/\/v1$/, '/api/chat'), numCtx: 32768, think: 'boolean' });
    const lines: string[] = [];
    const capped = router(baseUrl, 65536, undefined, lines);
    expect((await capped.target('qwen3:8b'))?.numCtx).toBe(40960);
    expect((await capped.target('qwen3:8b'))?.numCtx).toBe(40960);
    expect(lines.filter((line) => line.includes('above the trained window'))).toHaveLength(1);
    expect(await router(baseUrl, 32768, { options: { num_ctx: 8192 } }).window('qwen3:8b')).toBe(8192);
    // One /api/show per model and router.
    expect(asked.filter((key) => key === 'POST /api/show')).toHaveLength(3);
  });

  it('gives no think to a model whose capabilities lack thinking, levels to GPT-OSS, a boolean when capabilities are unknown', async () => {
    const plain = await serve({ 'POST /api/show': { body: { ...SHOW, capabilities: ['completion', 'tools'] } } });
    expect((await router(plain.baseUrl).target('llama3.2'))?.think).toBe('none');
    const oss = await serve({ 'POST /api/show': { body: SHOW } });
    expect((await router(oss.baseUrl).target('gpt-oss:20b'))?.think).toBe('levels');
    const old = await serve({ 'POST /api/show': { body: { model_info: SHOW.model_info } } });
    expect((await router(old.baseUrl).target('qwen3:8b'))?.think).toBe('unknown');
  });

  it('falls back for the agent when /api/show is not there (a gateway), and when told /api/chat is not', async () => {
    const gateway = await serve({});
    const lines: string[] = [];
    const notServed = new Map<string, string>();
    const first = router(gateway.baseUrl, 32768, undefined, lines, notServed);
    expect(await first.target('qwen3:8b')).toBeUndefined();
    // Another endpoint of the same agent on that server knows it without asking.
    const before = gateway.asked.length;
    expect(await router(gateway.baseUrl, 32768, undefined, lines, notServed).target('qwen3:8b')).toBeUndefined();
    expect(gateway.asked.length).toBe(before);
    expect(lines.filter((line) => line.includes('not served'))).toHaveLength(1);
    expect(notServed.get(gateway.baseUrl.replace(/\/v1$/, ''))).toBeDefined();
    const ollama = await serve({ 'POST /api/show': { body: SHOW } });
    const told = router(ollama.baseUrl);
    expect(await told.target('qwen3:8b')).toBeDefined();
    told.fallBack('HTTP 404');
    expect(await told.target('qwen3:8b')).toBeUndefined();
    expect((await told.describe('qwen3:8b')).api).toEqual({ kind: 'v1', reason: 'HTTP 404' });
  });

  it('keeps asking /api/show about a model not pulled yet, without falling back', async () => {
    const { baseUrl, asked } = await serve({ 'POST /api/show': { status: 404, body: { error: "model 'nope' not found" } } });
    const native = router(baseUrl);
    expect((await native.target('nope'))?.numCtx).toBe(32768);
    await native.target('nope');
    expect(asked.filter((key) => key === 'POST /api/show')).toHaveLength(2);
  });

  it('tells once, after an answer, when the model runs partly on the CPU', async () => {
    const gib = 2 ** 30;
    const { baseUrl } = await serve({
      'POST /api/show': { body: SHOW },
      'GET /api/ps': { body: { models: [{ name: 'qwen3:8b', model: 'qwen3:8b', size: 10 * gib, size_vram: 6 * gib, context_length: 32768 }] } },
    });
    const native = router(baseUrl);
    expect(await native.memoryNotice('qwen3:8b')).toBeUndefined(); // no answer yet
    native.answered('qwen3:8b');
    const notice = await native.memoryNotice('qwen3:8b');
    expect(notice).toContain('qwen3:8b runs 40% on the CPU with a 32,768-token window (6.0 GiB of 10.0 GiB in GPU memory)');
    expect(notice).toMatch(/OPENAI_ACP_OLLAMA_NUM_CTX=\d+ (should keep it|would keep more of it) on the GPU/);
    expect(await native.memoryNotice('qwen3:8b')).toBeUndefined();
    expect(await native.describe('qwen3:8b')).toMatchObject({
      api: { kind: 'native' },
      asked: 32768,
      trained: 40960,
      runtime: 32768,
      thinks: true,
      setting: 32768,
    });
  });
});

describe('parseShowFacts, suggestNumCtx, parseOllamaPs', () => {
  it('reads the trained window, capabilities and the KV cost of a token', () => {
    expect(parseShowFacts(SHOW)).toEqual({ trained: 40960, capabilities: ['completion', 'tools', 'thinking'], kvBytesPerToken: 36 * 8 * 256 * 2 });
    expect(parseShowFacts({ model_info: { 'llama.context_length': 8192 } })).toEqual({ trained: 8192 });
    expect(parseShowFacts('nope')).toBeUndefined();
  });

  it('suggests the largest power of two whose KV cache frees the excess, else half the window', () => {
    expect(suggestNumCtx(32768, 2 * 2 ** 30, 147456)).toEqual({ numCtx: 16384, fits: true });
    expect(suggestNumCtx(32768, 1, 147456)).toEqual({ numCtx: 16384, fits: true });
    expect(suggestNumCtx(32768, 100 * 2 ** 30, 147456)).toEqual({ numCtx: 16384, fits: false });
    expect(suggestNumCtx(32768, 2 ** 30, undefined)).toEqual({ numCtx: 16384, fits: false });
    expect(suggestNumCtx(4096, 2 ** 40, undefined)).toEqual({ numCtx: 2048, fits: false });
  });

  it('finds the model in /api/ps by name or model, :latest implied', () => {
    const body = { models: [{ name: 'qwen3:latest', model: 'qwen3:latest', size: 10, size_vram: 4, context_length: 4096 }] };
    expect(parseOllamaPs(body, 'qwen3')).toEqual({ contextLength: 4096, size: 10, sizeVram: 4 });
    expect(parseOllamaPs(body, 'llama3.2')).toBeUndefined();
    expect(parseOllamaPs({ models: 'x' }, 'qwen3')).toBeUndefined();
  });
});
