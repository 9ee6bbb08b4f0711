/**
 * Knowing a local server by its answers (src/endpoints/server-identity.ts): the recorded
 * llama-server answers, the signs of the other servers, and answers that say nothing (HTML, an
 * empty body, nonsense, silence), which must give up quietly.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { askServerIdentity, identifyFromAnswers, identifyServer, parseLlamaCppPropsFacts } from '../../src/endpoints/server-identity.js';
import { listenLoopback, type Listening } from '../helpers/listen-loopback.js';
import { llamaRecord, startFakeLlama, type FakeLlama } from '../helpers/fake-llama-server.js';

const body = (name: string) => JSON.parse(llamaRecord(name).response.body);
const stops: (() => Promise<void>)[] = [];
afterEach(async () => void (await Promise.all(stops.splice(0).map((stop) => stop()))));

async function fakeLlama(options = {}): Promise<FakeLlama> {
  const fake = await startFakeLlama(options);
  stops.push(fake.close);
  return fake;
}

async function answering(handler: http.RequestListener): Promise<{ baseUrl: string; paths: string[] }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => (paths.push(req.url ?? ''), handler(req, res)));
  const listening: Listening = await listenLoopback(server);
  stops.push(listening.close);
  return { baseUrl: `http://127.0.0.1:${listening.port}/v1`, paths };
}

describe('identifyFromAnswers', () => {
  it('reads the recorded llama-server /props: llama.cpp, a 4,096-token slot, and whether the template takes tools', () => {
    expect(identifyFromAnswers({ props: body('props-hermes.json') })).toEqual({
      provider: 'llamacpp',
      evidence: 'GET /props',
      props: { nCtx: 4096, slots: 4, supportsTools: true, build: 'b11669-Debian' },
    });
    expect(parseLlamaCppPropsFacts(body('props-gemma.json'))).toMatchObject({ nCtx: 4096, supportsTools: false });
  });

  it('knows Ollama, LM Studio, vLLM and LiteLLM by their answers', () => {
    expect(identifyFromAnswers({ root: 'Ollama is running' }).provider).toBe('ollama');
    expect(identifyFromAnswers({ ollamaVersion: { version: '0.12.6' } }).provider).toBe('ollama');
    expect(
      identifyFromAnswers({ lmStudioModels: { object: 'list', data: [{ id: 'qwen3-8b', type: 'llm', state: 'loaded', max_context_length: 40960 }] } }).provider,
    ).toBe('lmstudio');
    expect(identifyFromAnswers({ vllmVersion: { version: '0.11.0' } }).provider).toBe('vllm');
    expect(identifyFromAnswers({ liteLlmAlive: '"I\'m alive!"' }).provider).toBe('litellm');
  });

  it('says nothing for answers that show no known server', () => {
    expect(identifyFromAnswers({})).toEqual({});
    expect(
      identifyFromAnswers({
        props: { n_ctx: 4096 },
        vllmVersion: { version: 1 },
        root: '<html>hi</html>',
        ollamaVersion: { version: 1 },
        lmStudioModels: [],
        liteLlmAlive: 'ok',
      }),
    ).toEqual({});
    expect(identifyFromAnswers({ ollamaVersion: { version: '1.0', name: 'other' } })).toEqual({});
  });
});

describe('askServerIdentity', () => {
  it('knows the replayed llama-server on a port that is not 8080, with its /props facts', async () => {
    const fake = await fakeLlama({ templateTakesTools: false });
    expect(new URL(fake.baseUrl).port).not.toBe('8080');
    const found = await askServerIdentity(fake.baseUrl);
    expect(found).toMatchObject({ provider: 'llamacpp', evidence: 'GET /props', props: { nCtx: 4096, supportsTools: false } });
  });

  it.each([
    ['an HTML page', (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Router</title>')],
    ['an empty body', (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end()],
    [
      'nonsense',
      (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"default_generation_settings": "n_ctx=4096", "data": 7'),
    ],
    ['errors', (res: http.ServerResponse) => res.writeHead(500).end('boom')],
  ])('gives up quietly on %s', async (_name, reply) => {
    const server = await answering((_req, res) => reply(res));
    expect(await askServerIdentity(server.baseUrl)).toEqual({});
    expect(server.paths.sort()).toEqual(['/', '/api/v0/models', '/api/version', '/health/liveliness', '/props', '/version']);
  });

  it.each([
    ['its chat stream to every path', 'text/event-stream'],
    ['a JSON body of 8 MiB', 'application/json'],
  ])('reads no more than the bound of a server that answers %s', async (_name, type) => {
    // 8 MiB offered to each look; the looks together must take far less of it.
    let sent = 0;
    const piece = Buffer.alloc(64 * 1024, 'x');
    const server = await answering((_req, res) => {
      res.writeHead(200, { 'content-type': type });
      const more = () => {
        while (sent < 6 * 8 * 1024 * 1024) {
          sent += piece.length;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      more();
    });
    expect(await askServerIdentity(server.baseUrl)).toEqual({});
    // Socket buffers hold some of what was written; the bodies were not read to their end.
    expect(sent).toBeLessThan(6 * 8 * 1024 * 1024);
  });

  it('stops reading an answer past its size bound, without waiting for the rest', async () => {
    // Each answer sends more than the bound, then holds the connection open: only a read that
    // stops at the bound comes back before the (long) time bound.
    const server = await answering((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"default_generation_settings":{"n_ctx":4096},"pad":"${'x'.repeat(1024 * 1024)}`);
    });
    expect(await askServerIdentity(server.baseUrl, { timeoutMs: 600_000 })).toEqual({});
  });

  it('gives up on a server that never answers, after its bound', async () => {
    const server = await answering(() => undefined);
    expect(await askServerIdentity(server.baseUrl, { timeoutMs: 50 })).toEqual({});
  });

  it('gives up at once when nothing listens', async () => {
    const server = await answering(() => undefined);
    const dead = server.baseUrl;
    await stops.pop()!();
    expect(await askServerIdentity(dead)).toEqual({});
  });
});

describe('identifyServer', () => {
  it('asks each server once per process, whoever asks', async () => {
    const fake = await fakeLlama();
    const [a, b] = await Promise.all([identifyServer(fake.baseUrl), identifyServer(`${fake.baseUrl}/`)]);
    expect(a).toBe(b);
    const third = await identifyServer(fake.baseUrl);
    expect(third.provider).toBe('llamacpp');
    expect(fake.requests.filter((r) => r.path === '/props')).toHaveLength(1);
  });
});
