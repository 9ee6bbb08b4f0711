/**
 * The HTTP transport: a `fetch` (same call shape, resolves a WHATWG `Response`) built on
 * `node:http`/`node:https`, which
 * - has no header or body timeout of its own, so our silence limit (`OPENAI_TIMEOUT_MS`) is the
 *   only one. Node's global `fetch` (undici) abandons a request after 300 s without response
 *   headers or between body bytes (https://undici.nodejs.org/#/docs/api/Dispatcher, headersTimeout
 *   and bodyTimeout); reasoning models can think longer than that before the first byte. The one
 *   limit kept is undici's 10 s to establish a connection ({@link CONNECT_TIMEOUT_MS});
 * - honours `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (and their lower-case spellings) with the
 *   rules of undici's `EnvHttpProxyAgent` ({@link proxyFor}), tunnelling through the proxy with
 *   `CONNECT` as undici's `ProxyAgent` does, `Proxy-Authorization: Basic` from the proxy URL's
 *   user and password;
 * - follows redirects, asks for and decodes gzip/deflate/br, and keeps connections alive, as
 *   `fetch` does (https://fetch.spec.whatwg.org/#http-redirect-fetch).
 *
 * Why not undici from npm (the previous transport): loading and compiling it, and its llhttp
 * WebAssembly, took ~25 MiB of RSS and ~90 ms at the first request; Node's own C++ HTTP parser
 * costs ~2 MiB (measured on Node 20: 66 → 44 MiB for one request in a bare process).
 *
 * Failures look like `fetch`'s: a request that gets no answer rejects with
 * `TypeError('fetch failed', { cause })` whose cause is the system error (`code` `ECONNREFUSED`,
 * `ENOTFOUND`, `CERT_HAS_EXPIRED`, …); an abort rejects (or errors the body) with the signal's
 * reason; a body cut short errors with `TypeError('terminated', { cause })`.
 */
import type * as Http from 'node:http';
import type { Readable } from 'node:stream';

/** The subset of `fetch` the clients use; injectable for tests. */
export type FetchLike = (url: string, init: RequestInit & { dispatcher?: unknown }) => Promise<Response>;

/** Longest wait for a TCP (and TLS) connection, in ms: undici's `connectTimeout` default. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** Redirects followed before giving up (the Fetch standard's limit). */
const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
/** Request headers that describe the body, dropped when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/** The process-wide transport. Kept async for the callers written against the earlier lazy one. */
export function defaultFetch(): Promise<FetchLike> {
  return Promise.resolve(nodeFetch);
}

/**
 * The proxy for `url` under the environment's proxy settings, or `undefined` for a direct
 * connection. Rules of undici's `EnvHttpProxyAgent` (undici 7, `env-http-proxy-agent.js`):
 * `http_proxy ?? HTTP_PROXY` for http URLs; `https_proxy ?? HTTPS_PROXY`, else the http proxy,
 * for https URLs; `no_proxy ?? NO_PROXY` is a comma- or space-separated list of host names
 * (a leading `.` or `*.` is ignored; a name also covers its subdomains), each optionally with
 * `:port`, or `*` for none at all.
 *
 * @throws TypeError when the proxy setting is not a URL
 */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  const httpProxy = env['http_proxy'] ?? env['HTTP_PROXY'];
  const proxy = url.protocol === 'https:' ? (env['https_proxy'] ?? env['HTTPS_PROXY']) || httpProxy : httpProxy;
  if (!proxy) return undefined;
  const noProxy = env['no_proxy'] ?? env['NO_PROXY'] ?? '';
  if (noProxy === '*') return undefined;
  // `host`, not `hostname`, keeps the brackets of an IPv6 address.
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    if (parsed && Number.parseInt(parsed[2]!, 10) !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return undefined;
  }
  return new URL(proxy);
}

type Modules = { http: typeof import('node:http'); https: typeof import('node:https'); tls: typeof import('node:tls') };
let modules: Promise<Modules> | undefined;
/** `node:http`, `node:https` and `node:tls`, loaded at the first request (not at start-up). */
const load = (): Promise<Modules> =>
  (modules ??= Promise.all([import('node:http'), import('node:https'), import('node:tls')]).then(([http, https, tls]) => ({ http, https, tls })));

const agents = new Map<string, Http.Agent>();

/** Destroys `socket` with an `ETIMEDOUT` error unless it connects within {@link CONNECT_TIMEOUT_MS}. */
function limitConnect(socket: import('node:net').Socket, event: 'connect' | 'secureConnect', target: string): void {
  const timer = setTimeout(() => {
    socket.destroy(Object.assign(new Error(`connect ETIMEDOUT ${target} (no connection within ${CONNECT_TIMEOUT_MS} ms)`), { code: 'ETIMEDOUT' }));
  }, CONNECT_TIMEOUT_MS);
  timer.unref();
  socket.once(event, () => clearTimeout(timer));
  socket.once('close', () => clearTimeout(timer));
}

/** A keep-alive agent for `protocol`, direct or through `proxy` (one per proxy, reused). */
function agentFor(m: Modules, protocol: string, proxy: URL | undefined): Http.Agent {
  const key = `${protocol} ${proxy?.href ?? ''}`;
  let agent = agents.get(key);
  if (agent) return agent;
  const secure = protocol === 'https:';
  agent = secure ? new m.https.Agent({ keepAlive: true }) : new m.http.Agent({ keepAlive: true });
  const created = agent;
  // Node's Agent calls `createConnection(options, callback)` and waits for the callback when nothing is returned.
  type Create = (options: Record<string, any>, callback: (error: Error | null, socket?: import('node:net').Socket) => void) => import('node:net').Socket | undefined;
  const direct = (created as unknown as { createConnection: Create }).createConnection.bind(created);
  (created as unknown as { createConnection: Create }).createConnection = (options, callback) => {
    const target = `${options['host']}:${options['port']}`;
    if (!proxy) {
      const socket = direct(options, callback);
      if (socket) limitConnect(socket, secure ? 'secureConnect' : 'connect', target);
      return socket;
    }
    openTunnel(m, proxy, target).then(
      (socket) => {
        if (!secure) return callback(null, socket);
        // `options` carries the agent's `servername` (none for an IP address), ALPN and CA settings.
        const wrapped = m.tls.connect({ ...options, socket });
        limitConnect(wrapped, 'secureConnect', target);
        callback(null, wrapped);
      },
      (error: Error) => callback(error),
    );
    return undefined;
  };
  agents.set(key, agent);
  return agent;
}

/** A socket tunnelled to `target` (`host:port`) through `proxy` with `CONNECT`. */
function openTunnel(m: Modules, proxy: URL, target: string): Promise<import('node:net').Socket> {
  const headers: Record<string, string> = { host: target, 'proxy-connection': 'keep-alive' };
  if (proxy.username || proxy.password) {
    headers['proxy-authorization'] = `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
  }
  const secure = proxy.protocol === 'https:';
  if (!secure && proxy.protocol !== 'http:') {
    return Promise.reject(Object.assign(new Error(`unsupported proxy protocol ${proxy.protocol} (use http:// or https://)`), { code: 'ERR_PROXY_INVALID' }));
  }
  return new Promise((resolve, reject) => {
    const request = (secure ? m.https : m.http).request({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxy.port || (secure ? 443 : 80),
      method: 'CONNECT',
      path: target,
      headers,
      agent: false,
    });
    request.once('socket', (socket) => limitConnect(socket, secure ? 'secureConnect' : 'connect', proxy.host));
    request.once('connect', (response, socket, head) => {
      if (response.statusCode !== 200) {
        socket.destroy();
        reject(Object.assign(new Error(`Proxy response (${response.statusCode}) !== 200 when HTTP Tunneling`), { code: 'ERR_PROXY_TUNNEL' }));
        return;
      }
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    request.once('error', reject);
    request.end();
  });
}

/** Lower-cased request headers from any `HeadersInit`. */
function headerRecord(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  if (typeof (init as Headers).forEach === 'function' && !Array.isArray(init)) (init as Headers).forEach((value, name) => (out[name.toLowerCase()] = value));
  else for (const [name, value] of Array.isArray(init) ? init : Object.entries(init)) out[name!.toLowerCase()] = String(value);
  return out;
}

const networkError = (cause: unknown) => new TypeError('fetch failed', { cause });

/**
 * `fetch(url, init)` over `node:http`/`node:https` (see the module comment). Supports the
 * methods, string or byte bodies, headers, `signal` and `redirect` of `init`; `dispatcher` is
 * ignored. The response body is a byte stream delivered as the socket reads it (no buffering).
 *
 * @throws TypeError `fetch failed` (cause: the system error) when no answer came
 * @throws the signal's reason when `init.signal` aborts first
 */
export async function nodeFetch(input: string, init: RequestInit & { dispatcher?: unknown } = {}): Promise<Response> {
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  const m = await load();
  let url = new URL(input);
  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body ?? undefined;
  if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) throw new TypeError('nodeFetch: only string and byte bodies are supported');
  const headers = headerRecord(init.headers);
  headers['accept'] ??= '*/*';
  for (let redirects = 0; ; redirects++) {
    const response = await send(m, url, method, headers, body as string | Uint8Array | undefined, signal);
    const location = response.headers['location'];
    const status = response.statusCode ?? 0;
    if (!REDIRECT_STATUSES.has(status) || location === undefined || init.redirect === 'manual') return toResponse(m, response, method, signal);
    response.resume();
    if (init.redirect === 'error') throw networkError(new Error(`unexpected redirect (${status})`));
    if (redirects >= MAX_REDIRECTS) throw networkError(new Error('redirect count exceeded'));
    let next: URL;
    try {
      next = new URL(location, url);
    } catch (error) {
      throw networkError(error);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') throw networkError(new Error(`URL scheme must be a HTTP(S) scheme: ${next.protocol}`));
    if (((status === 301 || status === 302) && method === 'POST') || (status === 303 && method !== 'GET' && method !== 'HEAD')) {
      method = 'GET';
      body = undefined;
      for (const name of BODY_HEADERS) delete headers[name];
    }
    if (next.origin !== url.origin) {
      for (const name of ['authorization', 'proxy-authorization', 'cookie', 'host']) delete headers[name];
    }
    url = next;
  }
}

/** One request/response exchange; resolves at the response head. */
function send(m: Modules, url: URL, method: string, headers: Record<string, string>, body: string | Uint8Array | undefined, signal: AbortSignal | undefined): Promise<Http.IncomingMessage> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(networkError(new Error(`unsupported URL scheme ${url.protocol}`)));
  let proxy: URL | undefined;
  try {
    proxy = proxyFor(url);
  } catch (error) {
    return Promise.reject(networkError(error));
  }
  const secure = url.protocol === 'https:';
  const outgoing = { ...headers };
  outgoing['accept-encoding'] ??= secure ? 'br, gzip, deflate' : 'gzip, deflate';
  if (body !== undefined) outgoing['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  return new Promise((resolve, reject) => {
    const request = (secure ? m.https : m.http).request({
      protocol: url.protocol,
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method,
      headers: outgoing,
      agent: agentFor(m, url.protocol, proxy),
      ...(signal ? { signal } : {}),
    });
    request.once('response', resolve);
    request.once('error', (error) => reject(signal?.aborted ? signal.reason : networkError(error)));
    request.end(body);
  });
}

/** The decoders `content-encoding` asks for, outermost last; none when a coding is unknown. */
function decoders(m: typeof import('node:zlib'), contentEncoding: string | undefined): import('node:stream').Transform[] {
  const codings = contentEncoding ? contentEncoding.toLowerCase().split(',') : [];
  if (codings.length > 5) throw new Error(`too many content-encodings in response: ${codings.length}, maximum allowed is 5`);
  const out: import('node:stream').Transform[] = [];
  // Lenient flushing (what cURL and undici do): accept a stream that stops at a sync point.
  const z = { flush: m.constants.Z_SYNC_FLUSH, finishFlush: m.constants.Z_SYNC_FLUSH };
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i]!.trim();
    if (coding === 'gzip' || coding === 'x-gzip') out.push(m.createGunzip(z));
    else if (coding === 'deflate') out.push(m.createInflate(z));
    else if (coding === 'br') out.push(m.createBrotliDecompress({ flush: m.constants.BROTLI_OPERATION_FLUSH, finishFlush: m.constants.BROTLI_OPERATION_FLUSH }));
    else return [];
  }
  return out;
}

/** The `Response` for a response head; its body streams (and is decoded) as bytes arrive. */
async function toResponse(m: Modules, res: Http.IncomingMessage, method: string, signal: AbortSignal | undefined): Promise<Response> {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  let body: ReadableStream<Uint8Array> | null = null;
  if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') res.resume();
  else {
    let source: Readable = res;
    const encoding = res.headers['content-encoding'];
    if (encoding) {
      const zlib = await import('node:zlib');
      const chain = decoders(zlib, encoding);
      if (chain.length > 0) {
        const { pipeline } = await import('node:stream');
        source = pipeline([res, ...chain], () => undefined) as unknown as Readable;
      }
    }
    body = byteStream(res, source, signal);
  }
  // `Response` only accepts 200–599; a server's 600–999 keeps its number for the caller.
  const response = new Response(body, { status: status >= 200 && status <= 599 ? status : 599, statusText: res.statusMessage ?? '', headers });
  if (status !== response.status) Object.defineProperty(response, 'status', { value: status });
  return response;
}

/**
 * A web byte stream over `source` (the response, or the last of its decoders), with backpressure:
 * the socket is paused while one chunk waits unread. An abort or a connection that closes before
 * the body's end errors the stream; cancelling it closes the connection.
 */
function byteStream(res: Http.IncomingMessage, source: Readable, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let done = false;
  let onAbort = () => {};
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const fail = (error: unknown) => {
          if (done) return;
          done = true;
          signal?.removeEventListener('abort', onAbort);
          // An abort destroys the socket first (http.request's own listener): report the abort, as fetch does.
          controller.error(signal?.aborted ? signal.reason : error);
        };
        onAbort = () => {
          fail(signal!.reason);
          res.destroy();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        source.on('data', (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        });
        source.once('end', () => {
          if (done) return;
          done = true;
          signal?.removeEventListener('abort', onAbort);
          controller.close();
        });
        // The same words undici's fetch used for a connection closed mid-body, so users read what they did.
        const cut = () => fail(new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }));
        res.once('aborted', cut);
        source.once('error', (error: Error & { code?: string }) => (error.code === 'ECONNRESET' && error.message === 'aborted' ? cut() : fail(new TypeError('terminated', { cause: error }))));
        source.once('close', () => {
          if (!done && !res.complete) cut();
        });
      },
      pull() {
        source.resume();
      },
      cancel() {
        done = true;
        signal?.removeEventListener('abort', onAbort);
        res.destroy();
      },
    },
    { highWaterMark: 1 },
  );
}
