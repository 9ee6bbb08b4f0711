/**
 * The model list: `GET {baseUrl}/models`, parsed from whichever shape the endpoint speaks, and a
 * per-process catalog that adds the configured fallbacks.
 *
 * Shapes read (all optional extras; only `id` is required):
 * - OpenAI `{object: "list", data: [{id, object, created, owned_by}]}`
 *   (https://platform.openai.com/docs/api-reference/models/list); also Ollama's `/v1/models`.
 * - OpenRouter `data[].name` and `data[].context_length` (https://openrouter.ai/docs/api-reference/list-available-models).
 * - vLLM `data[].max_model_len`.
 * - LM Studio `data[].loaded_context_length` / `max_context_length` (its `/api/v0/models`).
 * - llama.cpp server `data[].meta.n_ctx` (the window it runs, in builds since late 2025), else
 *   `meta.n_ctx_train` (the trained window, an upper bound); and its extra top-level `models` array.
 * - Ollama's native `{models: [{name, model}]}` and a bare array of objects or id strings.
 */
import { MAX_JSON_ANSWER_BYTES, readBodyUpTo } from '../openai/body-limits.js';
import { defaultFetch, type FetchLike } from '../openai/http.js';
import { withAuthorization, type AuthorizeRequest } from '../openai/authorize.js';
import type { Logger } from '../shared/log.js';
import { isRecord, positiveInt } from '../shared/json-value.js';

/** One model the endpoint offers. */
export interface ModelInfo {
  /** The id sent as `model` in chat requests. */
  id: string;
  /** Display name when the endpoint gives one (OpenRouter `name`, `display_name`); else absent. */
  name?: string;
  /** Context window in tokens when the endpoint reports it; else absent. */
  contextWindow?: number;
}

/** How to reach `/models`. */
interface FetchModelsOptions {
  /** Endpoint base without trailing slash, e.g. `https://api.openai.com/v1` (as in `Config.baseUrl`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when non-empty. */
  apiKey?: string | undefined;
  /** Extra request headers; they win over ours. */
  headers?: Record<string, string> | undefined;
  /** Query string without `?` (as in `Config.query`), appended to the URL. */
  query?: string | undefined;
  /**
   * The full models URL (query included), replacing `baseUrl + /models + query`; `null` when the
   * provider has no model list (Azure classic deployments, Bedrock): nothing is sent and the list
   * is empty. @defaultValue `undefined`: {@link modelsUrl}(baseUrl, query)
   */
  modelsUrl?: string | null | undefined;
  /** Whole-request limit in ms (headers and body). @defaultValue 3000 */
  timeoutMs?: number | undefined;
  /** `User-Agent` value; none when unset. */
  userAgent?: string | undefined;
  /** Injectable transport (tests). @defaultValue {@link defaultFetch} */
  fetch?: FetchLike | undefined;
  /** Receives one `debug` record when the list could not be read. */
  logger?: Logger | undefined;
  /** Adds credentials computed from the exact request (AWS SigV4, Entra ID tokens); see `authorize.ts`. */
  authorize?: AuthorizeRequest | undefined;
}

/** Default limit for `GET /models`, in ms. */
const MODELS_TIMEOUT_MS = 3000;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** One entry of any supported shape as a {@link ModelInfo}; `undefined` when it has no usable id. */
function toModel(entry: unknown): ModelInfo | undefined {
  if (typeof entry === 'string') return text(entry) ? { id: entry.trim() } : undefined;
  if (!isRecord(entry)) return undefined;
  const id = text(entry['id']) ?? text(entry['model']) ?? text(entry['name']);
  if (!id) return undefined;
  const model: ModelInfo = { id };
  const name = text(entry['display_name']) ?? (text(entry['id']) ? text(entry['name']) : undefined);
  if (name && name !== id) model.name = name;
  const meta = isRecord(entry['meta']) ? entry['meta'] : {};
  const contextWindow =
    positiveInt(entry['context_length']) ??
    positiveInt(entry['max_model_len']) ??
    positiveInt(entry['loaded_context_length']) ??
    positiveInt(entry['max_context_length']) ??
    positiveInt(entry['context_window']) ??
    positiveInt(meta['n_ctx']) ??
    positiveInt(meta['n_ctx_train']);
  if (contextWindow) model.contextWindow = contextWindow;
  return model;
}

/**
 * Parses a `/models` response body (already JSON-decoded) of any supported shape. Entries without
 * an id are skipped; a repeated id keeps its first entry. Never throws; `[]` for anything else.
 */
export function parseModels(body: unknown): ModelInfo[] {
  let entries: unknown[] = [];
  if (Array.isArray(body)) entries = body;
  else if (isRecord(body)) {
    if (Array.isArray(body['data'])) entries = body['data'];
    else if (Array.isArray(body['models'])) entries = body['models'];
  }
  const seen = new Set<string>();
  const models: ModelInfo[] = [];
  for (const entry of entries) {
    const model = toModel(entry);
    if (!model || seen.has(model.id)) continue;
    seen.add(model.id);
    models.push(model);
  }
  return models;
}

/** The `/models` URL for a base URL and query string. */
export function modelsUrl(baseUrl: string, query?: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/models${query ? `?${query}` : ''}`;
}

/**
 * `GET {baseUrl}/models[?query]` (or `options.modelsUrl`), parsed by {@link parseModels}. Never
 * throws: an HTTP error, a timeout, a connection failure or an unreadable body all give `[]`
 * (logged at debug); so does `modelsUrl: null`, without sending anything.
 * @internal one GET checked against a fake server without an endpoint's catalog and cache.
 */
export async function fetchModels(options: FetchModelsOptions): Promise<ModelInfo[]> {
  if (options.modelsUrl === null) {
    options.logger?.debug('this provider has no model list; using the configured models');
    return [];
  }
  const url = options.modelsUrl ?? modelsUrl(options.baseUrl, options.query);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? MODELS_TIMEOUT_MS);
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.userAgent) headers['user-agent'] = options.userAgent;
    if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`;
    Object.assign(headers, options.headers ?? {});
    const signed = await withAuthorization(options.authorize, { method: 'GET', url, headers, body: undefined });
    const fetch = options.fetch ?? (await defaultFetch());
    const response = await fetch(url, { method: 'GET', headers: signed, signal: controller.signal });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      options.logger?.debug('model list unavailable', { status: response.status });
      return [];
    }
    // A list larger than any real one is not read to its end (and not a list).
    const { text, cut } = await readBodyUpTo(response, MAX_JSON_ANSWER_BYTES);
    if (controller.signal.aborted) throw new Error('timeout');
    const models = cut ? [] : parseModels(JSON.parse(text));
    if (models.length === 0) options.logger?.debug('model list empty or unreadable');
    return models;
  } catch (error) {
    const reason = controller.signal.aborted ? 'timeout' : error instanceof Error ? error.message : String(error);
    options.logger?.debug('model list unavailable', { reason });
    return [];
  } finally {
    clearTimeout(timer);
  }
}

/** What the catalog is built from: the endpoint, plus the fallbacks of the configuration. */
export interface ModelCatalogOptions extends FetchModelsOptions {
  /** The configured model (`OPENAI_MODEL`); always in the list, and first when the endpoint omits it. */
  configuredModel: string;
  /** Ids used when the endpoint lists nothing (`OPENAI_MODELS`); `undefined` for none. */
  fallbackModels?: readonly string[] | undefined;
  /** After an empty answer, ms before the next {@link ModelCatalog.list} asks again. @defaultValue 30000 */
  retryEmptyAfterMs?: number | undefined;
  /** When false the endpoint is never asked (the configuration is invalid); fallbacks only. @defaultValue true */
  enabled?: boolean | undefined;
  /**
   * When false, `configuredModel` is only a stand-in (nothing was configured for this endpoint):
   * it is offered only when the endpoint lists nothing. @defaultValue true
   */
  offerConfigured?: boolean | undefined;
}

/**
 * The model list of one endpoint, fetched once per process: concurrent callers share one
 * in-flight request, and a non-empty answer is kept until a {@link ModelCatalog.refresh}. An
 * empty answer (404, timeout, garbage) is kept for `retryEmptyAfterMs`, then asked for again.
 */
export class ModelCatalog {
  private pending: Promise<ModelInfo[]> | undefined;
  private refreshing: Promise<ModelInfo[]> | undefined;
  private emptyAt: number | undefined;
  /** Whether the endpoint's last answer listed models (`undefined` before the first {@link list}). */
  answered: boolean | undefined;

  constructor(private readonly options: ModelCatalogOptions) {}

  /** The configured model id. */
  get configuredModel(): string {
    return this.options.configuredModel;
  }

  /**
   * The models to offer, never empty: the endpoint's list, else the fallback ids, else the
   * configured model alone; the configured model is put first when missing (unless it is only a
   * stand-in, see {@link ModelCatalogOptions.offerConfigured}). Never rejects.
   */
  async list(): Promise<ModelInfo[]> {
    const retryAfter = this.options.retryEmptyAfterMs ?? 30_000;
    if (this.pending && this.emptyAt !== undefined && Date.now() - this.emptyAt >= retryAfter) this.pending = undefined;
    if (this.options.enabled === false) return this.withFallbacks([]);
    if (!this.pending) {
      this.emptyAt = undefined;
      this.pending = fetchModels(this.options).then((fetched) => {
        if (fetched.length === 0) this.emptyAt = Date.now();
        this.answered = fetched.length > 0;
        return this.withFallbacks(fetched);
      });
    }
    return this.pending;
  }

  /**
   * Asks the endpoint now, whatever is kept (callers sharing one request in flight): sets
   * {@link answered}, and a non-empty answer replaces the kept list; an empty one keeps the last
   * list that had models (the models a session may ask for when the server is back). Never rejects.
   */
  async refresh(): Promise<ModelInfo[]> {
    if (this.options.enabled === false) return this.list();
    this.refreshing ??= fetchModels(this.options)
      .then((fetched) => {
        this.answered = fetched.length > 0;
        if (fetched.length > 0 || this.pending === undefined || this.emptyAt !== undefined) {
          this.emptyAt = fetched.length > 0 ? undefined : Date.now();
          this.pending = Promise.resolve(this.withFallbacks(fetched));
        }
        return this.pending;
      })
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private withFallbacks(fetched: ModelInfo[]): ModelInfo[] {
    const models = fetched.length > 0 ? [...fetched] : [...new Set(this.options.fallbackModels ?? [])].map((id) => ({ id }));
    const configured = this.options.configuredModel;
    const offer = this.options.offerConfigured !== false || models.length === 0;
    if (offer && !models.some((model) => model.id === configured)) models.unshift({ id: configured });
    return models;
  }
}
