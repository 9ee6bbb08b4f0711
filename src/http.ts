/**
 * The HTTP transport: undici's `fetch` (the implementation behind Node's global `fetch`) with a
 * dispatcher whose own header and body timeouts are lifted, so that our silence limit
 * (`OPENAI_TIMEOUT_MS`) is the only one, and which honours `HTTPS_PROXY`, `HTTP_PROXY` and
 * `NO_PROXY` (undici `EnvHttpProxyAgent`).
 *
 * Node's global `fetch` would abandon a request after 300 s without response headers or between
 * body bytes (undici's defaults); reasoning models can think longer than that before the first
 * byte. Source: https://undici.nodejs.org/#/docs/api/Dispatcher (headersTimeout, bodyTimeout).
 *
 * undici is imported lazily, on the first request, to keep the agent's start-up fast.
 */

/** The subset of `fetch` the chat client uses; injectable for tests. */
export type FetchLike = (url: string, init: RequestInit & { dispatcher?: unknown }) => Promise<Response>;

let transport: Promise<FetchLike> | undefined;

/** The process-wide fetch with the lifted-timeout, proxy-aware dispatcher. Created once. */
export function defaultFetch(): Promise<FetchLike> {
  transport ??= import('undici').then(({ fetch, EnvHttpProxyAgent }) => {
    const dispatcher = new EnvHttpProxyAgent({ headersTimeout: 0, bodyTimeout: 0 });
    return ((url, init) => fetch(url, { ...(init as object), dispatcher } as never) as unknown as Promise<Response>) as FetchLike;
  });
  return transport;
}
