/**
 * One `GET` for `fetch_url`: `http:` and `https:` only; redirects followed by hand (each hop's
 * scheme and address checked again); link-local and metadata addresses, and private ones the
 * policy does not allow, refused before a socket opens (`address-guard.ts`: the URL's literal,
 * and the DNS answer at connect time); the proxy settings
 * the chat client honours (`proxyFor` in `openai/http.ts`: `HTTPS_PROXY`, `HTTP_PROXY`,
 * `NO_PROXY`…); one time limit for the whole fetch, redirects and body included; the body read up
 * to a byte cap (decompressed), then the connection closed. Every failure is a result in plain
 * words, never a throw, except the turn's cancel, which rejects with the signal's reason.
 */
import type * as Http from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { proxyFor } from '../../openai/http.js';
import {
  type AddressPolicy,
  addressRefusal,
  ForbiddenAddressError,
  guardedLookup,
  hostRefusal,
  OPEN_POLICY,
  resolveAll,
  type LookupFunction,
} from './address-guard.js';

/** What `fetch_url` reads: HTML (made Markdown), JSON and other text (given as is). */
export type TextKind = 'html' | 'json' | 'text';

/**
 * The kind of a `content-type` value, or `undefined` for a type that is not text (images, PDF,
 * archives…). A missing type counts as text (the body is checked for NUL bytes later).
 * @internal the content-type rule is checked on its own.
 */
export function textKind(contentType: string): TextKind | undefined {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === '') return 'text';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (
    type.startsWith('text/') ||
    type.endsWith('+xml') ||
    ['application/xml', 'application/javascript', 'application/x-yaml', 'application/yaml', 'application/toml', 'application/x-sh'].includes(type)
  )
    return 'text';
  return undefined;
}

/** Options of {@link httpGet}. */
export interface GetOptions {
  /** The turn's signal: aborting rejects with its reason. */
  signal: AbortSignal;
  /** Limit of the whole fetch (connect, redirects, body), in ms. */
  timeoutMs: number;
  /** Most body bytes kept (after decompression) for a kind; more is cut and `truncated` set. */
  maxBytes: (kind: TextKind) => number;
  /** Most redirects followed. @defaultValue 5 */
  maxRedirects?: number;
  /** DNS resolution (tests); its answers are checked by the guard. @defaultValue `dns.lookup` */
  lookup?: LookupFunction;
  /**
   * Whether a redirect may go on to `url`, a host other than the first URL's (the one the user
   * approved). `false` ends the fetch with a result naming the new URL, so the model can ask for
   * it, and the user is asked about that host. @defaultValue every redirect is followed
   */
  mayFollow?: (url: URL) => boolean;
  /** Which private addresses may be reached. @defaultValue every one (the user's own editor) */
  policy?: AddressPolicy;
}

/** The outcome of {@link httpGet}. `url` is the last URL asked (after redirects). */
export type GetResult =
  | { ok: true; url: string; status: number; contentType: string; kind: TextKind; body: Buffer; truncated: boolean }
  | { ok: false; url: string; reason: string; status?: number };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'openai-acp (fetch_url)';

/** GETs `input`, following redirects. See the module comment. */
export async function httpGet(input: string, options: GetOptions): Promise<GetResult> {
  const { signal } = options;
  signal.throwIfAborted();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const both = AbortSignal.any([signal, timeout]);
  let url = input;
  let first: URL | undefined;
  for (let hop = 0; ; hop++) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { ok: false, url, reason: 'it is not a valid URL' };
    }
    first ??= parsed;
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      return { ok: false, url, reason: `only http and https URLs are fetched, not ${parsed.protocol.replace(/:$/, '')}` };
    const refused = hostRefusal(parsed.hostname, options.policy);
    if (refused) return { ok: false, url, reason: refused.message };
    let response: Http.IncomingMessage;
    try {
      response = await request(parsed, both, options.lookup, options.policy ?? OPEN_POLICY);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      return { ok: false, url, reason: timeout.aborted ? timedOut(options.timeoutMs) : failureWords(error, parsed.host) };
    }
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (REDIRECTS.has(status) && location) {
      response.destroy();
      if (hop >= (options.maxRedirects ?? 5)) return { ok: false, url, status, reason: `more than ${options.maxRedirects ?? 5} redirects` };
      let next: URL;
      try {
        next = new URL(location, parsed);
      } catch {
        return { ok: false, url, status, reason: `it redirects to ${location}, which is not a valid URL` };
      }
      if (next.host !== first.host && !hostRefusal(next.hostname, options.policy) && options.mayFollow && !options.mayFollow(next)) {
        return {
          ok: false,
          url,
          status,
          reason: `it redirects to ${next.href}, on another host that was not approved: call fetch_url with that URL to fetch it (the user is asked about that host)`,
        };
      }
      url = next.href;
      continue;
    }
    if (status < 200 || status > 299) {
      response.destroy();
      return { ok: false, url, status, reason: `HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}` };
    }
    const contentType = response.headers['content-type'] ?? '';
    const kind = textKind(contentType);
    if (!kind) {
      response.destroy();
      return {
        ok: false,
        url,
        status,
        reason: `its content type is ${contentType.split(';')[0]!.trim()}, which is not text (fetch_url reads HTML, JSON and text only)`,
      };
    }
    try {
      const { body, truncated } = await readCapped(decoded(response), options.maxBytes(kind), both);
      response.destroy();
      if (contentType === '' && body.includes(0)) return { ok: false, url, status, reason: 'it has no content type and holds binary data' };
      return { ok: true, url, status, contentType, kind, body, truncated };
    } catch (error) {
      response.destroy();
      if (signal.aborted) throw signal.reason;
      return { ok: false, url, status, reason: timeout.aborted ? timedOut(options.timeoutMs) : `the answer broke off: ${(error as Error).message}` };
    }
  }
}

const timedOut = (ms: number) => `no complete answer within ${ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`}`;

/** Plain words for a failed request. */
function failureWords(error: unknown, host: string): string {
  if (error instanceof ForbiddenAddressError) return error.message;
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EFORBIDDENADDR') return (error as Error).message;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host ${host} could not be found (DNS)`;
  if (code === 'ECONNREFUSED') return `${host} refused the connection`;
  if (code === 'ECONNRESET') return `${host} closed the connection`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${host} cannot be reached from here`;
  if (typeof code === 'string' && /CERT|SSL|TLS/.test(code)) return `its TLS certificate was not accepted (${code})`;
  return `the request failed: ${(error as Error)?.message ?? String(error)}`;
}

/** Sends the GET and resolves with the response head. */
async function request(url: URL, signal: AbortSignal, lookup: LookupFunction | undefined, policy: AddressPolicy): Promise<Http.IncomingMessage> {
  const secure = url.protocol === 'https:';
  const { request: send } = secure ? await import('node:https') : await import('node:http');
  const proxy = proxyFor(url);
  let agent: Http.Agent | false = false;
  if (proxy) {
    // The proxy resolves the name: check what it resolves to here as well as we can.
    const addresses = await resolveAll(url.hostname, lookup);
    for (const address of addresses ?? []) {
      const kind = addressRefusal(address, policy);
      if (kind) throw new ForbiddenAddressError(address, url.hostname, kind);
    }
    const { HttpsProxyAgent } = await import('https-proxy-agent');
    agent = new HttpsProxyAgent(proxy) as unknown as Http.Agent;
  }
  return new Promise((resolve, reject) => {
    const req = send({
      protocol: url.protocol,
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { accept: 'text/html, application/json;q=0.9, text/*;q=0.8, */*;q=0.1', 'accept-encoding': 'gzip, deflate, br', 'user-agent': USER_AGENT },
      agent,
      // Through a proxy (the operator's setting) only the proxy is connected to: it is checked for link-local and metadata addresses alone.
      lookup: guardedLookup(lookup, proxy ? OPEN_POLICY : policy) as never,
      signal,
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end();
  });
}

/** The body decompressed per `content-encoding` (gzip, deflate, br); other encodings as sent. */
function decoded(response: Http.IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const unzip =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!unzip) return response;
  response.on('error', (error) => unzip.destroy(error));
  return response.pipe(unzip);
}

/** Reads at most `max` bytes of `stream`, then stops it. Rejects on a stream error or abort. */
async function readCapped(stream: Readable, max: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  const onAbort = () => stream.destroy(signal.reason as Error);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of stream) {
      const bytes = chunk as Buffer;
      if (size + bytes.length > max) {
        chunks.push(bytes.subarray(0, max - size));
        stream.destroy();
        return { body: Buffer.concat(chunks), truncated: true };
      }
      chunks.push(bytes);
      size += bytes.length;
    }
    return { body: Buffer.concat(chunks), truncated: false };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
