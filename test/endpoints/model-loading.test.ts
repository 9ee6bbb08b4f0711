/**
 * Whether a server has the model loaded yet, as each says it: llama.cpp `/health` (503 "Loading
 * model" while it starts), Ollama `/api/ps` (the models in memory), LM Studio `/api/v0/models`
 * (`state`); a server that says nothing, or is not asked, gives no answer.
 */
import { describe, expect, it } from 'vitest';
import { llamaCppHealthState, lmStudioState, modelLoadState, ollamaPsState } from '../../src/endpoints/model-loading.js';
import { startFakeOpenAI } from '../helpers/fake-openai.js';
import { llamaRecord } from '../helpers/fake-llama-server.js';

/** The real llama-server's answers (test/fixtures/llamacpp/README.md). */
const LOADING = llamaRecord('health-loading.json').response.body;
const HEALTHY = llamaRecord('health-ok.json').response.body;

describe('the readers', () => {
  it('read llama.cpp /health as the real server answers it', () => {
    expect(llamaCppHealthState(503, LOADING)).toEqual({ loaded: false, said: 'GET /health answered 503 "Loading model"' });
    expect(llamaCppHealthState(200, HEALTHY)).toEqual({ loaded: true, said: 'GET /health answered 200' });
    expect(llamaCppHealthState(404, 'no')).toBeUndefined();
  });

  it('read Ollama /api/ps, a name without a tag meaning :latest', () => {
    const ps = { models: [{ name: 'qwen3:8b', model: 'qwen3:8b', size: 1 }] };
    expect(ollamaPsState(ps, 'qwen3:8b')).toEqual({ loaded: true, said: 'GET /api/ps lists it' });
    expect(ollamaPsState(ps, 'llama3')).toEqual({ loaded: false, said: 'GET /api/ps does not list it yet' });
    expect(ollamaPsState({ error: 'x' }, 'qwen3:8b')).toBeUndefined();
  });

  it('read LM Studio /api/v0/models', () => {
    const list = {
      data: [
        { id: 'qwen2.5-7b', state: 'not-loaded' },
        { id: 'gemma', state: 'loaded' },
      ],
    };
    expect(lmStudioState(list, 'qwen2.5-7b')).toEqual({ loaded: false, said: 'GET /api/v0/models says its state is "not-loaded"' });
    expect(lmStudioState(list, 'gemma')?.loaded).toBe(true);
    expect(lmStudioState(list, 'other')).toBeUndefined();
  });
});

describe('modelLoadState', () => {
  it('asks the path its query names, at the root under /v1, and reads the answer', async () => {
    let healthy = false;
    const handler = Object.assign(
      (req: { url?: string }, res: import('node:http').ServerResponse) => {
        const path = (req.url ?? '').split('?')[0];
        if (path === '/health') return void res.writeHead(healthy ? 200 : 503, { 'content-type': 'application/json' }).end(healthy ? HEALTHY : LOADING);
        if (path === '/api/ps') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"models":[]}');
        if (path === '/api/v0/models') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"id":"m","state":"loaded"}]}');
        res.writeHead(404).end();
      },
      { gets: new Set(['/api/v0/models']) },
    );
    const server = await startFakeOpenAI(handler);
    try {
      expect(await modelLoadState('llamacpp-health', server.baseUrl, 'm')).toEqual({ loaded: false, said: 'GET /health answered 503 "Loading model"' });
      healthy = true;
      expect(await modelLoadState('llamacpp-health', server.baseUrl, 'm')).toMatchObject({ loaded: true });
      expect(await modelLoadState('ollama-ps', server.baseUrl, 'm')).toMatchObject({ loaded: false });
      expect(await modelLoadState('lmstudio-models', server.baseUrl, 'm')).toMatchObject({ loaded: true });
      expect(await modelLoadState(undefined, server.baseUrl, 'm')).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('gives no answer when nothing listens, and stops with its signal', async () => {
    expect(await modelLoadState('llamacpp-health', 'http://127.0.0.1:9/v1', 'm')).toBeUndefined();
    const stopped = new AbortController();
    stopped.abort();
    const server = await startFakeOpenAI(() => undefined);
    try {
      expect(await modelLoadState('ollama-ps', server.baseUrl, 'm', { signal: stopped.signal })).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
