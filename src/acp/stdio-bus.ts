/**
 * stdio Bus routing: a pool kernel puts a top-level `"sessionId"` routing key on every client
 * message (beside `jsonrpc`, `id`, `method`). The worker must put the same key back on the
 * response to that request and on every message for the ACP session that request created or
 * used. Without the key, nothing changes.
 *
 * Several clients share one process, so the key is kept per request id and per ACP session.
 * Source: `../shared/ACP-NOTES.md` (stdio Bus kernel 2.0.3).
 */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk/unstable';

type Json = Record<string, unknown>;

/** The routing state of one connection; pure bookkeeping, no I/O. */
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
 * WritableStream (this one), not two.
 */
export function withBusRouting(stream: DirectStream, router = new BusRouter()): Stream {
  // Read on demand rather than piped through a TransformStream: each incoming message costs one
  // read of the inner stream, not pipeTo's reads, writes and ready checks.
  const reader = stream.readable.getReader();
  const readable = new ReadableStream<AnyMessage>(
    {
      async pull(controller) {
        const { value: message, done } = await reader.read();
        if (done) return controller.close();
        const routed = typeof message === 'object' && message !== null ? router.inbound(message as unknown as Json) : message;
        controller.enqueue(routed as unknown as AnyMessage);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  const route = (message: AnyMessage) => router.outbound(message as unknown as Json) as unknown as AnyMessage;
  const direct = stream.write;
  if (direct) {
    const writable = new WritableStream<AnyMessage>({
      write: (message) => direct(route(message)),
      close: () => stream.writable.close(),
      abort: (reason) => stream.writable.abort(reason),
    });
    return { readable, writable };
  }
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
