/**
 * ChatCompletionsClient: builds a streaming Chat Completions request, sends it, retries what may
 * be retried, enforces the silence limit, and yields the decoded SSE items batch by batch.
 *
 * Source: https://platform.openai.com/docs/api-reference/chat/create (`stream`, `stream_options`).
 */
import { completionToItems } from './completion-to-chunk.js';
import {
  ProviderConnectionError,
  ProviderError,
  ProviderHttpError,
  ProviderStreamError,
  ProviderTimeoutError,
} from './errors.js';
import { defaultFetch, type FetchLike } from './http.js';
import type { Logger } from './log.js';
import type { ChatMessage } from './openai-types.js';
import { delay, retryDelayMs } from './retry.js';
import { createSseDecoder, type SseItem } from './sse.js';

/** One chat request, independent of the endpoint. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  /** Output token limit (`max_tokens`). */
  maxTokens?: number | undefined;
  /** Sampling temperature, 0 to 2. */
  temperature?: number | undefined;
}

/** How to reach the endpoint. */
export interface ChatClientOptions {
  /** Full URL of `/chat/completions`, query included. */
  url: string;
  /** Sent as `Authorization: Bearer …` when non-empty. */
  apiKey?: string | undefined;
  /** Extra request headers; they win over ours. */
  headers?: Record<string, string>;
  /** Retries after the first attempt. @defaultValue 2 */
  maxRetries?: number;
  /** Longest silence (no bytes) before the request is abandoned, in ms, measured between network reads. @defaultValue 600000 */
  timeoutMs?: number;
  /** `User-Agent` value. */
  userAgent?: string;
  logger?: Logger | undefined;
  /** Injectable transport (tests). @defaultValue undici fetch with lifted timeouts */
  fetch?: FetchLike;
  /** Injectable jitter source for retry delays (tests). */
  random?: () => number;
}

/** What the consumer tells the client while it streams. */
export interface StreamProgress {
  /** True once anything of the turn was forwarded to the user: from then on, no retry. */
  readonly committed: boolean;
  /** True once a finish reason arrived. A stream that ends with neither this nor `committed` is broken. */
  readonly finished: boolean;
  /** Called before each retry's wait. `attempt` counts from 1; `delayMs` in ms. */
  onRetry?(attempt: number, error: ProviderError, delayMs: number): void;
}

/** Endpoints (by URL) that rejected `stream_options`; we stop sending it to them. */
const noStreamOptions = new Set<string>();

/**
 * The JSON body of a streaming request.
 * @param includeStreamOptions - send `stream_options: {include_usage: true}` (usage on the last chunk)
 */
export function buildChatRequestBody(request: ChatRequest, includeStreamOptions: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model, messages: request.messages, stream: true };
  if (includeStreamOptions) body['stream_options'] = { include_usage: true };
  if (request.maxTokens !== undefined) body['max_tokens'] = request.maxTokens;
  if (request.temperature !== undefined) body['temperature'] = request.temperature;
  return body;
}

/** Request headers: ours, then the user's (which win). No `Authorization` when there is no key. */
export function buildChatRequestHeaders(options: ChatClientOptions): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream, application/json',
  };
  if (options.userAgent) headers['user-agent'] = options.userAgent;
  if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`;
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  return headers;
}

/** Whether a 400 answer says the endpoint does not accept `stream_options`. */
export function rejectsStreamOptions(error: unknown): boolean {
  return error instanceof ProviderHttpError && (error.status === 400 || error.status === 422) && /stream_options|include_usage/i.test(error.body);
}

/** Streams chat completions from one endpoint. */
export class ChatCompletionsClient {
  readonly options: ChatClientOptions;
  constructor(options: ChatClientOptions) {
    this.options = options;
  }

  /**
   * Send `request` and yield the SSE items of the answer, one batch per network read (never
   * empty). A non-streaming JSON answer is yielded as equivalent items.
   *
   * Retries HTTP 408/409/429/5xx, connection failures, silences and early stream ends, with
   * backoff (abortable), while `progress.committed` is false; a 400 naming `stream_options` is
   * retried once without it. Ending the iteration early aborts the HTTP request.
   *
   * @throws {ProviderError} when the request finally fails
   * @throws the signal's reason when `signal` aborts (the caller checks `signal.aborted`)
   */
  async *stream(request: ChatRequest, signal: AbortSignal, progress: StreamProgress): AsyncGenerator<SseItem[]> {
    const maxRetries = this.options.maxRetries ?? 2;
    let streamOptionsFallbackUsed = false;
    for (let attempt = 0; ; attempt++) {
      try {
        yield* this.attempt(request, signal, progress);
        return;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (!streamOptionsFallbackUsed && !noStreamOptions.has(this.options.url) && rejectsStreamOptions(error)) {
          noStreamOptions.add(this.options.url);
          streamOptionsFallbackUsed = true;
          this.options.logger?.info('endpoint rejects stream_options; retrying without it', { url: this.options.url });
          attempt--;
          continue;
        }
        const retryable = error instanceof ProviderError && error.retryable;
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

  /** One HTTP attempt. */
  private async *attempt(request: ChatRequest, signal: AbortSignal, progress: StreamProgress): AsyncGenerator<SseItem[]> {
    // An abort listener added to an already-aborted signal never fires.
    signal.throwIfAborted();
    const { url } = this.options;
    const timeoutMs = this.options.timeoutMs ?? 600_000;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
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
      const fetchImpl = this.options.fetch ?? (await defaultFetch());
      const body = buildChatRequestBody(request, !noStreamOptions.has(url));
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method: 'POST',
          headers: buildChatRequestHeaders(this.options),
          body: JSON.stringify(body),
          signal: controller.signal,
        });
      } catch (error) {
        return fail(error, 'connect');
      }
      timer.refresh();
      if (!response.ok) {
        let text = '';
        try {
          text = await response.text();
        } catch {
          // The status alone still explains the failure.
        }
        throw new ProviderHttpError(response.status, response.headers, text, url);
      }
      if (!response.body) return;
      const contentType = response.headers.get('content-type') ?? '';
      const decoder = createSseDecoder();
      let json: Uint8Array[] | undefined = contentType.includes('json') ? [] : undefined;
      let first = true;
      try {
        for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
          timer.refresh();
          if (first && bytes.length > 0) {
            first = false;
            // Some servers answer a streaming request with one JSON object, whatever the content type.
            if (json === undefined && firstNonSpace(bytes) === 0x7b) json = [];
          }
          if (json) {
            json.push(bytes);
            continue;
          }
          const items = decoder.push(bytes);
          if (items.length > 0) yield items;
        }
      } catch (error) {
        return fail(error, 'body');
      }
      if (json) {
        yield completionToItems(Buffer.concat(json).toString('utf8'));
        return;
      }
      const rest = decoder.end();
      if (rest.length > 0) yield rest;
      if (!progress.committed && !progress.finished) {
        throw new ProviderStreamError(url, 'the stream closed before any content or finish reason');
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      // Tears the connection down when the consumer stopped early.
      controller.abort();
    }
  }
}

function firstNonSpace(bytes: Uint8Array): number | undefined {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return byte;
  return undefined;
}

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
  return code ? `${message} (${code})` : message;
}
