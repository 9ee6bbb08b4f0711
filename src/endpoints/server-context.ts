/**
 * The context window a self-hosted server runs a model with (its runtime window) and the one the
 * model was trained for, asked lazily and cached per endpoint. Which servers are asked, and how,
 * is profile data (`ProviderProfile.contextWindowQuery`):
 * - Ollama: `GET /api/ps` `context_length` of the loaded model (`ollama-ps.ts`) is the window; it
 *   wins over `POST /api/show` (https://github.com/ollama/ollama/blob/main/docs/api.md#show-model-information):
 *   `model_info["<arch>.context_length"]` is the trained window, an upper bound only.
 *   When the model is not loaded yet, it is loaded (`POST /api/generate {"model"}` with no prompt
 *   loads a model, per the same API docs) and `/api/ps` is read again. Why load rather than
 *   guess: Ollama picks the window at load from the VRAM (4k below 24 GiB, 32k up to 48 GiB,
 *   256k above; docs/context-length.mdx), `OLLAMA_CONTEXT_LENGTH` or a Modelfile, none of which
 *   the agent can see, and the first prompt needs the model loaded anyway: the load moves from
 *   the first prompt to session start instead of being added. Only when that fails (an Ollama
 *   without `context_length` in `/api/ps`, a load error or one over {@link OLLAMA_LOAD_TIMEOUT_MS})
 *   is the window a Modelfile's `num_ctx`, else Ollama's smallest documented default,
 *   {@link OLLAMA_DEFAULT_CONTEXT} (never more than the trained window): too small a guess only
 *   prunes early, too large a one overflows (older Ollama even cut the prompt silently, ollama#18107).
 *   A `num_ctx` in the request's own `options` (`OPENAI_EXTRA_BODY`) wins over all: it is what
 *   each request asks the server to use.
 * - LM Studio: `GET /api/v0/models` (https://lmstudio.ai/docs/app/api/endpoints/rest):
 *   `loaded_context_length` (runtime) and `max_context_length` (trained) of the model.
 * - llama.cpp `llama-server`: `GET /props` `default_generation_settings.n_ctx`, the window of one
 *   slot (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md#get-props-get-server-global-properties).
 * vLLM (`max_model_len`) and OpenRouter report theirs in `/models` already (`model-catalog.ts`).
 */
import { defaultFetch, type FetchLike } from '../openai/http.js';
import { MAX_JSON_ANSWER_BYTES, readBodyUpTo } from '../openai/body-limits.js';
import type { ContextWindowQuery } from '../config/provider-profiles.js';
import { parseOllamaPs } from './ollama-ps.js';
import { isRecord, positiveInt } from '../shared/json-value.js';

/** Bound of one look (one short request), in ms. */
export const SERVER_CONTEXT_TIMEOUT_MS = 2000;
/** Bound of loading an Ollama model to read its window, in ms: Ollama's own default load timeout (`OLLAMA_LOAD_TIMEOUT`, 5 min). */
const OLLAMA_LOAD_TIMEOUT_MS = 300_000;
/**
 * The window assumed for Ollama when it does not say: its smallest documented default (below 24 GiB of VRAM), in tokens.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const OLLAMA_DEFAULT_CONTEXT = 4096;
/** How long a failed or assumed look is kept before asking again, in ms. */
const RETRY_FAILED_AFTER_MS = 60_000;

/** What a server says about a model's window, in tokens. */
export interface ServerWindow {
  /** The window the server runs the model with; absent when it does not say. */
  runtime?: number;
  /** The window the model was trained for (an upper bound of `runtime`); absent when unknown. */
  trained?: number;
  /** True when `runtime` was assumed ({@link OLLAMA_DEFAULT_CONTEXT}), not reported. */
  assumed?: boolean;
  /**
   * Whether the server's chat template for the model takes tools: `false` when the server says
   * it does not (llama.cpp `/props` `chat_template_caps.supports_tools`); absent when it does not say.
   */
  supportsTools?: boolean;
  /**
   * The server's chat template for the model, as text (llama.cpp `/props` `chat_template`, Ollama
   * `/api/show` `template`): it names the family of tool calls the model writes. Absent when not said.
   */
  chatTemplate?: string;
  /** Requests the server serves at once, each in a slot with its own prompt cache (llama.cpp `/props` `total_slots`); absent when it does not say. */
  slots?: number;
}

/**
 * The windows in an Ollama `/api/show` answer: `numCtx`, the `num_ctx` of its `parameters` text
 * (a Modelfile setting), and `trained`, the first `model_info` key ending in `.context_length`.
 * Either is absent when not there; `undefined` when the body is not an object.
 * @internal a pure reader checked on recorded server answers.
 */
export function parseOllamaShow(body: unknown): { numCtx?: number; trained?: number } | undefined {
  if (!isRecord(body)) return undefined;
  const found: { numCtx?: number; trained?: number } = {};
  const parameters = typeof body['parameters'] === 'string' ? body['parameters'] : '';
  const numCtx = positiveInt(Number(/^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters)?.[1]));
  if (numCtx) found.numCtx = numCtx;
  const info = isRecord(body['model_info']) ? body['model_info'] : {};
  for (const [key, value] of Object.entries(info)) {
    if (key.endsWith('.context_length') && positiveInt(value)) {
      found.trained = value as number;
      break;
    }
  }
  return found;
}

/**
 * `default_generation_settings.n_ctx` of a llama.cpp `/props` answer (else a top-level `n_ctx`), when a positive integer.
 * @internal a pure reader checked on recorded server answers.
 */
export function parseLlamaCppProps(body: unknown): number | undefined {
  if (!isRecord(body)) return undefined;
  const settings = isRecord(body['default_generation_settings']) ? body['default_generation_settings'] : {};
  return positiveInt(settings['n_ctx']) ?? positiveInt(body['n_ctx']);
}

/**
 * `chat_template_caps.supports_tools` of a llama.cpp `/props` answer: false for a template that
 * cannot take tools (Gemma 3's own: llama-server then drops the request's `tools` and the model
 * writes calls as text); `undefined` when absent or not a boolean.
 * @internal a pure reader checked on recorded server answers.
 */
export function parseLlamaCppToolSupport(body: unknown): boolean | undefined {
  const caps = isRecord(body) && isRecord(body['chat_template_caps']) ? body['chat_template_caps'] : {};
  return typeof caps['supports_tools'] === 'boolean' ? caps['supports_tools'] : undefined;
}

/**
 * The runtime and trained windows of `model` in an LM Studio `/api/v0/models` answer.
 * @internal a pure reader checked on recorded server answers.
 */
export function parseLmStudioModels(body: unknown, model: string): ServerWindow {
  const list = isRecord(body) && Array.isArray(body['data']) ? body['data'] : [];
  const entry = list.find((item): item is Record<string, unknown> => isRecord(item) && item['id'] === model);
  const window: ServerWindow = {};
  const runtime = positiveInt(entry?.['loaded_context_length']);
  const trained = positiveInt(entry?.['max_context_length']);
  if (runtime) window.runtime = runtime;
  if (trained) window.trained = trained;
  return window;
}

/** `num_ctx` of the request's `options` (from `OPENAI_EXTRA_BODY`), when a positive integer. */
export function requestedNumCtx(extraBody: Record<string, unknown> | undefined): number | undefined {
  const options = extraBody?.['options'];
  return isRecord(options) ? positiveInt(options['num_ctx']) : undefined;
}

/** What a look needs. */
export interface ServerContextOptions {
  /** How this server is asked (the profile's `contextWindowQuery`); `undefined`: it is not. */
  query: ContextWindowQuery | undefined;
  /** The endpoint base, e.g. `http://127.0.0.1:11434/v1`; the native API is at its origin and path minus `/v1`. */
  baseUrl: string;
  /** Request headers (auth included), as the endpoint sends them. */
  headers: Record<string, string>;
  extraBody?: Record<string, unknown> | undefined;
  /** @defaultValue {@link SERVER_CONTEXT_TIMEOUT_MS} */
  timeoutMs?: number | undefined;
  /** @defaultValue {@link OLLAMA_LOAD_TIMEOUT_MS} */
  loadTimeoutMs?: number | undefined;
  /** @defaultValue `defaultFetch` of http.ts */
  fetch?: FetchLike | undefined;
}

/** One JSON request, never rejecting: the parsed body of a 2xx answer, else `undefined`. */
async function askJson(options: ServerContextOptions, url: string, body: unknown, timeoutMs: number): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const fetch = options.fetch ?? (await defaultFetch());
    const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: controller.signal,
    });
    if (!response.ok || /event-stream/i.test(response.headers.get('content-type') ?? '')) return void (await response.body?.cancel().catch(() => undefined));
    // Read no further than a report can be (Ollama's /api/show with a long license is well under it).
    const { text, cut } = await readBodyUpTo(response, MAX_JSON_ANSWER_BYTES);
    return cut ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

async function lookOllama(model: string, options: ServerContextOptions, root: string): Promise<ServerWindow> {
  const short = options.timeoutMs ?? SERVER_CONTEXT_TIMEOUT_MS;
  const [ps, show] = await Promise.all([askJson(options, `${root}/api/ps`, undefined, short), askJson(options, `${root}/api/show`, { model }, short)]);
  const shown = parseOllamaShow(show);
  const window: ServerWindow = shown?.trained ? { trained: shown.trained } : {};
  if (isRecord(show) && typeof show['template'] === 'string' && show['template']) window.chatTemplate = show['template'];
  const requested = requestedNumCtx(options.extraBody);
  if (requested) return { ...window, runtime: requested };
  let loaded = parseOllamaPs(ps, model);
  // Not loaded yet, on a server that lists loaded models and knows this one: load it, then read again.
  if (!loaded && isRecord(ps) && shown) {
    await askJson(options, `${root}/api/generate`, { model }, options.loadTimeoutMs ?? OLLAMA_LOAD_TIMEOUT_MS);
    loaded = parseOllamaPs(await askJson(options, `${root}/api/ps`, undefined, short), model);
  }
  if (loaded?.contextLength) return { ...window, runtime: loaded.contextLength };
  if (shown?.numCtx) return { ...window, runtime: shown.numCtx };
  if (shown) return { ...window, runtime: Math.min(OLLAMA_DEFAULT_CONTEXT, window.trained ?? OLLAMA_DEFAULT_CONTEXT), assumed: true };
  return window;
}

/** One look, never rejecting: `{}` on any failure or when the server does not say. */
async function look(model: string, options: ServerContextOptions): Promise<ServerWindow> {
  const root = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const short = options.timeoutMs ?? SERVER_CONTEXT_TIMEOUT_MS;
  switch (options.query) {
    case 'ollama-ps':
      return lookOllama(model, options, root);
    case 'lmstudio-models':
      return parseLmStudioModels(await askJson(options, `${root}/api/v0/models`, undefined, short), model);
    case 'llamacpp-props': {
      const props = await askJson(options, `${root}/props`, undefined, short);
      const runtime = parseLlamaCppProps(props);
      const supportsTools = parseLlamaCppToolSupport(props);
      const slots = isRecord(props) ? positiveInt(props['total_slots']) : undefined;
      const chatTemplate = isRecord(props) && typeof props['chat_template'] === 'string' && props['chat_template'] ? props['chat_template'] : undefined;
      return {
        ...(runtime ? { runtime } : {}),
        ...(supportsTools !== undefined ? { supportsTools } : {}),
        ...(slots ? { slots } : {}),
        ...(chatTemplate ? { chatTemplate } : {}),
      };
    }
    default:
      return {};
  }
}

/**
 * A per-endpoint lookup `model → ServerWindow` (see the module comment). Concurrent callers share
 * one look; an answer with a reported runtime window is kept for good, any other (failed, trained
 * window only, assumed) for a minute, then asked again. Never rejects; resolves `{}` at once when the server is not asked.
 */
export function serverWindowLookup(options: ServerContextOptions, now: () => number = Date.now): (model: string) => Promise<ServerWindow> {
  const cache = new Map<string, { at: number; value: Promise<ServerWindow> }>();
  return async (model) => {
    if (!options.query) return {};
    const hit = cache.get(model);
    if (hit) {
      if (now() - hit.at < RETRY_FAILED_AFTER_MS) return hit.value;
      const known = await hit.value;
      if (known.runtime !== undefined && !known.assumed) return known;
    }
    const value = look(model, options);
    cache.set(model, { at: now(), value });
    return value;
  };
}
