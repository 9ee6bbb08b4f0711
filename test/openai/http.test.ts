/**
 * The transport (src/openai/http.ts) against loopback servers: what `fetch` does that the clients rely
 * on (status, headers, streamed body, aborts, failures), no redirect following, and the proxy
 * settings (`HTTP_PROXY`/`NO_PROXY`) through a loopback CONNECT proxy.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorCode } from '../../src/openai/chat-attempt.js';
import { nodeFetch, proxyFor } from '../../src/openai/http.js';
import { CONNECT_TIMEOUT_MS } from '../../src/openai/http-agents.js';
import { jsonPieces } from '../../src/openai/json-bytes.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function server(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  closers.push(() => s.closeAllConnections() ?? s.close());
  closers.push(() => s.close());
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, server: s };
}

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req
      .setEncoding('utf8')
      .on('data', (d) => (body += d))
      .on('end', () => resolve(body));
  });

describe('the transport', () => {
  it('sends method, headers and body; answers status, headers and text', async () => {
    const { url } = await server(async (req, res) => {
      const body = await readBody(req);
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-echo': String(req.headers['x-key']) });
      res.end(JSON.stringify({ method: req.method, path: req.url, body, length: req.headers['content-length'] }));
    });
    const response = await nodeFetch(`${url}/v1/chat?x=1`, { method: 'POST', headers: { 'X-Key': 'k' }, body: 'héllo' });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-echo')).toBe('k');
    expect(JSON.parse(await response.text())).toEqual({ method: 'POST', path: '/v1/chat?x=1', body: 'héllo', length: '6' });
  });

  it('streams the body as it arrives (a piece is readable before the next one is sent)', async () => {
    let sendRest: () => void = () => undefined;
    const { url } = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      sendRest = () => res.end('data: two\n\n');
    });
    const response = await nodeFetch(url, {});
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toBe('data: one\n\n');
    sendRest();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += Buffer.from(r.value).toString();
    expect(rest).toBe('data: two\n\n');
  });

  it('rejects with the signal reason when aborted before the answer, and errors the body when aborted during it', async () => {
    const { url } = await server((req, res) => {
      if (req.url === '/body') {
        res.writeHead(200);
        res.write('x');
      }
    });
    const early = new AbortController();
    const pending = nodeFetch(`${url}/never`, { signal: early.signal });
    setTimeout(() => early.abort(new Error('stop')), 20);
    await expect(pending).rejects.toThrow('stop');

    const late = new AbortController();
    const response = await nodeFetch(`${url}/body`, { signal: late.signal });
    const reader = response.body!.getReader();
    await reader.read();
    late.abort(new Error('later'));
    await expect(reader.read()).rejects.toThrow('later');
  });

  it('fails like fetch: refused connections name the system code; a cut body says "other side closed"', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const refused = await nodeFetch(`http://127.0.0.1:${port}/`, {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as Error).message).toBe('fetch failed');
    expect(errorCode(refused)).toBe('ECONNREFUSED');

    const { url } = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: partial\n\n', () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const response = await nodeFetch(url, {});
    const failure = await response.text().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(((failure as Error).cause as Error).message).toBe('other side closed');
  });

  it('gives 204 a null body, reports a redirect as its status without following it, and keeps a status outside 200-599', async () => {
    const { url } = await server((req, res) => {
      if (req.url === '/empty') res.writeHead(204).end();
      else if (req.url === '/moved') res.writeHead(307, { location: '/elsewhere' }).end();
      else res.writeHead(600).end('odd');
    });
    const empty = await nodeFetch(`${url}/empty`, {});
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const moved = await nodeFetch(`${url}/moved`, { method: 'POST', body: 'x' });
    expect(moved.status).toBe(307);
    expect(moved.headers.get('location')).toBe('/elsewhere');
    const odd = await nodeFetch(`${url}/odd`, {});
    expect(odd.status).toBe(600);
    expect(odd.ok).toBe(false);
  });
});

describe('the transport through a proxy', () => {
  const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy'];
  const saved = { ...process.env };
  /** Only the given proxy variables set. */
  const useProxyEnv = (env: Record<string, string>) => {
    for (const key of PROXY_VARIABLES) delete process.env[key];
    Object.assign(process.env, env);
  };
  afterEach(() => {
    for (const key of PROXY_VARIABLES) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  /**
   * A CONNECT proxy on loopback that records what it was asked, answering 407 without the right
   * credentials. The host name `target.test` stands for 127.0.0.1 (resolved by the proxy, as a
   * real one resolves names the client cannot).
   */
  async function connectProxy() {
    const asked: { target: string; auth: string | undefined }[] = [];
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      asked.push({ target: req.url!, auth: req.headers['proxy-authorization'] });
      if (req.headers['proxy-authorization'] !== `Basic ${Buffer.from('user:p@ss').toString('base64')}`) {
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
        return;
      }
      const [host, port] = req.url!.split(':');
      const upstream = net.connect(Number(port), host === 'target.test' ? '127.0.0.1' : host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    closers.push(() => proxy.closeAllConnections());
    closers.push(() => proxy.close());
    return { port: (proxy.address() as AddressInfo).port, asked };
  }
  const viaName = (url: string) => url.replace('127.0.0.1', 'target.test');

  it('tunnels through HTTP_PROXY with the credentials of its URL, and not for NO_PROXY hosts', async () => {
    const target = await server((req, res) => res.end(`hello ${req.url}`));
    const { port, asked } = await connectProxy();
    useProxyEnv({ HTTP_PROXY: `http://user:p%40ss@127.0.0.1:${port}` });
    expect(await (await nodeFetch(`${viaName(target.url)}/via`, {})).text()).toBe('hello /via');
    expect(asked).toEqual([{ target: new URL(viaName(target.url)).host, auth: `Basic ${Buffer.from('user:p@ss').toString('base64')}` }]);

    useProxyEnv({ HTTP_PROXY: `http://user:p%40ss@127.0.0.1:${port}`, NO_PROXY: 'target.test' });
    // Direct: the name does not resolve here, and the proxy is not asked.
    const direct = await nodeFetch(`${viaName(target.url)}/direct`, {}).catch((error: unknown) => error);
    expect(errorCode(direct)).toMatch(/ENOTFOUND|EAI_AGAIN/);
    expect(asked).toHaveLength(1);
  });

  it('sends loopback requests direct, and ignores a SOCKS ALL_PROXY', async () => {
    const target = await server((req, res) => res.end(`hello ${req.url}`));
    const { port, asked } = await connectProxy();
    useProxyEnv({ HTTP_PROXY: `http://user:p%40ss@127.0.0.1:${port}` });
    expect(await (await nodeFetch(`${target.url}/local`, {})).text()).toBe('hello /local');
    expect(asked).toEqual([]);
    useProxyEnv({ ALL_PROXY: 'socks5://127.0.0.1:1' });
    expect(proxyFor(new URL('https://api.openai.com/v1'))).toBe('');
    useProxyEnv({ ALL_PROXY: `http://127.0.0.1:${port}` });
    expect(proxyFor(new URL('https://api.openai.com/v1'))).toBe(`http://127.0.0.1:${port}`);
  });

  it('gives up on a proxy that opens no tunnel within the connect limit (10 s), with ETIMEDOUT', async () => {
    const silent = net.createServer(() => undefined); // accepts, never answers CONNECT
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(() => silent.close());
    const sockets: net.Socket[] = [];
    silent.on('connection', (socket) => sockets.push(socket));
    const connected = new Promise((resolve) => silent.once('connection', resolve));
    closers.push(() => {
      for (const socket of sockets) socket.destroy();
    });
    useProxyEnv({ HTTP_PROXY: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const failure = nodeFetch('http://target.test:1/x', {}).catch((error: unknown) => error);
      await connected; // an I/O event: no timer involved
      expect(sockets).toHaveLength(1);
      vi.advanceTimersByTime(CONNECT_TIMEOUT_MS);
      expect(errorCode(await failure)).toBe('ETIMEDOUT');
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers with the proxy's own status when the tunnel is refused (407 without credentials)", async () => {
    const target = await server((_req, res) => res.end('never'));
    const { port } = await connectProxy();
    useProxyEnv({ HTTP_PROXY: `http://127.0.0.1:${port}` });
    const refused = await nodeFetch(`${viaName(target.url)}/x`, {});
    expect(refused.status).toBe(407);
  });
});

describe('the transport with a chunked body (JsonPieces)', () => {
  const digest = (req: http.IncomingMessage) =>
    new Promise<{ bytes: Buffer; length: string | undefined }>((resolve) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d)).on('end', () => resolve({ bytes: Buffer.concat(parts), length: req.headers['content-length'] }));
    });

  it('sends the JSON text byte for byte with its content-length, waiting for the socket when it is full', async () => {
    let received: Promise<{ bytes: Buffer; length: string | undefined }> | undefined;
    const { url } = await server((req, res) => {
      received = digest(req);
      void received.then(() => res.end('ok'));
    });
    // 6 MB of long text (sent uncopied, in 1 Mi slices) beside short and escaped strings.
    const value = {
      model: 'm',
      messages: [
        { role: 'user', content: 'p'.repeat(6_000_000) },
        { role: 'user', content: 'é"😀\n' },
      ],
    };
    const response = await nodeFetch(url, { method: 'POST', body: jsonPieces(value) });
    expect(await response.text()).toBe('ok');
    const { bytes, length } = await received!;
    expect(bytes.equals(Buffer.from(JSON.stringify(value), 'utf8'))).toBe(true);
    expect(length).toBe(String(bytes.length));
  });

  it('stops writing and rejects with the reason when aborted while the server reads nothing', async () => {
    const { url } = await server((req) => req.pause());
    const controller = new AbortController();
    const pending = nodeFetch(url, { method: 'POST', body: jsonPieces({ content: 'p'.repeat(20_000_000) }), signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(pending).rejects.toThrow('stop');
  });
});

describe('a kept-alive connection the server closed', () => {
  /**
   * A raw HTTP/1.1 server answering each connection's first request (keep-alive, so the client
   * pools the socket) and resetting the connection at any later request on it; with `resetAll`,
   * every request on a connection after the first connection is reset too.
   */
  async function closingServer(resetAll = false): Promise<{ url: string; connections: () => number }> {
    let connections = 0;
    const s = net.createServer((socket) => {
      const index = ++connections;
      let requests = 0;
      socket.on('data', (chunk) => {
        if (!chunk.toString('latin1').includes('\r\n\r\n')) return;
        requests++;
        if (requests > 1 || (resetAll && index > 1)) return void socket.resetAndDestroy();
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok');
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    closers.push(() => s.close());
    return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, connections: () => connections };
  }

  it('is sent again at once on a new connection, and the caller never sees the reset', async () => {
    const { url, connections } = await closingServer();
    expect(await (await nodeFetch(`${url}/a`)).text()).toBe('ok');
    expect(await (await nodeFetch(`${url}/b`, { method: 'POST', body: jsonPieces({ b: 1 }) })).text()).toBe('ok');
    expect(connections()).toBe(2);
  });

  it('is retried once only: a server that keeps resetting fails the request with the reset', async () => {
    const { url, connections } = await closingServer(true);
    expect(await (await nodeFetch(`${url}/a`)).text()).toBe('ok');
    const failure = await nodeFetch(`${url}/b`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(errorCode(failure)).toBe('ECONNRESET');
    expect(connections()).toBe(2);
  });
});
