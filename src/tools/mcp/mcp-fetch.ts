/**
 * The `fetch` the MCP SDK's HTTP and SSE transports use under `openai-acp serve`: `node:http(s)`
 * with the address guard as its DNS lookup (`fetch/address-guard.ts`), so every connection the
 * transport opens, each redirect it follows included, is refused before a socket opens when it
 * would reach a link-local or metadata address, or a private one the operator did not allow. The
 * headers a client chose for its server go out only on a connection that passed. Redirects are
 * not followed here: the SDK follows those it accepts (same origin) through this same function.
 * Its connections are pooled by its own agents only: a socket of Node's global pool, opened
 * without the guard, is never reused (the pool does not tell lookups apart).
 *
 * Source: `FetchLike` of `@modelcontextprotocol/sdk` 1.32 (`shared/transport.d.ts`), the
 * transports' `fetch` option.
 */
import * as Http from 'node:http';
import * as Https from 'node:https';
import { Readable } from 'node:stream';
import { type AddressPolicy, guardedLookup, hostRefusal, type LookupFunction } from '../fetch/address-guard.js';

/** The SDK's `FetchLike`. */
export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Statuses whose answer has no body (the `Response` constructor refuses one). */
const NO_BODY = new Set([204, 205, 304]);

/**
 * A `fetch` for `policy`: rejects with the guard's `ForbiddenAddressError` (code
 * `EFORBIDDENADDR`) for a refused host or DNS answer, with the request's error otherwise; never
 * follows a redirect (the 3xx answer is given as is). `lookup` resolves names (tests).
 */
export function guardedFetch(policy: AddressPolicy, lookup?: LookupFunction): GuardedFetch {
  const guarded = guardedLookup(lookup, policy) as never;
  const agents = { http: new Http.Agent({ keepAlive: true, lookup: guarded }), https: new Https.Agent({ keepAlive: true, lookup: guarded }) };
  return async (input, init = {}) => {
    const url = new URL(String(input));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`only http and https URLs are reached, not ${url.protocol}`);
    const refused = hostRefusal(url.hostname, policy);
    if (refused) throw refused;
    const secure = url.protocol === 'https:';
    const request = secure ? Https.request : Http.request;
    const method = (init.method ?? 'GET').toUpperCase();
    const body = init.body == null ? undefined : typeof init.body === 'string' ? init.body : Buffer.from(await new Response(init.body).arrayBuffer());
    return new Promise<Response>((resolve, reject) => {
      const req = request(url, {
        method,
        headers: Object.fromEntries(new Headers(init.headers)),
        agent: secure ? agents.https : agents.http,
        lookup: guarded,
        ...(init.signal ? { signal: init.signal } : {}),
      });
      req.once('response', (res: Http.IncomingMessage) => {
        const headers = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const status = res.statusCode ?? 502;
        const empty = NO_BODY.has(status) || method === 'HEAD';
        if (empty) res.resume();
        resolve(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage ?? '', headers }));
      });
      req.once('error', reject);
      req.end(body);
    });
  };
}
