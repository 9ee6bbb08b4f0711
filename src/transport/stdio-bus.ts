/**
 * stdio Bus routing: a pool kernel puts a top-level `"sessionId"` routing key on every client
 * message (beside `jsonrpc`, `id`, `method`). The worker must put the same key back on the
 * response to that request and on every message for the ACP session that request created or
 * used. Without the key, nothing changes.
 *
 * Several clients share one process, so the key is kept per request id and per ACP session.
 * Source: the stdio Bus kernel 2.0.3 (its worker protocol: the top-level `sessionId` routing key).
 */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk/unstable';

type Json = Record<string, unknown>;

/**
 * The routing state of one connection; pure bookkeeping, no I/O.
 * @internal the routing, checked without stdio.
 */
export class BusRouter {
  /** Keyed requests in flight, by the id the agent sees: their routing key and the client's own id. */
  private readonly byRequest = new Map<string | number, { key: unknown; id: string | number }>();
  private readonly bySession = new Map<string, unknown>();
  private renamed = 0;

  /**
   * Note an incoming message's routing key (if it has one).
   * @returns the message to hand to the agent: the same object, except for a keyed request whose id
   *   is already in flight. Bus clients number their requests independently (each starts at 0 or 1)
   *   and the kernel forwards ids unchanged, so such a request gets a private id, which
   *   {@link outbound} swaps back on its response (and `$/cancel_request` follows it).
   */
  inbound(message: Json): Json {
    if (!('sessionId' in message)) return message;
    const key = message['sessionId'];
    const acpSession = sessionOf(message['params']);
    if (acpSession) this.bySession.set(acpSession, key);
    const id = message['id'];
    if (message['method'] === CANCEL_REQUEST) return this.renameCancelled(message, key);
    if (message['method'] === undefined || !isId(id)) return message;
    let seen: string | number = id;
    while (this.byRequest.has(seen)) seen = `stdio-bus-${++this.renamed}`;
    this.byRequest.set(seen, { key, id });
    return seen === id ? message : { ...message, id: seen };
  }

  /** The outgoing message with its routing key (and the client's own request id) restored; the same object when it has no key. */
  outbound(message: Json): Json {
    if ('sessionId' in message) return message;
    const id = message['id'];
    if (message['method'] === undefined && isId(id)) {
      const request = this.byRequest.get(id);
      if (request) {
        this.byRequest.delete(id);
        const created = sessionOf(message['result']);
        if (created) this.bySession.set(created, request.key);
        return { ...message, id: request.id, sessionId: request.key };
      }
    }
    const acpSession = sessionOf(message['params']);
    const key = acpSession !== undefined ? this.bySession.get(acpSession) : undefined;
    return key === undefined ? message : { ...message, sessionId: key };
  }

  /** `$/cancel_request` names the client's own id: point it at the id the agent saw. */
  private renameCancelled(message: Json, key: unknown): Json {
    const params = message['params'];
    const target = typeof params === 'object' && params !== null ? (params as Json)['requestId'] : undefined;
    for (const [seen, request] of this.byRequest) {
      if (request.key === key && request.id === target && seen !== target) return { ...message, params: { ...(params as Json), requestId: seen } };
    }
    return message;
  }
}

const CANCEL_REQUEST = '$/cancel_request';

function isId(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}

function sessionOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const id = (value as Json)['sessionId'];
  return typeof id === 'string' ? id : undefined;
}

/** A message stream that can also take a message without its WritableStream (see `NdJsonTransport.write`). */
type DirectStream = Stream & { write?: (message: AnyMessage) => Promise<void> | undefined };

/**
 * Wrap a message stream so that routing keys are recorded on the way in and restored on the way
 * out. A stream with a `write` function is written through it: a message then crosses one
 * WritableStream (this one), not two. `inbound` first sees each incoming message (a request with a
 * malformed optional field made acceptable, `lenient-params.ts`). @defaultValue unchanged
 */
export function withBusRouting(stream: DirectStream, router = new BusRouter(), inbound: (message: Json) => Json = (message) => message): Stream {
  // Read on demand rather than piped through a TransformStream: each incoming message costs one
  // read of the inner stream, not pipeTo's reads, writes and ready checks.
  const reader = stream.readable.getReader();
  const readable = new ReadableStream<AnyMessage>(
    {
      async pull(controller) {
        const { value: message, done } = await reader.read();
        if (done) return controller.close();
        const routed = typeof message === 'object' && message !== null ? router.inbound(inbound(message as unknown as Json)) : message;
        controller.enqueue(routed as unknown as AnyMessage);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  const route = (message: AnyMessage) => router.outbound(message as unknown as Json) as unknown as AnyMessage;
  const direct = stream.write;
  if (direct) return { readable, writable: new DirectWritable((message) => direct(route(message)), stream.writable) };
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      return writer.write(route(message));
    },
    close() {
      return writer.close();
    },
    abort(reason) {
      return writer.abort(reason);
    },
  });
  return { readable, writable };
}

/**
 * The WritableStream the SDK writes to when the inner stream takes messages directly. The SDK
 * writes each message as `getWriter()`, `write`, `releaseLock()`: with a WHATWG writer that is
 * ~15-40 µs a message (ready and closed promises made, then rejected with two new TypeErrors on
 * release; measured in a fresh process), four times a tool step. Here `getWriter()` hands out a
 * plain {@link DirectWriter} that calls `write` at once, with the same rules: one writer at a time
 * (`locked`), a released writer's writes reject, a failed write fails every later one,
 * `close`/`abort` end the inner stream. Anything else (`pipeTo`, the stream's own methods) goes
 * through the WritableStream, to the same `write`.
 */
class DirectWritable extends WritableStream<AnyMessage> {
  /** Set while a {@link DirectWriter} holds the stream. */
  held = false;
  failure: { error: unknown } | undefined;
  closing: Promise<void> | undefined;

  constructor(
    readonly send: (message: AnyMessage) => Promise<void> | undefined,
    readonly inner: WritableStream<AnyMessage>,
  ) {
    super({ write: (message) => send(message), close: () => inner.close(), abort: (reason) => inner.abort(reason) });
  }

  override get locked(): boolean {
    return this.held || super.locked;
  }

  override getWriter(): WritableStreamDefaultWriter<AnyMessage> {
    if (this.locked) throw new TypeError('Invalid state: WritableStream is locked');
    this.held = true;
    return new DirectWriter(this) as unknown as WritableStreamDefaultWriter<AnyMessage>;
  }
}

/** The writer of a {@link DirectWritable} (a class: an object literal with getters is slow to make). */
class DirectWriter {
  private released = false;
  readonly desiredSize = 1;
  readonly ready = DONE;

  constructor(private readonly stream: DirectWritable) {}

  get closed(): Promise<void> {
    return this.stream.closing ?? PENDING;
  }

  write(message: AnyMessage): Promise<void> {
    const { stream } = this;
    if (this.released) return Promise.reject(new TypeError('Invalid state: Writer was released'));
    if (stream.failure) return Promise.reject(stream.failure.error);
    if (stream.closing) return Promise.reject(new TypeError('Invalid state: WritableStream is closed'));
    let sent: Promise<void> | undefined;
    try {
      sent = stream.send(message);
    } catch (error) {
      stream.failure ??= { error };
      return Promise.reject(error);
    }
    if (!sent) return DONE;
    return sent.catch((error: unknown) => {
      stream.failure ??= { error };
      throw error;
    });
  }

  close(): Promise<void> {
    if (this.released) return Promise.reject(new TypeError('Invalid state: Writer was released'));
    return (this.stream.closing ??= this.stream.inner.close());
  }

  abort(reason?: unknown): Promise<void> {
    this.stream.failure ??= { error: reason };
    return this.stream.inner.abort(reason);
  }

  releaseLock(): void {
    if (this.released) return;
    this.released = true;
    this.stream.held = false;
  }
}

const DONE = Promise.resolve();
/** A writer's `closed` while the stream is open. */
const PENDING = new Promise<void>(() => undefined);
