/**
 * Facts worth one more look after a request failed, gathered only then (never on the happy path):
 * - HTTP 404 at `<base>/chat/completions` while `<base>/v1/models` answers: the base URL lacks
 *   its `/v1` (Ollama, vLLM, LM Studio, llama.cpp and LiteLLM all serve the OpenAI API under
 *   `/v1`), so the words say "add /v1 to OPENAI_BASE_URL";
 * - HTTP 401/403 with no key configured: the endpoint needs one, rather than refusing one.
 */
import type { ChatClientOptions } from './chat-client.js';
import { buildChatRequestHeaders } from './chat-request.js';
import { ProviderHttpError, type ProviderError } from './errors.js';
import { defaultFetch } from './http.js';
import { describeProviderError, type ErrorContext } from './user-errors.js';

/** Bound of the `/v1/models` look, in ms: a server that just answered 404 answers this fast. */
const MISSING_V1_TIMEOUT_MS = 2000;

/** What the look needs from the client: where the key goes, and the transport. */
export type HintClient = Pick<ChatClientOptions, 'apiKey' | 'headers' | 'fetch' | 'userAgent'>;

/** Whether requests carry credentials: a key, or a header whose name says it holds one. */
export function sendsCredentials(client: HintClient): boolean {
  return Boolean(client.apiKey) || Object.keys(client.headers ?? {}).some((name) => /auth|key|token/i.test(name));
}

/**
 * The base URL with `/v1` added, when `chatUrl` (a `/chat/completions` URL) does not already end
 * its base in `/v1` and `GET <base>/v1/models` answers 2xx with a model list; else `undefined`.
 * Never rejects; bounded by {@link MISSING_V1_TIMEOUT_MS}.
 */
export async function missingV1(chatUrl: string, client: HintClient, timeoutMs = MISSING_V1_TIMEOUT_MS): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(chatUrl);
  } catch {
    return undefined;
  }
  // Only a Chat Completions URL can lack its /v1 (not a native one such as Ollama's /api/chat).
  if (!/\/chat\/completions\/?$/.test(url.pathname)) return undefined;
  const path = url.pathname.replace(/\/chat\/completions\/?$/, '').replace(/\/+$/, '');
  if (/\/v\d+[a-z]*$/i.test(path)) return undefined;
  const base = `${url.origin}${path}`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const { 'content-type': _json, ...headers } = buildChatRequestHeaders(client);
    const fetch = client.fetch ?? (await defaultFetch());
    const response = await fetch(`${base}/v1/models${url.search}`, {
      method: 'GET',
      headers: { ...headers, accept: 'application/json' },
      signal: controller.signal,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    const body: unknown = JSON.parse(await response.text());
    const list = body && typeof body === 'object' ? ((body as Record<string, unknown>)['data'] ?? (body as Record<string, unknown>)['models']) : undefined;
    return Array.isArray(list) ? `${base}/v1` : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * {@link describeProviderError} with the facts above looked up first: whether a key is sent,
 * and, after a 404 only, whether the base URL lacks `/v1`. Never rejects.
 */
export async function describeFailure(error: ProviderError, context: ErrorContext, client: HintClient): Promise<string> {
  const hasKey = sendsCredentials(client);
  const v1 = error instanceof ProviderHttpError && error.status === 404 ? await missingV1(error.url, client) : undefined;
  return describeProviderError(error, { ...context, hasKey, ...(v1 ? { missingV1: v1 } : {}) });
}
