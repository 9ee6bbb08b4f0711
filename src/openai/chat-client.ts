/**
 * ChatCompletionsClient: builds a streaming Chat Completions request, sends it, retries what may
 * be retried, enforces the silence limit, and yields the decoded SSE items batch by batch.
 *
 * Parameter spellings come from the provider profile (`providers.ts`); parameters an endpoint
 * rejects are corrected and remembered by the adaptive-parameter loop (`adaptive-params.ts`).
 *
 * Source: https://platform.openai.com/docs/api-reference/chat/create (`stream`, `stream_options`,
 * `max_completion_tokens`, `reasoning_effort`).
 */
import { applyCorrections, describeCorrection, MAX_CORRECTIONS_PER_REQUEST, CorrectionMemory } from './adaptive-params.js';
import { recognizeOverflow } from './context-overflow.js';
import { parseRejection, toolsDropped } from './rejection.js';
import { completionToItems } from './completion-to-chunk.js';
import {
  ProviderConnectionError,
  ProviderError,
  ProviderHttpError,
  ProviderProtocolError,
  ProviderStreamError,
  ProviderTimeoutError,
  INTERNAL_ERROR_CODE,
} from './errors.js';
import { nodeStream, type FetchInit, type FetchLike } from './http.js';
import type { ByteAnswer } from './http-body.js';
import { withAuthorization, type AuthorizeRequest } from './authorize.js';
import type { Logger } from '../log.js';
import { detectProvider } from '../config/providers.js';
import { PROVIDER_PROFILES, type ProviderProfile } from '../config/provider-profiles.js';
import { secretsOf } from '../config/config.js';
import { buildChatRequestBody, buildChatRequestHeaders, requestShape, type ChatRequest } from './chat-request.js';
import { delay, retryDelayMs } from './retry.js';
import { createSseDecoder, SseEventTooLargeError, type SseItem } from './sse.js';
import { bytesOf, jsonPieces } from './json-bytes.js';
import { HTML_ANSWER, MAX_EVENT_BYTES, readErrorBody } from './body-limits.js';
import { buildOllamaChatBody } from './ollama-chat-request.js';
import { createOllamaChatDecoder } from './ollama-chat-items.js';
import { LineTooLargeError, StreamBrokenError } from './ndjson.js';
import { isNotServed, isOutOfMemory, ProviderMemoryError, type NativeChatRouter } from './native-chat.js';

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
  /** Where learned corrections are kept (the agent's endpoint memory). @defaultValue one of this client's own */
  corrections?: CorrectionMemory | undefined;
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
  /** Injectable transport (tests). @defaultValue {@link nodeStream} (no header or body timeout of its own; proxy-aware) */
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
}

/** What the consumer tells the client while it streams. */
export interface StreamProgress {
  /** True once anything of the turn was forwarded to the user: from then on, no retry. */
  readonly committed: boolean;
  /** True once a finish reason arrived. A stream that ends with neither this nor `committed` is broken. */
  readonly finished: boolean;
  /** Called before each retry's wait. `attempt` counts from 1; `delayMs` in ms. */
  onRetry?(attempt: number, error: ProviderError, delayMs: number): void;
  /** Called with the headers of the answer that is read (a successful status), e.g. for a cost header. */
  onAnswer?(headers: { get(name: string): string | null | undefined }): void;
}

/** The URL without its query, for logs (a query may carry a key). */
const withoutQuery = (url: string) => url.split('?')[0] ?? url;

/** Streams chat completions from one endpoint. */
export class ChatCompletionsClient {
  readonly options: ChatClientOptions;
  /** The provider profile used for parameter spellings. */
  readonly profile: ProviderProfile;
  private readonly corrections: CorrectionMemory;
  constructor(options: ChatClientOptions) {
    this.options = options;
    this.profile = options.profile ?? PROVIDER_PROFILES[detectProvider(options.url)];
    this.corrections = options.corrections ?? new CorrectionMemory();
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
   * backoff (abortable), while `progress.committed` is false. An answer naming a parameter the
   * endpoint rejects (see {@link parseRejection}) is corrected and sent again at once, at most
   * {@link MAX_CORRECTIONS_PER_REQUEST} times, without counting against `maxRetries`; the
   * correction is remembered for this URL and model, logged at `info`, and applied to every later
   * request. Ending the iteration early aborts the HTTP request.
   *
   * When `options.native` routes the model, the request goes to the server's own chat API
   * instead (Ollama `/api/chat`: body from `ollama-chat-request.ts`, NDJSON read into the same
   * items by `ollama-chat-items.ts`); an answer there meaning the API is not served
   * (`isNotServed`) falls back to Chat Completions, which the router remembers for the process; an
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
        yield* this.send({ url: target.url, ndjson: true, numCtx: target.numCtx }, request.model, body, signal, progress);
        native.answered(request.model);
        return;
      } catch (error) {
        if (signal.aborted || progress.committed || !isNotServed(error)) throw error;
        native.fallBack(`${target.url} answered HTTP ${(error as ProviderHttpError).status}`);
      }
    }
    const base = buildChatRequestBody(request, { ...requestShape(this.profile, request.model), extraBody: this.options.extraBody });
    yield* this.send({ url: this.options.url, ndjson: false }, request.model, base, signal, progress);
  }

  /** Sends one body to one wire, with the retries and corrections {@link stream} describes (remembered per wire URL and model). */
  private async *send(wire: Wire, model: string, base: Record<string, unknown>, signal: AbortSignal, progress: StreamProgress): AsyncGenerator<SseItem[]> {
    const maxRetries = this.options.maxRetries ?? 2;
    const { url } = wire;
    const memory = this.corrections;
    let corrections = 0;
    for (let attempt = 0; ; attempt++) {
      const known = memory.get(url, model);
      const body = applyCorrections(base, known);
      try {
        yield* this.attempt(wire, body, signal, progress);
        return;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (wire.ndjson && error instanceof ProviderHttpError && isOutOfMemory(error.providerMessage)) throw new ProviderMemoryError(error, model, wire.numCtx);
        if (error instanceof ProviderHttpError && !progress.committed && corrections < MAX_CORRECTIONS_PER_REQUEST) {
          const found = parseRejection(error.status, error.body, body, known);
          // Compare bodies: a correction another request learned meanwhile also makes a retry worthwhile.
          const next = found ? applyCorrections(base, [...memory.get(url, model), found.correction]) : body;
          if (found && JSON.stringify(next) !== JSON.stringify(body)) {
            memory.remember(url, model, found.correction);
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

  /** One HTTP attempt with the final request body. */
  private async *attempt(wire: Wire, body: Record<string, unknown>, signal: AbortSignal, progress: StreamProgress): AsyncGenerator<SseItem[]> {
    // An abort listener added to an already-aborted signal never fires.
    signal.throwIfAborted();
    const { url } = wire;
    const timeoutMs = this.options.timeoutMs ?? 600_000;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    /** The body was read to its end: nothing left to tear down. */
    let complete = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const fail = (error: unknown, phase: 'connect' | 'body'): never => {
      if (signal.aborted) throw signal.reason;
      if (timedOut) throw new ProviderTimeoutError(url, timeoutMs);
      if (error instanceof ProviderError) throw error;
      if (phase === 'connect') throw new ProviderConnectionError(url, errorCode(error), error);
      throw new ProviderStreamError(url, describeCause(error), error);
    };
    try {
      const fetchImpl: (url: string, init: FetchInit) => Promise<ByteAnswer> = this.options.fetch ?? nodeStream;
      let response: ByteAnswer;
      try {
        // Our transport writes the JSON piece by piece: a 30 MB prompt is not copied into request
        // bytes. A signer hashes the exact bytes, and an injected fetch takes standard bodies:
        // those get bytes (long texts encoded once, not held as JSON text and again as bytes).
        const json = jsonPieces(body);
        const payload = this.options.authorize || this.options.fetch ? bytesOf(json) : json;
        response = await fetchImpl(url, {
          method: 'POST',
          headers: await withAuthorization(this.options.authorize, { method: 'POST', url, headers: buildChatRequestHeaders(this.options), body: payload instanceof Uint8Array ? payload : undefined }),
          body: payload,
          signal: controller.signal,
        });
      } catch (error) {
        return fail(error, 'connect');
      }
      timer.refresh();
      if (!response.ok) throw new ProviderHttpError(response.status, response.headers, await readErrorBody(response), url);
      progress.onAnswer?.(response.headers);
      if (!response.body) return;
      const contentType = response.headers.get('content-type') ?? '';
      if (/text\/html/i.test(contentType)) throw new ProviderProtocolError(url, HTML_ANSWER);
      const decoder = wire.ndjson ? createOllamaChatDecoder(MAX_EVENT_BYTES) : createSseDecoder({ maxEventBytes: MAX_EVENT_BYTES });
      // NDJSON is JSON line by line: only a Chat Completions answer may come as one JSON object.
      let json: Uint8Array[] | undefined = !wire.ndjson && contentType.includes('json') ? [] : undefined;
      let jsonSize = 0;
      let first = true;
      const reads = response.body[Symbol.asyncIterator]();
      for (;;) {
        // Only a failure of the read itself is the network's; our own failures below are not retried.
        let read: IteratorResult<Uint8Array>;
        try {
          read = await reads.next();
        } catch (error) {
          return fail(error, 'body');
        }
        if (read.done) {
          complete = true;
          break;
        }
        const bytes = read.value;
        if (first && bytes.length > 0) {
          first = false;
          // Some servers answer a streaming request with one JSON object, whatever the content type.
          if (json === undefined && !wire.ndjson && firstNonSpace(bytes) === 0x7b) json = [];
        }
        if (json) {
          timer.refresh();
          jsonSize += bytes.length;
          if (jsonSize > MAX_EVENT_BYTES) throw new ProviderProtocolError(url, new SseEventTooLargeError(MAX_EVENT_BYTES).message);
          json.push(bytes);
          continue;
        }
        let items: SseItem[];
        try {
          items = decoder.push(bytes);
        } catch (error) {
          throw decoderFailure(url, error);
        }
        if (items.length > 0) {
          timer.refresh();
          yield items;
        }
      }
      if (json) {
        yield completionToItems(Buffer.concat(json).toString('utf8'));
        return;
      }
      let rest: SseItem[];
      try {
        rest = decoder.end();
      } catch (error) {
        throw decoderFailure(url, error);
      }
      if (rest.length > 0) yield rest;
      if (!progress.committed && !progress.finished) {
        throw new ProviderStreamError(url, 'the stream closed before any content or finish reason');
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      // Tears the connection down when the consumer stopped early (an abort costs a DOMException: not after a complete body).
      if (!complete) controller.abort();
    }
  }
}

/** Where one request goes: the URL, and whether it is the native NDJSON wire (`numCtx`: the window it asks for). */
interface Wire {
  url: string;
  ndjson: boolean;
  numCtx?: number | undefined;
}

/** A decoder's failure as a provider error: an oversized event or line is final; a broken line or end is a broken stream. */
function decoderFailure(url: string, error: unknown): unknown {
  if (error instanceof SseEventTooLargeError || error instanceof LineTooLargeError) return new ProviderProtocolError(url, error.message);
  if (error instanceof StreamBrokenError) return new ProviderStreamError(url, error.message);
  return error;
}

function firstNonSpace(bytes: Uint8Array): number | undefined {
  // Indexed, not for-of: the iterator protocol is slow in code not yet optimised (one call per answer).
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return byte;
  }
  return undefined;
}

const INTERNAL_CODE = new RegExp(`^${INTERNAL_ERROR_CODE}$`);

/** The system error code of a fetch failure (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`, …). */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describeCause(error: unknown): string {
  const code = errorCode(error);
  const message = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
  // Codes of the HTTP stack's internals (UND_ERR_SOCKET) mean nothing to a user; system codes (ECONNRESET) do.
  return code && !INTERNAL_CODE.test(code) ? `${message} (${code})` : message;
}
