/**
 * The HTTP transport: a `fetch`-shaped function (resolves a WHATWG `Response`) over Node's own
 * `node:http`/`node:https`, and the same request answered as status, headers and body chunks
 * (`nodeStream`, the chat client's: see `http-body.ts`), with proxies from the environment:
 * - no header or body timeout, so our silence limit (`OPENAI_TIMEOUT_MS`) is the only one.
 *   Node's global `fetch` (undici) abandons a request after 300 s without response headers or
 *   between body bytes (https://undici.nodejs.org/#/docs/api/Dispatcher, headersTimeout and
 *   bodyTimeout); reasoning models can think longer than that before the first byte. The one
 *   limit kept is 10 s to open a connection (`CONNECT_TIMEOUT_MS` in `http-agents.ts`, undici's default);
 * - `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` and `NO_PROXY` (either case) are read by
 *   `proxy-from-env`, and requests tunnel through the proxy with `CONNECT` by `https-proxy-agent`;
 * - redirects are not followed (an API endpoint answers; a redirect is reported as its HTTP
 *   status) and no compression is asked for.
 *
 * Why not undici (npm or Node's global `fetch`): speed work, listed with its figures in
 * ARCHITECTURE.md ("Speed work"): the agent on Node's `fetch` peaked 21 MiB higher (94 against
 * 72 MiB, which alone breaks the 80 MiB target of `npm run bench`) and spent 47% more CPU on a
 * 20,000-token answer; node:http uses Node's built-in C++ HTTP parser.
 *
 * A request whose kept-alive connection the server had closed (`ECONNRESET`/`EPIPE` before any
 * byte of the answer, on a reused socket) is sent again at once on a new connection, once, for
 * every caller ({@link closedBeforeAnswer}); it never reaches the callers' retry policies.
 *
 * Failures look like `fetch`'s: a request that gets no answer rejects with
 * `TypeError('fetch failed', { cause })` whose cause is the system error (`code` `ECONNREFUSED`,
 * `ENOTFOUND`, `CERT_HAS_EXPIRED`, …); an abort rejects (or errors the body) with the signal's
 * reason; a body cut short errors with `TypeError('terminated', { cause })`.
 */
import type * as Http from 'node:http';
import { getProxyForUrl } from 'proxy-from-env';
import { byteAnswer, headersOf, type ByteAnswer } from './http-body.js';
import { agentFor, freshAgent, limitConnect, load } from './http-agents.js';

/**
 * A request body written in pieces, with its length known up front (`content-length`): a body of
 * tens of MB (a prompt with embedded files) is never held whole as bytes. `JsonPieces` is one.
 */
interface ChunkedBody {
  /** Total length in bytes (UTF-8 for string chunks). */
  readonly byteLength: number;
  /** The body in order; strings are sent as UTF-8. */
  chunks(): Iterable<string | Uint8Array>;
}

/** What {@link FetchLike} takes: `fetch`'s `RequestInit`, whose body may also be a {@link ChunkedBody} (only {@link nodeFetch} takes that). */
export type FetchInit = Omit<RequestInit, 'body'> & { body?: RequestInit['body'] | ChunkedBody; dispatcher?: unknown };

/** The subset of `fetch` the clients use; injectable for tests. */
export type FetchLike = (url: string, init: FetchInit) => Promise<Response>;

const isChunked = (body: unknown): body is ChunkedBody => typeof body === 'object' && body !== null && typeof (body as ChunkedBody).chunks === 'function';

/** The process-wide transport. Async for the callers written against the earlier lazy one. */
export function defaultFetch(): Promise<FetchLike> {
  return Promise.resolve(nodeFetch);
}

/** Host names of this machine's loopback interface. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The proxy for `url` from the environment (`proxy-from-env`: `<scheme>_proxy`, `ALL_PROXY`,
 * `NO_PROXY`), or `''` for a direct connection. Loopback hosts always go direct (a proxy cannot
 * reach this machine's loopback, and local servers are found there), and only `http://` and
 * `https://` proxies are used: a SOCKS `ALL_PROXY` (common for `ssh -D`) is ignored rather than
 * spoken to with `CONNECT`.
 */
export function proxyFor(url: URL): string {
  if (LOOPBACK.test(url.hostname)) return '';
  const proxy = getProxyForUrl(url.href);
  return /^https?:\/\//i.test(proxy) ? proxy : '';
}

/** Lower-cased request headers from any `HeadersInit`. */
function headerRecord(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  if (typeof (init as Headers).forEach === 'function' && !Array.isArray(init))
    (init as Headers).forEach((value, name) => {
      out[name.toLowerCase()] = value;
    });
  else for (const [name, value] of Array.isArray(init) ? init : Object.entries(init)) out[name!.toLowerCase()] = String(value);
  return out;
}

const networkError = (cause: unknown) => new TypeError('fetch failed', { cause });

/**
 * `fetch(url, init)` over `node:http`/`node:https` (see the module comment). Supports the
 * method, string, byte or {@link ChunkedBody} body, headers and `signal` of `init`; `dispatcher` and `redirect` are
 * ignored (redirects are never followed). The response body is a byte stream delivered as the
 * socket reads it (no buffering).
 *
 * @throws TypeError `fetch failed` (cause: the system error) when no answer came
 * @throws the signal's reason when `init.signal` aborts first
 * @internal the WHATWG-shaped transport, checked against loopback servers (the agent's callers get it through defaultFetch).
 */
export async function nodeFetch(input: string, init: FetchInit = {}): Promise<Response> {
  const { response, method, signal } = await requestHead(input, init);
  return toResponse(response, method, signal);
}

/**
 * {@link nodeFetch} answering with a {@link ByteAnswer} instead of a `Response`: the same request,
 * failures and body rules, without building a WHATWG `Response` and `ReadableStream` (the chat
 * client's transport: it reads each body once, as chunks).
 *
 * @throws as {@link nodeFetch}
 */
export async function nodeStream(input: string, init: FetchInit = {}): Promise<ByteAnswer> {
  const { response, method, signal } = await requestHead(input, init);
  return byteAnswer(response, method, signal);
}

/** Sends the request of {@link nodeFetch}; resolves with the response head. */
async function requestHead(input: string, init: FetchInit): Promise<{ response: Http.IncomingMessage; method: string; signal: AbortSignal | undefined }> {
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  const url = new URL(input);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw networkError(new Error(`unsupported URL scheme ${url.protocol}`));
  const body = init.body ?? undefined;
  if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array) && !isChunked(body))
    throw new TypeError('nodeFetch: only string, byte and chunked bodies are supported');
  const m = await load();
  let agent: Http.Agent;
  try {
    agent = await agentFor(m, url, proxyFor(url));
  } catch (error) {
    throw networkError(error);
  }
  const headers = headerRecord(init.headers);
  headers['accept'] ??= '*/*';
  if (body !== undefined) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  // A socket write that must wait (backpressure) is waited for, chunk by chunk; an error of the
  // request ends the writing (and is reported by the request's own 'error' below).
  const send = (request: Http.ClientRequest): void => {
    if (!isChunked(body)) return void request.end(body);
    const chunks = body.chunks()[Symbol.iterator]();
    const next = (): void => {
      for (let step = chunks.next(); !step.done; step = chunks.next()) {
        if (request.destroyed) return;
        if (!request.write(step.value)) return void request.once('drain', next);
      }
      request.end();
    };
    next();
  };
  const method = (init.method ?? 'GET').toUpperCase();
  const once = (via: Http.Agent) =>
    new Promise<Http.IncomingMessage>((resolve, reject) => {
      const secure = url.protocol === 'https:';
      const request = (secure ? m.https : m.http).request({
        protocol: url.protocol,
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        agent: via,
        ...(signal ? { signal } : {}),
      });
      request.once('socket', (socket) => limitConnect(socket, url.host));
      request.once('response', resolve);
      request.once('error', (error) => reject(signal?.aborted ? signal.reason : Object.assign(networkError(error), { [REUSED]: request.reusedSocket })));
      send(request);
    });
  let response: Http.IncomingMessage;
  try {
    response = await once(agent);
  } catch (error) {
    if (!closedBeforeAnswer(error) || signal?.aborted) throw error;
    // The server closed a kept-alive connection as we reused it (llama-server closes after each
    // streamed answer): nothing of the answer came, so the same request goes once, at once, on a
    // new connection. A second failure is the caller's to retry or report.
    response = await once(await freshAgent(m, url, proxyFor(url)));
  }
  return { response, method, signal };
}

/** Marks a network error whose request went on a socket the agent reused (Node's `request.reusedSocket`). */
const REUSED = Symbol('reusedSocket');

/**
 * Whether a request failed because the server had closed the kept-alive connection it was sent
 * on: `ECONNRESET` or `EPIPE` (Node says "socket hang up" with `ECONNRESET`) before any byte of
 * the answer, on a reused socket. Node documents this race and this retry
 * (https://nodejs.org/api/http.html#requestreusedsocket).
 */
function closedBeforeAnswer(error: unknown): boolean {
  if (!(error instanceof TypeError) || (error as { [REUSED]?: boolean })[REUSED] !== true) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** The `Response` for a response head; its body streams as bytes arrive (see `http-body.ts`). */
function toResponse(res: Http.IncomingMessage, method: string, signal: AbortSignal | undefined): Response {
  const { status, body: chunks } = byteAnswer(res, method, signal);
  const body = chunks && webStream(chunks);
  // `Response` only accepts 200–599; a server's 600–999 keeps its number for the caller.
  const response = new Response(body, {
    status: status >= 200 && status <= 599 ? status : 599,
    statusText: res.statusMessage ?? '',
    headers: headersOf(res.rawHeaders),
  });
  if (status !== response.status) Object.defineProperty(response, 'status', { value: status });
  return response;
}

/** A web byte stream reading `body` on demand; cancelling it ends the reading (closing the connection). */
function webStream(body: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const read = await chunks.next();
        if (read.done) controller.close();
        else controller.enqueue(read.value);
      },
      async cancel() {
        await chunks.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
