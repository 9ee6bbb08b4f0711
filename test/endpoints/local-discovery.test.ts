/**
 * Local server discovery against real loopback servers on ephemeral ports: preference order, the
 * time bound, servers that answer without models, absent servers, and the help text.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FetchLike } from '../../src/openai/http.js';
import type { Logger } from '../../src/shared/log.js';
import {
  discoverLocalServer,
  LOCAL_CANDIDATES,
  LOCAL_PROBE_TIMEOUT_MS,
  pickLocalModel,
  probeLocalServers,
  type LocalCandidate,
  type LocalProbe,
} from '../../src/endpoints/local-discovery.js';
import { noLocalServerHelp } from '../../src/endpoints/no-server-help.js';

interface TestServer {
  port: number;
  /** Request lines and headers received. */
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders }[];
  /** Requests whose connection closed before an answer (aborted probes). */
  aborted: number;
  close(): Promise<void>;
}

const open: TestServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/** A loopback server on port 0 answered by `handler`; a handler that does nothing never answers. */
async function startServer(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const state: TestServer = {
    port: 0,
    requests: [],
    aborted: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    res.on('close', () => {
      if (!res.writableFinished) state.aborted++;
    });
    handler(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  open.push(state);
  return state;
}

const json =
  (body: unknown, status = 200, delayMs = 0) =>
  (_req: http.IncomingMessage, res: http.ServerResponse) => {
    const send = () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (delayMs > 0) setTimeout(send, delayMs);
    else send();
  };
const models = (...ids: string[]) => ({ object: 'list', data: ids.map((id) => ({ id, object: 'model' })) });
const never = () => undefined;

/** A port nothing listens on: one just closed. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('LOCAL_CANDIDATES', () => {
  it('lists the five default ports in order of preference', () => {
    expect(LOCAL_CANDIDATES).toEqual([
      { port: 11434, provider: 'ollama' },
      { port: 1234, provider: 'lmstudio' },
      { port: 8000, provider: 'vllm' },
      { port: 8080, provider: 'llamacpp' },
      { port: 4000, provider: 'litellm' },
    ]);
    expect(Object.isFrozen(LOCAL_CANDIDATES)).toBe(true);
  });
});

describe('discoverLocalServer', () => {
  it('finds a server that lists models, with its base URL, provider and models', async () => {
    const server = await startServer(json({ object: 'list', data: [{ id: 'qwen3:8b', context_length: 40960 }, { id: 'llama3.2' }] }));
    const found = await discoverLocalServer({ candidates: [{ port: server.port, provider: 'ollama' }] });
    expect(found).toEqual({
      baseUrl: `http://127.0.0.1:${server.port}/v1`,
      provider: 'ollama',
      models: [{ id: 'qwen3:8b', contextWindow: 40960 }, { id: 'llama3.2' }],
      defaultModel: 'qwen3:8b',
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/v1/models' });
    expect(server.requests[0]!.headers['authorization']).toBeUndefined();
  });

  it('prefers the earlier candidate even when a later one answers first', async () => {
    const slowPreferred = await startServer(json(models('preferred-model'), 200, 80));
    const fastOther = await startServer(json(models('other-model')));
    const found = await discoverLocalServer({
      candidates: [
        { port: slowPreferred.port, provider: 'lmstudio' },
        { port: fastOther.port, provider: 'vllm' },
      ],
      timeoutMs: 2000,
    });
    expect(found?.provider).toBe('lmstudio');
    expect(found?.baseUrl).toBe(`http://127.0.0.1:${slowPreferred.port}/v1`);
    expect(found?.defaultModel).toBe('preferred-model');
  });

  it('takes the later candidate when the earlier one does not list models', async () => {
    const first = await startServer(json(models('a')));
    const second = await startServer(json(models('b')));
    const found = await discoverLocalServer({
      candidates: [
        { port: second.port, provider: 'llamacpp' },
        { port: first.port, provider: 'litellm' },
      ],
    });
    expect(found).toMatchObject({ provider: 'llamacpp', defaultModel: 'b' });
  });

  it('resolves as soon as the preferred server answers, aborting the others', async () => {
    const preferred = await startServer(json(models('m')));
    const hanging = await startServer(never);
    const result = await probeLocalServers({
      candidates: [
        { port: preferred.port, provider: 'ollama' },
        { port: hanging.port, provider: 'vllm' },
      ],
      timeoutMs: 600_000,
    });
    expect(result.server?.provider).toBe('ollama');
    // `skipped`, not `timeout`: the search ended on the answer, not on its bound.
    expect(result.probes.map((p) => p.outcome)).toEqual(['models', 'skipped']);
    expect(result.timeoutMs).toBe(600_000);
    await expect.poll(() => hanging.aborted, { timeout: 2_000 }).toBe(1);
  });

  it('gives up on a server that never answers within the bound, and aborts its request', async () => {
    const hanging = await startServer(never);
    const result = await probeLocalServers({ candidates: [{ port: hanging.port, provider: 'ollama' }], timeoutMs: 300 });
    expect(result.server).toBeUndefined();
    expect(result.probes.map((p) => p.outcome)).toEqual(['timeout']);
    // It waited its bound out (timers may fire a millisecond early), and says so.
    expect(result.waitedMs).toBeGreaterThanOrEqual(295);
    expect(result.timeoutMs).toBe(300);
    expect(hanging.requests).toHaveLength(1);
    await expect.poll(() => hanging.aborted, { timeout: 2_000 }).toBe(1);
  });

  it('falls back to a less preferred server once the preferred one has used up the bound', async () => {
    const hanging = await startServer(never);
    const ready = await startServer(json(models('ready-model')));
    const result = await probeLocalServers({
      candidates: [
        { port: hanging.port, provider: 'ollama' },
        { port: ready.port, provider: 'lmstudio' },
      ],
      timeoutMs: 300,
    });
    expect(result.server).toMatchObject({ provider: 'lmstudio', defaultModel: 'ready-model' });
    expect(result.probes.map((p) => p.outcome)).toEqual(['timeout', 'models']);
  });

  it('does not count a server answering 404, an empty list or something that is not a model list', async () => {
    const notFound = await startServer(json({ error: 'not found' }, 404));
    const empty = await startServer(json({ object: 'list', data: [] }));
    const html = await startServer(json('<html>a web app</html>'));
    const candidates: LocalCandidate[] = [
      { port: notFound.port, provider: 'llamacpp' },
      { port: empty.port, provider: 'ollama' },
      { port: html.port, provider: 'vllm' },
    ];
    const result = await probeLocalServers({ candidates });
    expect(result.server).toBeUndefined();
    expect(result.probes.map(({ outcome, status }) => ({ outcome, status }))).toEqual([
      { outcome: 'http-error', status: 404 },
      { outcome: 'no-models', status: 200 },
      { outcome: 'no-models', status: 200 },
    ]);
    expect(await discoverLocalServer({ candidates })).toBeUndefined();
  });

  it('skips servers without models and takes the next one that has some', async () => {
    const empty = await startServer(json({ models: [] }));
    const good = await startServer(json(['only-model']));
    const found = await discoverLocalServer({
      candidates: [
        { port: empty.port, provider: 'ollama' },
        { port: good.port, provider: 'litellm' },
      ],
    });
    expect(found).toMatchObject({ provider: 'litellm', models: [{ id: 'only-model' }] });
  });

  it('finds nothing when nothing listens, without waiting out its bound', async () => {
    const port = await closedPort();
    const result = await probeLocalServers({ candidates: [{ port, provider: 'vllm' }], timeoutMs: 600_000 });
    expect(result.server).toBeUndefined();
    // `unreachable`, not `timeout`: the refusal ended the search.
    expect(result.probes).toEqual([{ port, provider: 'vllm', baseUrl: `http://127.0.0.1:${port}/v1`, outcome: 'unreachable', models: [] }]);
  });

  it('asks every port at once and waits for slow answers within its bound', async () => {
    // The first server answers only once the second has been asked: one port after the other,
    // the search would wait out its bound on the first and find nothing.
    let secondAsked!: () => void;
    const asked = new Promise<void>((resolve) => (secondAsked = resolve));
    const first = await startServer((req, res) => void asked.then(() => setTimeout(() => json({ object: 'list', data: [] })(req, res), 300)));
    const second = await startServer((req, res) => {
      secondAsked();
      setTimeout(() => json(models('slow-model'))(req, res), 300);
    });
    const result = await probeLocalServers({
      candidates: [
        { port: first.port, provider: 'ollama' },
        { port: second.port, provider: 'vllm' },
      ],
      timeoutMs: 60_000,
    });
    expect(result.probes.map((p) => p.outcome)).toEqual(['no-models', 'models']);
    expect(result.server).toMatchObject({ provider: 'vllm', defaultModel: 'slow-model' });
    expect(result.waitedMs).toBeGreaterThanOrEqual(295);
  });

  it('resolves at once with no candidates', async () => {
    expect(await probeLocalServers({ candidates: [] })).toMatchObject({ server: undefined, probes: [], timeoutMs: LOCAL_PROBE_TIMEOUT_MS });
  });

  it('never rejects, whatever the transport does', async () => {
    const throwing: FetchLike = () => {
      throw new Error('boom');
    };
    const rejecting: FetchLike = () => Promise.reject(new TypeError('fetch failed'));
    const badBody: FetchLike = async () => ({ ok: true, status: 200, body: null, text: () => Promise.reject(new Error('reset')) }) as unknown as Response;
    for (const fetch of [throwing, rejecting, badBody]) {
      const result = await probeLocalServers({ candidates: [{ port: 1, provider: 'ollama' }], fetch });
      expect(result.server).toBeUndefined();
      expect(['unreachable', 'no-models']).toContain(result.probes[0]!.outcome);
    }
  });

  it('asks the given host, bracketing IPv6 literals', async () => {
    const urls: string[] = [];
    const fetch: FetchLike = async (url) => {
      urls.push(url);
      return new Response(JSON.stringify(models('x')), { status: 200 });
    };
    const found = await discoverLocalServer({ candidates: [{ port: 11434, provider: 'ollama' }], host: '::1', fetch });
    expect(urls).toEqual(['http://[::1]:11434/v1/models']);
    expect(found?.baseUrl).toBe('http://[::1]:11434/v1');
  });

  it('probes the default candidates on 127.0.0.1 by default, all at once', async () => {
    const urls: string[] = [];
    const fetch: FetchLike = (url, init) => {
      urls.push(url);
      return new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    };
    const result = await probeLocalServers({ fetch, timeoutMs: 50 });
    expect(urls).toEqual(LOCAL_CANDIDATES.map(({ port }) => `http://127.0.0.1:${port}/v1/models`));
    expect(result.probes.every((p) => p.outcome === 'timeout')).toBe(true);
  });

  it('logs every probe outcome at debug', async () => {
    const records: [string, Record<string, unknown> | undefined][] = [];
    const logger = {
      level: 'debug',
      error() {},
      warn() {},
      info() {},
      debug: (msg: string, fields?: Record<string, unknown>) => void records.push([msg, fields]),
    } as Logger;
    const port = await closedPort();
    await discoverLocalServer({ candidates: [{ port, provider: 'vllm' }], logger });
    expect(records).toEqual([
      ['local server discovery', { found: null, probes: [`vllm:${port}=unreachable`], waitedMs: expect.any(Number), timeoutMs: LOCAL_PROBE_TIMEOUT_MS }],
    ]);
  });
});

describe('pickLocalModel', () => {
  it('passes over embedding and reranking models', () => {
    expect(pickLocalModel([{ id: 'text-embedding-nomic-embed-text-v1.5' }, { id: 'bge-reranker-v2' }, { id: 'qwen3-8b' }])).toBe('qwen3-8b');
    expect(pickLocalModel([{ id: 'all-minilm:latest' }, { id: 'bge-m3' }, { id: 'llama3.2' }])).toBe('llama3.2');
  });
  it('falls back to the first model when every one looks like an embedding model, and to undefined for none', () => {
    expect(pickLocalModel([{ id: 'nomic-embed-text' }, { id: 'mxbai-embed-large' }])).toBe('nomic-embed-text');
    expect(pickLocalModel([])).toBeUndefined();
  });
});

describe('noLocalServerHelp', () => {
  it('names every candidate with its OPENAI_BASE_URL, and OPENAI_API_KEY for the cloud', () => {
    const help = noLocalServerHelp();
    for (const { port } of LOCAL_CANDIDATES) expect(help).toContain(`OPENAI_BASE_URL=http://127.0.0.1:${port}/v1`);
    for (const name of ['Ollama', 'LM Studio', 'vLLM', 'llama.cpp', 'LiteLLM']) expect(help).toContain(name);
    expect(help).toContain('ollama serve');
    expect(help).toContain('OPENAI_API_KEY');
    expect(help).toContain('OPENAI_MODEL');
  });

  it('lists only the candidates given', () => {
    const help = noLocalServerHelp({ candidates: [{ port: 9999, provider: 'vllm' }] });
    expect(help).toContain('OPENAI_BASE_URL=http://127.0.0.1:9999/v1');
    expect(help).not.toContain('11434');
    expect(help).not.toContain('Ollama');
  });

  it('says which servers answered without being usable', () => {
    const probes: LocalProbe[] = [
      { port: 11434, provider: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', outcome: 'no-models', status: 200, models: [] },
      { port: 8080, provider: 'llamacpp', baseUrl: 'http://127.0.0.1:8080/v1', outcome: 'http-error', status: 404, models: [] },
      { port: 8000, provider: 'vllm', baseUrl: 'http://127.0.0.1:8000/v1', outcome: 'unreachable', models: [] },
    ];
    const help = noLocalServerHelp({ probes });
    expect(help).toMatch(/Ollama answers on 127\.0\.0\.1:11434 but lists no models: run `ollama pull/);
    expect(help).toContain('127.0.0.1:8080, but not as an OpenAI-compatible server (HTTP 404');
    expect(help).not.toContain('answers on 127.0.0.1:8000');
  });

  it('names the ports tried and how long it waited, and a server that did not answer in time', () => {
    const probes: LocalProbe[] = [{ port: 1234, provider: 'lmstudio', baseUrl: 'http://127.0.0.1:1234/v1', outcome: 'timeout', models: [] }];
    const help = noLocalServerHelp({ probes, waitedMs: 2_004 });
    expect(help).toContain('(tried Ollama :11434, LM Studio :1234, vLLM :8000, llama.cpp :8080, LiteLLM :4000; waited 2.0 s)');
    expect(help).toContain('Something accepted the connection on 127.0.0.1:1234 but did not answer /v1/models within 2.0 s');
    expect(help).toContain('`OPENAI_BASE_URL=http://127.0.0.1:1234/v1` to skip the search');
    expect(help).toContain('--timeout-ms');
    expect(noLocalServerHelp({ waitedMs: 40 })).toContain('; waited 40 ms)');
  });
});
