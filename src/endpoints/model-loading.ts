/**
 * Whether a self-hosted server has a model in memory yet, asked the way its provider profile says
 * (`ProviderProfile.loadingQuery`), for the user waiting on a first answer (`loop/loading-notice.ts`)
 * and for `doctor`:
 * - llama.cpp `llama-server`: `GET /health` answers 503 `{"error":{"code":503,"message":"Loading model"}}`
 *   while it loads the model it was started with, 200 once it serves
 *   (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md#get-health);
 * - Ollama: `GET /api/ps` lists the models in memory; one it does not list yet is loaded at its
 *   first request, which waits meanwhile (https://github.com/ollama/ollama/blob/main/docs/api.md#list-running-models);
 * - LM Studio: `GET /api/v0/models` gives each model's `state`, `loaded` or `not-loaded` (it loads
 *   one just in time for its first request; https://lmstudio.ai/docs/app/api/endpoints/rest).
 * Each look is one GET bounded by {@link LOAD_LOOK_TIMEOUT_MS}; never rejects.
 */
import type { LoadingQuery } from '../config/provider-profiles.js';
import { readBodyUpTo } from '../openai/body-limits.js';
import { defaultFetch, type FetchLike } from '../openai/http.js';
import { parseOllamaPs } from './ollama-ps.js';
import { isRecord, parseJsonOrUndefined } from '../shared/json-value.js';

/** Bound of one look, in ms. */
const LOAD_LOOK_TIMEOUT_MS = 2000;
/** Longest answer read, in bytes (a model list of a busy LM Studio is a few KB). */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** What the server says of a model. */
export interface ModelLoadState {
  /** True when the model is in memory (or the server serves). */
  loaded: boolean;
  /** What showed it, for the user, e.g. `GET /health answered 503 "Loading model"`. */
  said: string;
}

/**
 * The state a llama.cpp `/health` answer shows: 200 serves; 503 with a message is loading.
 * @internal a pure reader the tests check on the server's recorded answers.
 */
export function llamaCppHealthState(status: number, body: string): ModelLoadState | undefined {
  if (status === 200) return { loaded: true, said: 'GET /health answered 200' };
  if (status !== 503) return undefined;
  const parsed = parseJsonOrUndefined(body);
  const error = isRecord(parsed) && isRecord(parsed['error']) ? parsed['error'] : undefined;
  const message = typeof error?.['message'] === 'string' ? error['message'] : body.trim().slice(0, 200);
  return { loaded: false, said: `GET /health answered 503${message ? ` "${message}"` : ''}` };
}

/**
 * The state of `model` in an Ollama `/api/ps` answer; `undefined` when the body is not that shape.
 * @internal a pure reader the tests check on its own.
 */
export function ollamaPsState(body: unknown, model: string): ModelLoadState | undefined {
  if (!isRecord(body) || !Array.isArray(body['models'])) return undefined;
  return parseOllamaPs(body, model) ? { loaded: true, said: 'GET /api/ps lists it' } : { loaded: false, said: 'GET /api/ps does not list it yet' };
}

/**
 * The state of `model` in an LM Studio `/api/v0/models` answer; `undefined` when the model or its `state` is not there.
 * @internal a pure reader the tests check on its own.
 */
export function lmStudioState(body: unknown, model: string): ModelLoadState | undefined {
  const list = isRecord(body) && Array.isArray(body['data']) ? body['data'] : [];
  const entry = list.find((item): item is Record<string, unknown> => isRecord(item) && item['id'] === model);
  const state = entry?.['state'];
  if (typeof state !== 'string') return undefined;
  return { loaded: state === 'loaded', said: `GET /api/v0/models says its state is "${state}"` };
}

/** What a look needs. */
export interface LoadLookOptions {
  /** Request headers (the endpoint's auth). */
  headers?: Record<string, string> | undefined;
  /** @defaultValue `defaultFetch` of http.ts */
  fetch?: FetchLike | undefined;
  /** Stops the look (the turn's cancel). */
  signal?: AbortSignal | undefined;
  /** @defaultValue {@link LOAD_LOOK_TIMEOUT_MS} */
  timeoutMs?: number | undefined;
}

/** One GET, never rejecting: the status and (bounded) text, or `undefined`. */
async function get(url: string, options: LoadLookOptions): Promise<{ status: number; text: string } | undefined> {
  if (options.signal?.aborted) return undefined;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? LOAD_LOOK_TIMEOUT_MS);
  const stop = () => controller.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    const fetch = options.fetch ?? (await defaultFetch());
    const response = await fetch(url, { method: 'GET', headers: { ...options.headers, accept: 'application/json' }, signal: controller.signal });
    const { text, cut } = await readBodyUpTo(response, MAX_ANSWER_BYTES);
    return cut ? undefined : { status: response.status, text };
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
}

/**
 * Asks the server at `baseUrl` (e.g. `http://127.0.0.1:8080/v1`) whether `model` is loaded, the
 * way `query` says. Never rejects; `undefined` when the server does not say (or is not asked).
 */
export async function modelLoadState(
  query: LoadingQuery | undefined,
  baseUrl: string,
  model: string,
  options: LoadLookOptions = {},
): Promise<ModelLoadState | undefined> {
  const root = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  switch (query) {
    case 'llamacpp-health': {
      const answer = await get(`${root}/health`, options);
      return answer && llamaCppHealthState(answer.status, answer.text);
    }
    case 'ollama-ps': {
      const answer = await get(`${root}/api/ps`, options);
      return answer?.status === 200 ? ollamaPsState(parseJsonOrUndefined(answer.text), model) : undefined;
    }
    case 'lmstudio-models': {
      const answer = await get(`${root}/api/v0/models`, options);
      return answer?.status === 200 ? lmStudioState(parseJsonOrUndefined(answer.text), model) : undefined;
    }
    default:
      return undefined;
  }
}
