/**
 * ChatCompletionsClient: builds a streaming Chat Completions request (or Ollama's native one),
 * sends it, retries what may be retried, corrects what the endpoint refused, and yields the
 * decoded items batch by batch. Each attempt (the POST, the silence limit, the decoding) is
 * `chat-attempt.ts`.
 *
 * Parameter spellings come from the provider profile (`providers.ts`); parameters an endpoint
 * rejects are corrected and remembered by the adaptive-parameter loop (`adaptive-params.ts`).
 *
 * Source: https://platform.openai.com/docs/api-reference/chat/create (`stream`, `stream_options`,
 * `max_completion_tokens`, `reasoning_effort`).
 */
import { applyCorrections, describeCorrection, MAX_CORRECTIONS_PER_REQUEST, LearnedCorrections } from './adaptive-params.js';
import { attemptChat, type StreamProgress, type Wire } from './chat-attempt.js';
import { recognizeOverflow } from './context-overflow.js';
import { parseRejection } from './rejection.js';
import { toolsDropped } from './tools-unsupported.js';
import { loadingAnswer, ProviderError, ProviderHttpError, ProviderLoadingError } from './errors.js';
import type { FetchLike } from './http.js';
import type { AuthorizeRequest } from './authorize.js';
import type { Logger } from '../shared/log.js';
import { detectProvider } from '../config/providers.js';
import { PROVIDER_PROFILES, type ProviderProfile } from '../config/provider-profiles.js';
import { secretsOf } from '../config/config.js';
import { buildChatRequestBody, requestShape, type ChatRequest } from './chat-request.js';
import { delay, retryDelayMs } from './retry.js';
import type { SseItem } from './sse.js';
import { buildOllamaChatBody } from './ollama-chat-request.js';
import { loadMsOf } from './ollama-chat-items.js';
import { isNotServed, isOutOfMemory, ProviderMemoryError, type NativeChatRouter } from './native-chat.js';
import { timingsOf, type AnswerTimings, type SlotRouter } from './slot-routing.js';

export type { ChatRequest } from './chat-request.js';

/** How to reach the endpoint. */
export interface ChatClientOptions {
  /** Full URL of `/chat/completions`, query included. */
  url: string;
  /** The base URL as the user set it, named in the words when nothing listens there. @defaultValue `url` */
  baseUrl?: string | undefined;
  /** Sent as `Authorization: Bearer …` when non-empty (an `api-key` header goes in `headers`). */
  apiKey?: string | undefined;
  /** Extra request headers; they win over ours. */
  headers?: Record<string, string>;
  /** Parameter spellings. @defaultValue the profile detected from `url` ({@link detectProvider}) */
  profile?: ProviderProfile | undefined;
  /** Where learned corrections are kept (what the agent learned of its endpoints). @defaultValue one of this client's own */
  corrections?: LearnedCorrections | undefined;
  /** Retries after the first attempt. @defaultValue 2 */
  maxRetries?: number;
  /**
   * Longest wait for the response headers and then between two data events, in ms, before the
   * request is abandoned. SSE comments (`: ping`, `: OPENROUTER PROCESSING`) do not count: they
   * keep a connection alive but are not progress. @defaultValue 600000
   */
  timeoutMs?: number;
  /** Fields merged into every request body (`OPENAI_EXTRA_BODY`; precedence in `extra-body.ts`). @defaultValue none */
  extraBody?: Record<string, unknown> | undefined;
  /** `User-Agent` value. */
  userAgent?: string;
  logger?: Logger | undefined;
  /** Injectable transport (tests). @defaultValue `nodeStream` of http.ts (no header or body timeout of its own; proxy-aware) */
  fetch?: FetchLike;
  /** Injectable jitter source for retry delays (tests). */
  random?: () => number;
  /** Adds credentials computed from the exact request (AWS SigV4, Entra ID tokens); see `authorize.ts`. */
  authorize?: AuthorizeRequest | undefined;
  /**
   * The server's own chat API (Ollama's `/api/chat`), used instead of `url` for the models it
   * routes (see `native-chat.ts`). @defaultValue none: Chat Completions only
   */
  native?: NativeChatRouter | undefined;
  /**
   * The server's slots (llama.cpp `id_slot`): requests with a `slotKey` are given one by it, and
   * their answers' `timings` reported to it (`slot-routing.ts`). @defaultValue none: no `id_slot` is sent
   */
  slots?: SlotRouter | undefined;
}

/** An answer that may be a refusal of `id_slot`: a 400 or 422 that is not an overflow (llama.cpp answers an overflow with a 400 too). */
function refusesSlot(error: unknown): error is ProviderHttpError {
  return error instanceof ProviderHttpError && (error.status === 400 || error.status === 422) && !recognizeOverflow(error);
}

/** The URL without its query, for logs (a query may carry a key). */
const withoutQuery = (url: string) => url.split('?')[0] ?? url;

/** Streams chat completions from one endpoint. */
export class ChatCompletionsClient {
  readonly options: ChatClientOptions;
  /** The provider profile used for parameter spellings. */
  readonly profile: ProviderProfile;
  private readonly corrections: LearnedCorrections;
  constructor(options: ChatClientOptions) {
    this.options = options;
    this.profile = options.profile ?? PROVIDER_PROFILES[detectProvider(options.url)];
    this.corrections = options.corrections ?? new LearnedCorrections();
  }

  /** Whether this endpoint answered that `model` takes no tools (a learned correction drops them from every request). */
  takesNoTools(model: string): boolean {
    return toolsDropped(this.corrections.get(this.options.url, model));
  }

  /** The configured secrets of this endpoint (key, header and query values; see `secretsOf`), to redact from what the user reads. */
  get secrets(): string[] {
    const query = /\?([^#]*)/.exec(this.options.url)?.[1];
    return secretsOf({ apiKey: this.options.apiKey, headers: this.options.headers ?? {}, query });
  }

  /**
   * Send `request` and yield the SSE items of the answer, one batch per network read (never
   * empty). A non-streaming JSON answer is yielded as equivalent items.
   *
   * Retries HTTP 408/409/429/5xx, connection failures, silences and early stream ends, with
   * backoff (abortable), while `progress.committed` is false. An HTTP 503 saying the model is
   * loading (`loadingAnswer`) is asked again with the same backoff until the server serves, not
   * counting against `maxRetries`, for at most `timeoutMs` (then a {@link ProviderLoadingError}).
   * An answer naming a parameter the
   * endpoint rejects (see {@link parseRejection}) is corrected and sent again at once, at most
   * {@link MAX_CORRECTIONS_PER_REQUEST} times, without counting against `maxRetries`; the
   * correction is remembered for this URL and model, logged at `info`, and applied to every later
   * request. Ending the iteration early aborts the HTTP request.
   *
   * When `options.native` routes the model, the request goes to the server's own chat API
   * instead (Ollama `/api/chat`: body from `ollama-chat-request.ts`, NDJSON read into the same
   * items by `ollama-chat-items.ts`); an answer there meaning the API is not served
   * (`isNotServed`) falls back to Chat Completions, which the router remembers (what the agent learned of its endpoints); an
   * out-of-memory answer becomes a final {@link ProviderMemoryError}.
   *
   * @throws {ProviderError} when the request finally fails
   * @throws the signal's reason when `signal` aborts (the caller checks `signal.aborted`)
   */
  async *stream(request: ChatRequest, signal: AbortSignal, progress: StreamProgress): AsyncGenerator<SseItem[]> {
    const native = this.options.native;
    const target = native ? await native.target(request.model) : undefined;
    if (native && target) {
      const body = buildOllamaChatBody(request, { numCtx: target.numCtx, think: target.think, extraBody: this.options.extraBody });
      try {
        let loadMs: number | undefined;
        for await (const batch of this.send({ url: target.url, ndjson: true, numCtx: target.numCtx }, request.model, body, signal, progress)) {
          loadMs = loadMsOf(batch) ?? loadMs;
          yield batch;
        }
        native.answered(request.model, loadMs);
        return;
      } catch (error) {
        if (signal.aborted || progress.committed || !isNotServed(error)) throw error;
        native.fallBack(`${target.url} answered HTTP ${(error as ProviderHttpError).status}`);
      }
    }
    const spelled = (r: ChatRequest) => buildChatRequestBody(r, { ...requestShape(this.profile, r.model), extraBody: this.options.extraBody });
    const wire = { url: this.options.url, ndjson: false };
    const ticket = request.slotKey === undefined ? undefined : await this.options.slots?.take(request.slotKey, request.model, signal);
    if (!ticket) {
      yield* this.send(wire, request.model, spelled(request), signal, progress);
      return;
    }
    let timings: AnswerTimings | undefined;
    let ended = false;
    try {
      for await (const batch of this.send(wire, request.model, spelled({ ...request, idSlot: ticket.slot }), signal, progress)) {
        timings = timingsOf(batch) ?? timings;
        yield batch;
      }
      ended = true;
    } catch (error) {
      if (signal.aborted || progress.committed || !refusesSlot(error)) throw error;
      // Once without id_slot: when that goes through, id_slot was what the server refused.
      yield* this.send(wire, request.model, spelled(request), signal, progress);
      ticket.refused(error.providerMessage ?? `HTTP ${error.status}`);
      this.options.logger?.info('the server refused id_slot; requests go without it from now on', { url: withoutQuery(wire.url), status: error.status });
    } finally {
      ticket.done(ended ? timings : undefined);
    }
  }

  /** Sends one body to one wire, with the retries and corrections {@link stream} describes (remembered per wire URL and model). */
  private async *send(wire: Wire, model: string, base: Record<string, unknown>, signal: AbortSignal, progress: StreamProgress): AsyncGenerator<SseItem[]> {
    const maxRetries = this.options.maxRetries ?? 2;
    const { url } = wire;
    const learned = this.corrections;
    let corrections = 0;
    /** When the server first answered that it is loading the model, and how often it was asked since. */
    let loading: { since: number; asked: number } | undefined;
    for (let attempt = 0; ; attempt++) {
      const known = learned.get(url, model);
      const body = applyCorrections(base, known);
      try {
        yield* attemptChat(wire, body, signal, progress, this.options);
        return;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (wire.ndjson && error instanceof ProviderHttpError && isOutOfMemory(error.providerMessage)) throw new ProviderMemoryError(error, model, wire.numCtx);
        // A server loading the model is asked again, with backoff, until it serves or the time limit runs out: not after maxRetries.
        const said = progress.committed ? undefined : loadingAnswer(error);
        if (said !== undefined) {
          loading ??= { since: Date.now(), asked: 0 };
          const limit = this.options.timeoutMs ?? 600_000;
          const waited = Date.now() - loading.since;
          if (waited >= limit) throw new ProviderLoadingError(url, waited, said);
          const wait = Math.min(retryDelayMs(loading.asked++, (error as ProviderHttpError).headers, this.options.random?.() ?? Math.random()), limit - waited);
          this.options.logger?.info(`the server is loading the model; asking again in ${Math.round(wait)} ms`, { url: withoutQuery(url), model, said });
          await delay(wait, signal);
          attempt--;
          continue;
        }
        if (error instanceof ProviderHttpError && !progress.committed && corrections < MAX_CORRECTIONS_PER_REQUEST) {
          const found = parseRejection(error.status, error.body, body, known);
          // Compare bodies: a correction another request learned meanwhile also makes a retry worthwhile.
          const next = found ? applyCorrections(base, [...learned.get(url, model), found.correction]) : body;
          if (found && JSON.stringify(next) !== JSON.stringify(body)) {
            learned.remember(url, model, found.correction);
            corrections++;
            this.options.logger?.info(`endpoint rejected a request parameter; ${describeCorrection(found.correction)} and retrying`, {
              url: withoutQuery(url),
              model,
              status: error.status,
              reason: found.reason,
            });
            attempt--;
            continue;
          }
        }
        // An overflow answered with a 5xx (llama.cpp's exceed_context_size_error before late 2025) fails the same way again.
        const retryable = error instanceof ProviderError && error.retryable && !recognizeOverflow(error);
        if (!retryable || progress.committed || attempt >= maxRetries) throw error;
        const headers = error instanceof ProviderHttpError ? error.headers : undefined;
        const wait = retryDelayMs(attempt, headers, this.options.random?.() ?? Math.random());
        progress.onRetry?.(attempt + 1, error, wait);
        this.options.logger?.warn(`request failed, retrying in ${Math.round(wait)} ms`, {
          attempt: attempt + 1,
          of: maxRetries,
          error: (error as Error).message,
        });
        await delay(wait, signal);
      }
    }
  }
}
