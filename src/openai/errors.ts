/**
 * Provider failures as a small typed hierarchy.
 *
 * Every failure of a chat request becomes exactly one of these classes; whether it may be
 * retried is decided in one place ({@link isRetryableStatus} / the constructors below), and
 * it is turned into the user's words in one place (`user-errors.ts`).
 *
 * Retry policy follows openai-node: 408, 409, 429 and every 5xx are retryable, as are
 * connection failures; everything else is final.
 */
import { isRecord } from '../shared/json-value.js';

/** What went wrong, for programs (`data.kind` of the error answering a failed `session/prompt`). */
export type ProviderErrorKind = 'http' | 'connection' | 'timeout' | 'stream' | 'provider' | 'config' | 'internal';

/** Base class of every provider failure. `retryable` says whether a fresh attempt may succeed. */
export abstract class ProviderError extends Error {
  abstract readonly kind: ProviderErrorKind;
  abstract readonly retryable: boolean;
  /** The request URL (never carries the API key: keys travel in headers). */
  readonly url: string;
  constructor(message: string, url: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.url = url;
  }
}

/**
 * Whether an HTTP status is worth retrying: 408 (timeout), 409 (conflict/lock), 429 (rate limit),
 * and any 5xx. Source: openai-node `shouldRetry`.
 */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Response headers by name, case-insensitively, as `Headers.get` reads them. */
export interface HeaderReader {
  /** The values of header `name`, joined with `, ` when it came more than once; `null` when absent. */
  get(name: string): string | null;
}

/** A non-2xx HTTP answer. `providerMessage` is the `error.message` from the body when it had one. */
export class ProviderHttpError extends ProviderError {
  readonly kind = 'http' as const;
  readonly retryable: boolean;
  /** HTTP status code. */
  readonly status: number;
  /** Response headers (read by name, case-insensitively; a `Headers` is one). */
  readonly headers: HeaderReader;
  /** Raw response body text, truncated to 4 KiB. */
  readonly body: string;
  /** The provider's own message from the error body, if any. */
  readonly providerMessage: string | undefined;
  constructor(status: number, headers: HeaderReader, body: string, url: string) {
    const providerMessage = extractProviderMessage(body);
    super(`HTTP ${status}${providerMessage ? `: ${providerMessage}` : ''}`, url);
    this.status = status;
    this.headers = headers;
    this.body = body.slice(0, 4096);
    this.providerMessage = providerMessage;
    this.retryable = isRetryableStatus(status);
  }
}

/**
 * What a server said when it answered that it is still loading the model: HTTP 503 whose message
 * speaks of loading (llama.cpp `{"error":{"code":503,"message":"Loading model"}}` while
 * llama-server starts; Hugging Face TGI "Model … is currently loading"); `undefined` for any other
 * failure. Such an answer is asked again until the model is loaded (`chat-client.ts`).
 */
export function loadingAnswer(error: unknown): string | undefined {
  if (!(error instanceof ProviderHttpError) || error.status !== 503) return undefined;
  const said = error.providerMessage ?? error.body.trim();
  return /\bloading\b/i.test(said) ? said : undefined;
}

/** The server was still loading the model when the time limit (`OPENAI_TIMEOUT_MS`) ran out. */
export class ProviderLoadingError extends ProviderError {
  readonly kind = 'http' as const;
  readonly retryable = true;
  readonly status = 503;
  /** How long it was asked, in ms. */
  readonly waitedMs: number;
  /** What it said each time, e.g. `Loading model`. */
  readonly said: string;
  constructor(url: string, waitedMs: number, said: string) {
    super(`still loading the model after ${waitedMs} ms: HTTP 503: ${said}`, url);
    this.waitedMs = waitedMs;
    this.said = said;
  }
}

/** Host names of this machine's loopback interface (as `URL.hostname` spells them). */
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Whether `url` names this machine and the connection was refused: nothing listens on that port,
 * so no retry can help (a remote host may refuse while it restarts or a balancer shifts, so only
 * loopback counts).
 */
function refusedOnLoopback(url: string, code: string | undefined): boolean {
  if (code !== 'ECONNREFUSED') return false;
  try {
    return LOOPBACK_HOST.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * The connection failed before or while receiving a response (refused, DNS, TLS, reset).
 * Retryable, except a refused connection on loopback ({@link refusedOnLoopback}: `notRunning`).
 */
export class ProviderConnectionError extends ProviderError {
  readonly kind = 'connection' as const;
  readonly retryable: boolean;
  /** The system error code when known, e.g. `ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`. */
  readonly code: string | undefined;
  /** True when the connection was refused on this machine: the server is not running. */
  readonly notRunning: boolean;
  constructor(url: string, code: string | undefined, cause?: unknown) {
    super(`cannot connect to ${url}${code ? ` (${code})` : ''}`, url, { cause });
    this.code = code;
    this.notRunning = refusedOnLoopback(url, code);
    this.retryable = !this.notRunning;
  }
}

/** No data event arrived for `timeoutMs` (SSE comments such as `: ping` keep a connection open but are not progress). */
export class ProviderTimeoutError extends ProviderError {
  readonly kind = 'timeout' as const;
  readonly retryable = true;
  /** The silence limit that was exceeded, in ms. */
  readonly timeoutMs: number;
  constructor(url: string, timeoutMs: number) {
    super(`no data from ${url} for ${timeoutMs} ms`, url);
    this.timeoutMs = timeoutMs;
  }
}

/** The stream broke (connection dropped, EOF) before a finish reason or any content. */
export class ProviderStreamError extends ProviderError {
  readonly kind = 'stream' as const;
  readonly retryable = true;
  constructor(url: string, detail: string, cause?: unknown) {
    super(`the response stream ended early: ${detail}`, url, { cause });
  }
}

/**
 * The answer cannot be a Chat Completions answer, or is over a limit of what is read (an HTML
 * page, one SSE event over its bound): asking again would get the same, so it is final.
 */
export class ProviderProtocolError extends ProviderError {
  readonly kind = 'stream' as const;
  readonly retryable = false;
  constructor(url: string, detail: string) {
    super(detail, url);
  }
}

/** The provider reported an error inside a 200 stream (`event: error`, or an `error` object). */
export class ProviderReportedError extends ProviderError {
  readonly kind = 'provider' as const;
  readonly retryable = false;
  /** HTTP-like status the provider put in the error, when it did (Groq `status_code`). */
  readonly status: number | undefined;
  readonly code: string | undefined;
  constructor(url: string, message: string, code?: string, status?: number) {
    super(message, url);
    this.code = code;
    this.status = status;
  }
}

/**
 * Pull the provider's human message out of an error body. Handles the OpenAI/Azure/Groq shape
 * `{error: {message}}`, OpenRouter's `{error: {message, metadata: {raw}}}`, `{message}`,
 * `{detail}` (vLLM/FastAPI) and a plain-text body. Returns `undefined` for an empty body.
 */
export function extractProviderMessage(body: string): string | undefined {
  const text = body.trim();
  if (!text) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text.length > 500 ? `${text.slice(0, 500)}…` : text;
  }
  const root = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!isRecord(root)) return undefined;
  const error = root['error'];
  if (isRecord(error)) {
    const message = typeof error['message'] === 'string' ? error['message'] : undefined;
    const metadata = error['metadata'];
    const raw = isRecord(metadata) ? metadata['raw'] : undefined;
    const rawMessage = typeof raw === 'string' ? extractProviderMessage(raw) : undefined;
    if (message && rawMessage && rawMessage !== message) return `${message} (${rawMessage})`;
    return message ?? rawMessage;
  }
  if (typeof error === 'string') return error;
  if (typeof root['message'] === 'string') return root['message'];
  if (typeof root['detail'] === 'string') return root['detail'];
  return undefined;
}

/**
 * Error codes of the HTTP stack's internals (`UND_ERR_SOCKET`, `ERR_STREAM_PREMATURE_CLOSE`,
 * `ERR_HTTP_…`), as a regular expression source: they mean nothing to a user, unlike system
 * codes (`ECONNRESET`), so user-facing words leave them out.
 */
export const INTERNAL_ERROR_CODE = '(?:UND_ERR|ERR_STREAM|ERR_HTTP)_[A-Z0-9_]+';
