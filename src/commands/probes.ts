/**
 * The network checks behind `doctor`, `models` and `setup`, each bounded in time and each sent
 * through the agent's own request path ({@link createEndpoint}: same URLs, headers, provider
 * profile and adaptive corrections), with a {@link recordingFetch} to see why a request failed.
 */
import type { ChatRequest } from '../openai/chat-client.js';
import { createEndpoint, type EndpointSettings } from '../endpoints/endpoint.js';
import type { CloudAuthDeps } from '../endpoints/cloud-auth.js';
import type { LearnedFacts } from '../endpoints/learned-facts.js';
import { extractProviderMessage, ProviderError, ProviderReportedError, ProviderTimeoutError } from '../openai/errors.js';
import type { FetchLike } from '../openai/http.js';
import type { Logger } from '../shared/log.js';
import type { ModelInfo } from '../endpoints/model-catalog.js';
import { parseModels } from '../endpoints/model-catalog.js';
import type { ChatErrorObject, ChatUsage } from '../openai/openai-types.js';
import { ChatStreamAccumulator } from '../openai/chat-stream-accumulator.js';
import { recordingFetch, type HttpRecord } from './recording-fetch.js';

/** What the shared transport needs besides the settings. */
export interface ProbeDeps {
  logger: Logger;
  /** Bound of the check, in ms. */
  timeoutMs: number;
  /** Injectable transport (tests). @defaultValue the agent's transport */
  fetch?: FetchLike | undefined;
  /** Keyless Bedrock/Azure credentials (the environment `doctor` runs with; tests). @defaultValue the SDKs' default chains */
  cloudAuth?: CloudAuthDeps | undefined;
  /**
   * What the checks learn about the endpoint (refused parameters, Ollama's `/api/chat` not
   * served), shared by every check of one run as the agent shares it. @defaultValue each check its own
   */
  learned?: LearnedFacts | undefined;
}

/**
 * The outcome of `GET /models`:
 * - `listed`: 2xx with at least one model; `models` is the endpoint's list, `status` its HTTP status.
 * - `empty`: 2xx, but no model could be read from the body.
 * - `http-error`: a non-2xx answer; `providerMessage` is the body's own message, if any.
 * - `unreachable`: no answer (`code` such as `ECONNREFUSED`); `timeout`: no answer within the bound.
 * - `not-sent`: the provider has no `/models` (the catalog sent nothing).
 */
export type ModelsProbe =
  | { kind: 'listed'; url: string; status: number; models: ModelInfo[] }
  | { kind: 'empty'; url: string; status: number }
  | { kind: 'http-error'; url: string; status: number; providerMessage: string | undefined }
  | { kind: 'unreachable'; url: string; code: string | undefined; message: string }
  | { kind: 'timeout'; url: string; timeoutMs: number }
  | { kind: 'not-sent' };

/** The first GET request of the records (the catalog's `/models`), if one was sent. */
function modelsRecord(records: readonly HttpRecord[]): HttpRecord | undefined {
  return records.find((record) => record.method === 'GET');
}

/**
 * Lists the endpoint's models the way the agent's model catalog does, and says why when it
 * cannot. Never rejects; settles within about `deps.timeoutMs`.
 */
export async function probeModels(settings: EndpointSettings, deps: ProbeDeps): Promise<ModelsProbe> {
  const recorder = recordingFetch(deps.fetch);
  const endpoint = createEndpoint(settings, {
    logger: deps.logger,
    fetch: recorder.fetch,
    modelsTimeoutMs: deps.timeoutMs,
    cloudAuth: deps.cloudAuth,
    learned: deps.learned,
  });
  const listed = await endpoint.catalog.list();
  const record = modelsRecord(recorder.records);
  if (!record) return { kind: 'not-sent' };
  const { url } = record;
  if (record.failure?.kind === 'timeout') return { kind: 'timeout', url, timeoutMs: deps.timeoutMs };
  if (record.failure) return { kind: 'unreachable', url, code: record.failure.code, message: record.failure.message };
  const status = record.status ?? 0;
  const body = (await record.body) ?? '';
  if (status < 200 || status > 299) return { kind: 'http-error', url, status, providerMessage: extractProviderMessage(body) };
  let ids: Set<string>;
  try {
    ids = new Set(parseModels(JSON.parse(body)).map((model) => model.id));
  } catch {
    ids = new Set();
  }
  // The catalog adds the configured model (first) when the endpoint omits it; keep only what the endpoint listed.
  const models = ids.size > 0 ? listed.filter((model) => ids.has(model.id)) : [];
  return models.length > 0 ? { kind: 'listed', url, status, models } : { kind: 'empty', url, status };
}

/** The outcome of a small streamed completion. */
export type CompletionProbe =
  | {
      ok: true;
      /** The last finish reason, e.g. `length` or `stop`; `null` when the stream ended without one. */
      finishReason: string | null;
      /** The usage the endpoint reported; `null` when none. */
      usage: ChatUsage | null;
      /** Answer text received (tiny: the request asks for one token). */
      text: string;
      /** The JSON body of the request that succeeded (after any adaptive correction). */
      sent: Record<string, unknown>;
      /** How many POST requests were sent (more than 1 when a parameter was corrected). */
      attempts: number;
    }
  | {
      ok: false;
      /** The failure, as the agent would classify it. */
      error: ProviderError;
      /** HTTP status of the failing answer, when there was one. */
      status: number | undefined;
    };

/**
 * Sends `request` (streamed) through the agent's chat client with no retries and a silence limit
 * of at most `deps.timeoutMs`, and reads the whole answer. Adaptive corrections apply (and are
 * remembered in `deps.learned`) as in the agent. Settles within about `deps.timeoutMs` (the whole
 * request is aborted then).
 *
 * @throws only an internal error (a bug); provider failures are results.
 */
export async function probeCompletion(settings: EndpointSettings, request: ChatRequest, deps: ProbeDeps): Promise<CompletionProbe> {
  const recorder = recordingFetch(deps.fetch);
  const bounded: EndpointSettings = { ...settings, maxRetries: 0, timeoutMs: Math.min(settings.timeoutMs, deps.timeoutMs) };
  const { client } = createEndpoint(bounded, { logger: deps.logger, fetch: recorder.fetch, enabled: false, cloudAuth: deps.cloudAuth, learned: deps.learned });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deps.timeoutMs);
  const accumulator = new ChatStreamAccumulator();
  let finished = false;
  let streamError: ChatErrorObject | undefined;
  const progress = {
    committed: false,
    get finished() {
      return finished;
    },
  };
  const lastStatus = () => [...recorder.records].reverse().find((record) => record.method === 'POST')?.status;
  try {
    for await (const batch of client.stream(request, controller.signal, progress)) {
      for (const item of batch) {
        for (const event of accumulator.push(item)) {
          if (event.type === 'finish') finished = true;
          else if (event.type === 'error') streamError ??= event.error;
        }
      }
      if (streamError) break;
    }
    accumulator.flush();
    if (streamError) {
      const message = typeof streamError.message === 'string' && streamError.message ? streamError.message : JSON.stringify(streamError);
      const code = streamError.code !== undefined && streamError.code !== null ? String(streamError.code) : undefined;
      return { ok: false, error: new ProviderReportedError(client.options.url, message, code), status: lastStatus() };
    }
    const result = accumulator.result();
    const posts = recorder.records.filter((record) => record.method === 'POST');
    let sent: Record<string, unknown> = {};
    try {
      sent = JSON.parse(posts[posts.length - 1]?.sent ?? '{}') as Record<string, unknown>;
    } catch {
      // never: the client sends JSON
    }
    return { ok: true, finishReason: result.finishReason, usage: result.usage, text: result.text, sent, attempts: posts.length };
  } catch (error) {
    if (controller.signal.aborted) return { ok: false, error: new ProviderTimeoutError(client.options.url, deps.timeoutMs), status: undefined };
    if (error instanceof ProviderError) return { ok: false, error, status: lastStatus() };
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
