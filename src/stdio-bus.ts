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
  private readonly byRequest = new Map<string | number, unknown>();
  private readonly bySession = new Map<string, unknown>();

  /** Note an incoming message's routing key (if it has one). */
  inbound(message: Json): void {
    if (!('sessionId' in message)) return;
    const key = message['sessionId'];
    const id = message['id'];
    if (message['method'] !== undefined && (typeof id === 'string' || typeof id === 'number')) this.byRequest.set(id, key);
    const acpSession = sessionOf(message['params']);
    if (acpSession) this.bySession.set(acpSession, key);
  }

  /** The outgoing message with its routing key restored (the same object when it has none). */
  outbound(message: Json): Json {
    if ('sessionId' in message) return message;
    const id = message['id'];
    let key: unknown;
    if (message['method'] === undefined && (typeof id === 'string' || typeof id === 'number') && this.byRequest.has(id)) {
      key = this.byRequest.get(id);
      this.byRequest.delete(id);
      const created = sessionOf(message['result']);
      if (created) this.bySession.set(created, key);
    } else {
      const acpSession = sessionOf(message['params']);
      if (acpSession && this.bySession.has(acpSession)) key = this.bySession.get(acpSession);
    }
    return key === undefined ? message : { ...message, sessionId: key };
  }
}

function sessionOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const id = (value as Json)['sessionId'];
  return typeof id === 'string' ? id : undefined;
}

/** Wrap a message stream so that routing keys are recorded on the way in and restored on the way out. */
export function withBusRouting(stream: Stream, router = new BusRouter()): Stream {
  const readable = stream.readable.pipeThrough(
    new TransformStream<AnyMessage, AnyMessage>({
      transform(message, controller) {
        if (typeof message === 'object' && message !== null) router.inbound(message as unknown as Json);
        controller.enqueue(message);
      },
    }),
  );
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      return writer.write(router.outbound(message as unknown as Json) as unknown as AnyMessage);
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
