/**
 * The context window a self-hosted server reports for one model, asked lazily (before the first
 * prompt to that model, when neither `OPENAI_CONTEXT_WINDOW` nor the `/models` list gave one),
 * with a bounded wait, and cached per endpoint, the way the provider profile's
 * `contextWindowQuery` says:
 * - Ollama: `POST /api/show {"model"}` (https://github.com/ollama/ollama/blob/main/docs/api.md#show-model-information):
 *   `num_ctx` in its `parameters` text when the Modelfile sets it (the window the server really
 *   uses), else `model_info["<arch>.context_length"]` (the window the model was trained for).
 *   A `num_ctx` in the request's own `options` (`OPENAI_EXTRA_BODY`) wins over both: it is what
 *   each request asks the server to use.
 * - LM Studio: `GET /api/v0/models` (https://lmstudio.ai/docs/app/api/endpoints/rest):
 *   `loaded_context_length`, else `max_context_length`, of the model.
 * vLLM (`max_model_len`), llama.cpp and OpenRouter report theirs in `/models` already
 * (`model-catalog.ts`).
 */
import { defaultFetch, type FetchLike } from '../openai/http.js';
import type { ContextWindowQuery } from '../config/provider-profiles.js';
import { parseModels } from './model-catalog.js';

/** Bound of one look, in ms. */
export const SERVER_CONTEXT_TIMEOUT_MS = 2000;
/** How long a failed look is remembered before asking again, in ms. */
const RETRY_FAILED_AFTER_MS = 60_000;

const positiveInt = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The context window in an Ollama `/api/show` answer: `num_ctx` of `parameters` when set, else
 * the first `model_info` key ending in `.context_length`. `undefined` when neither is there.
 */
export function parseOllamaShow(body: unknown): number | undefined {
  if (!isRecord(body)) return undefined;
  const parameters = typeof body['parameters'] === 'string' ? body['parameters'] : '';
  const numCtx = /^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters)?.[1];
  if (numCtx && positiveInt(Number(numCtx))) return Number(numCtx);
  const info = isRecord(body['model_info']) ? body['model_info'] : {};
  for (const [key, value] of Object.entries(info)) if (key.endsWith('.context_length') && positiveInt(value)) return value as number;
  return undefined;
}

/** `num_ctx` of the request's `options` (from `OPENAI_EXTRA_BODY`), when a positive integer. */
export function requestedNumCtx(extraBody: Record<string, unknown> | undefined): number | undefined {
  const options = extraBody?.['options'];
  return isRecord(options) ? positiveInt(options['num_ctx']) : undefined;
}

/** What a look needs. */
export interface ServerContextOptions {
  /** How to ask (the profile's `contextWindowQuery`); `undefined`: the server is not asked. */
  query: ContextWindowQuery | undefined;
  /** The endpoint base, e.g. `http://127.0.0.1:11434/v1`; the native API is at its origin and path minus `/v1`. */
  baseUrl: string;
  /** Request headers (auth included), as the endpoint sends them. */
  headers: Record<string, string>;
  extraBody?: Record<string, unknown> | undefined;
  /** @defaultValue {@link SERVER_CONTEXT_TIMEOUT_MS} */
  timeoutMs?: number | undefined;
  /** @defaultValue `defaultFetch` of http.ts */
  fetch?: FetchLike | undefined;
}

/** One look, never rejecting: `undefined` on any failure or when the server does not say. */
async function look(model: string, options: ServerContextOptions): Promise<number | undefined> {
  const root = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? SERVER_CONTEXT_TIMEOUT_MS);
  try {
    const fetch = options.fetch ?? (await defaultFetch());
    const headers = { ...options.headers, accept: 'application/json' };
    if (options.query === 'ollama-show') {
      const response = await fetch(`${root}/api/show`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ model }), signal: controller.signal });
      if (!response.ok) return void (await response.body?.cancel().catch(() => undefined));
      return parseOllamaShow(JSON.parse(await response.text()));
    }
    const response = await fetch(`${root}/api/v0/models`, { method: 'GET', headers, signal: controller.signal });
    if (!response.ok) return void (await response.body?.cancel().catch(() => undefined));
    return parseModels(JSON.parse(await response.text())).find((entry) => entry.id === model)?.contextWindow;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A per-endpoint lookup `model → context window (tokens)`: `options.num_ctx` of the extra body
 * when set (Ollama), else the server's answer (see the module comment). Concurrent callers share
 * one request; an answer is cached for good, a failure for a minute. Never rejects; resolves
 * `undefined` at once when the profile has no `contextWindowQuery`.
 */
export function serverContextLookup(options: ServerContextOptions, now: () => number = Date.now): (model: string) => Promise<number | undefined> {
  const cache = new Map<string, { at: number; value: Promise<number | undefined> }>();
  return async (model) => {
    if (!options.query) return undefined;
    if (options.query === 'ollama-show') {
      const requested = requestedNumCtx(options.extraBody);
      if (requested) return requested;
    }
    const hit = cache.get(model);
    if (hit && (now() - hit.at < RETRY_FAILED_AFTER_MS || (await hit.value) !== undefined)) return hit.value;
    const value = look(model, options);
    cache.set(model, { at: now(), value });
    return value;
  };
}
