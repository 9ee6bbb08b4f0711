/**
 * One HTTP exchange of a chat request, read into items: the POST with its credentials, the
 * silence limit, and the answer decoded as it arrives (SSE, Ollama's NDJSON, or one JSON object
 * answered to a streaming request), failures as {@link ProviderError}s. Retries and corrections
 * around it are the client's (`chat-client.ts`).
 */
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
import { buildChatRequestHeaders } from './chat-request.js';
import { createSseDecoder, SseEventTooLargeError, type SseItem } from './sse.js';
import { bytesOf, jsonPieces } from './json-bytes.js';
import { HTML_ANSWER, MAX_EVENT_BYTES, readErrorBody } from './body-limits.js';
import { createOllamaChatDecoder } from './ollama-chat-items.js';
import { LineTooLargeError, StreamBrokenError } from './ndjson.js';

/** What the consumer tells the client while it streams. */
export interface StreamProgress {
  /** True once anything of the answer was forwarded to the user: from then on, no retry. */
  readonly committed: boolean;
  /** True once a finish reason arrived. A stream that ends with neither this nor `committed` is broken. */
  readonly finished: boolean;
  /** Called before each retry's wait. `attempt` counts from 1; `delayMs` in ms. */
  onRetry?(attempt: number, error: ProviderError, delayMs: number): void;
  /** Called with the headers of the answer that is read (a successful status), e.g. for a cost header. */
  onAnswer?(headers: { get(name: string): string | null | undefined }): void;
}

/** What one attempt takes of the client's options (`ChatClientOptions`). */
export interface AttemptOptions {
  apiKey?: string | undefined;
  headers?: Record<string, string>;
  userAgent?: string;
  /** Silence limit, ms. @defaultValue 600000 */
  timeoutMs?: number;
  /** @defaultValue {@link nodeStream} */
  fetch?: FetchLike;
  authorize?: AuthorizeRequest | undefined;
}

/**
 * One HTTP attempt with the final request `body`: POSTs it to `wire.url` (credentials added by
 * `options.authorize`), enforces the silence limit (`options.timeoutMs`, default 600000 ms, renewed
 * by each batch of items), and yields the answer's items batch by batch: SSE events, Ollama NDJSON
 * lines (`wire.ndjson`), or one JSON completion answered to a streaming request. Tears the
 * connection down when the consumer stops early.
 *
 * @throws {ProviderHttpError} for a non-2xx status; {@link ProviderConnectionError},
 *   {@link ProviderStreamError}, {@link ProviderTimeoutError}, {@link ProviderProtocolError} as named
 * @throws the signal's reason when `signal` aborts
 */
export async function* attemptChat(
  wire: Wire,
  body: Record<string, unknown>,
  signal: AbortSignal,
  progress: StreamProgress,
  options: AttemptOptions,
): AsyncGenerator<SseItem[]> {
  // An abort listener added to an already-aborted signal never fires.
  signal.throwIfAborted();
  const { url } = wire;
  const timeoutMs = options.timeoutMs ?? 600_000;
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
    const fetchImpl: (url: string, init: FetchInit) => Promise<ByteAnswer> = options.fetch ?? nodeStream;
    let response: ByteAnswer;
    try {
      // Our transport writes the JSON piece by piece: a 30 MB prompt is not copied into request
      // bytes. A signer hashes the exact bytes, and an injected fetch takes standard bodies:
      // those get bytes (long texts encoded once, not held as JSON text and again as bytes).
      const json = jsonPieces(body);
      const payload = options.authorize || options.fetch ? bytesOf(json) : json;
      response = await fetchImpl(url, {
        method: 'POST',
        headers: await withAuthorization(options.authorize, {
          method: 'POST',
          url,
          headers: buildChatRequestHeaders(options),
          body: payload instanceof Uint8Array ? payload : undefined,
        }),
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

/** Where one request goes: the URL, and whether it is the native NDJSON wire (`numCtx`: the window it asks for). */
export interface Wire {
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
