/**
 * The answer of a `node:http` request as the chat client reads it: status, headers, and the body
 * as an async iterator of byte chunks, with no WHATWG `Response` or `ReadableStream` in between
 * (building those per request, and reading through the web stream's iterator, was a measured part
 * of the agent's time per tool step). `http.ts` wraps the same iterator in a `ReadableStream` for
 * its `fetch`-shaped `nodeFetch`, so both read bodies with one set of rules:
 * - chunks that arrive in one tick (one socket read holds many HTTP chunks) are delivered as one:
 *   a reader then handles 64 KiB at a time instead of 16 KiB pieces; nothing waits for more data
 *   than has arrived;
 * - backpressure: the socket is paused while a chunk waits unread;
 * - an abort of `signal` fails the body with the signal's reason (as `fetch` does), and a
 *   connection that closes before the body's end fails it with `TypeError('terminated')` whose
 *   cause says `other side closed` (undici's words, which users already know); chunks not yet
 *   read are then dropped;
 * - `return()` (a `for await` left early, a cancelled stream) closes the connection.
 */
import type * as Http from 'node:http';
import type { HeaderReader } from './errors.js';

/** The parts of a WHATWG `Response` the chat client reads; a `Response` is one. */
export interface ByteAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: HeaderReader;
  /** The body's bytes, or `null` for a status without body (and for `HEAD`). */
  readonly body: AsyncIterable<Uint8Array> | null;
}

/** Statuses whose `Response` has no body (Fetch standard, "null body status"). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** A `Headers` of a response's raw header list (names and values as received, in order). */
export function headersOf(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/**
 * Reads a raw header list (names and values as received, in order) as `Headers.get` does: names
 * case-insensitively, repeated headers joined with `, `. No `Headers` is built.
 * @internal a pure reader checked on raw header lists without a socket.
 */
export function rawHeaderReader(raw: readonly string[]): HeaderReader {
  return {
    get(name) {
      const wanted = name.toLowerCase();
      let value: string | null = null;
      for (let i = 0; i < raw.length; i += 2) {
        if (raw[i]!.toLowerCase() === wanted) value = value === null ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
      }
      return value;
    },
  };
}

/** The {@link ByteAnswer} of a response head. A status outside 200–599 keeps its number (`ok` is false for it). */
export function byteAnswer(res: Http.IncomingMessage, method: string, signal: AbortSignal | undefined): ByteAnswer {
  const status = res.statusCode ?? 0;
  let body: BodyChunks | null = null;
  if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') res.resume();
  else body = new BodyChunks(res, signal);
  return { status, ok: status >= 200 && status <= 299, headers: rawHeaderReader(res.rawHeaders), body };
}

type Waiter = { resolve: (result: IteratorResult<Uint8Array>) => void; reject: (error: unknown) => void };
const END: IteratorResult<Uint8Array> = Object.freeze({ done: true, value: undefined });

/**
 * The body of `res` as an async iterator of chunks (see the module comment for the rules). One
 * reader at a time: `next()` is not called again before its promise settles.
 */
class BodyChunks implements AsyncIterableIterator<Uint8Array> {
  /** Arrived, not yet delivered. */
  private pending: Buffer[] = [];
  private flushQueued = false;
  /** The source ended (after `pending` is delivered, the iteration is done). */
  private ended = false;
  /** Settled by a failure, an abort or `return()`: nothing more is delivered (but `failure`, to every read). */
  private done = false;
  private failure: { error: unknown } | undefined;
  private waiter: Waiter | undefined;
  private readonly onAbort: () => void;

  constructor(
    private readonly res: Http.IncomingMessage,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.onAbort = () => {
      this.fail(signal!.reason);
      res.destroy();
    };
    signal?.addEventListener('abort', this.onAbort, { once: true });
    res.on('data', (chunk: Buffer) => {
      if (this.done) return;
      if (this.pending.push(chunk) === 1 && !this.flushQueued) {
        this.flushQueued = true;
        queueMicrotask(this.flush);
      }
    });
    res.once('end', () => {
      this.flush();
      if (this.done) return;
      this.ended = true;
      this.signal?.removeEventListener('abort', this.onAbort);
      if (this.waiter && this.pending.length === 0) this.settle().resolve(END);
    });
    const cut = () => this.fail(new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }));
    res.once('aborted', cut);
    res.once('error', (error: Error & { code?: string }) =>
      error.code === 'ECONNRESET' && error.message === 'aborted' ? cut() : this.fail(new TypeError('terminated', { cause: error })),
    );
    res.once('close', () => {
      if (!this.done && !this.ended && !res.complete) cut();
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.pending.length > 0) return Promise.resolve({ done: false, value: this.take() });
    if (this.done || this.ended) return Promise.resolve(END);
    this.res.resume();
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /** Stops reading: the connection is closed (unless the body had ended). */
  return(): Promise<IteratorResult<Uint8Array>> {
    if (!this.done) {
      this.done = true;
      this.pending = [];
      this.signal?.removeEventListener('abort', this.onAbort);
      if (!this.ended) this.res.destroy();
    }
    return Promise.resolve(END);
  }

  /** Delivers what arrived to a waiting reader, else pauses the socket until it is read. */
  private readonly flush = (): void => {
    this.flushQueued = false;
    if (this.done || this.pending.length === 0) return;
    if (this.waiter) this.settle().resolve({ done: false, value: this.take() });
    else this.res.pause();
  };

  private take(): Buffer {
    const chunks = this.pending;
    this.pending = [];
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }

  private settle(): Waiter {
    const waiter = this.waiter!;
    this.waiter = undefined;
    return waiter;
  }

  private fail(error: unknown): void {
    if (this.done || this.ended) return;
    this.done = true;
    this.pending = [];
    this.signal?.removeEventListener('abort', this.onAbort);
    // An abort destroys the socket first (http.request's own listener): report the abort, as fetch does.
    const reason = this.signal?.aborted ? this.signal.reason : error;
    this.failure = { error: reason };
    if (this.waiter) this.settle().reject(reason);
  }
}
