/**
 * One bounded look at Ollama's native API (`/api/show`, `/api/ps`): the status and the parsed
 * JSON body, or `not-served` when the server has no such path (a gateway exposing only `/v1`).
 *
 * Source: https://github.com/ollama/ollama/blob/main/docs/api.md (errors: `{"error": "…"}`).
 */
import { MAX_JSON_ANSWER_BYTES, readBodyUpTo } from '../openai/body-limits.js';
import { defaultFetch, type FetchLike } from '../openai/http.js';
import { SERVER_CONTEXT_TIMEOUT_MS } from './server-context.js';

/** An answer of the native API: its HTTP status and its body parsed (`undefined`: not JSON, or over the size bound). */
export interface OllamaAnswer {
  status: number;
  body: unknown;
}

/**
 * Asks `url` once, bounded by `timeoutMs` (default {@link SERVER_CONTEXT_TIMEOUT_MS}) and by
 * `MAX_JSON_ANSWER_BYTES` of body. A 404, 405 or 501 that is not Ollama's own JSON error is
 * `not-served`. Never rejects: a failure is `undefined`.
 */
export async function ollamaRequest(
  url: string,
  method: 'GET' | 'POST',
  body: unknown,
  options: { headers: Record<string, string>; fetch?: FetchLike | undefined; timeoutMs?: number | undefined },
): Promise<OllamaAnswer | 'not-served' | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? SERVER_CONTEXT_TIMEOUT_MS);
  try {
    const fetch = options.fetch ?? (await defaultFetch());
    const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(url, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: controller.signal,
    });
    const { text, cut } = await readBodyUpTo(response, MAX_JSON_ANSWER_BYTES);
    let parsed: unknown;
    try {
      parsed = cut ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const ollamaError = typeof parsed === 'object' && parsed !== null && typeof (parsed as Record<string, unknown>)['error'] === 'string';
    if ([404, 405, 501].includes(response.status) && !ollamaError) return 'not-served';
    return { status: response.status, body: parsed };
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
