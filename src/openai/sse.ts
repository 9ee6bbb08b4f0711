/**
 * Server-Sent Events framing for Chat Completions streams: bytes in, classified items out.
 *
 * Framing follows the WHATWG HTML "Server-sent events" parsing rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * lines end in CRLF, LF or CR; `:` starts a comment; one optional space after `field:` is
 * stripped; several `data:` lines join with `\n`; a blank line dispatches the event. The line
 * parsing itself is eventsource-parser 3.x (`createParser`).
 *
 * Payload conventions (OpenAI streaming, https://platform.openai.com/docs/api-reference/chat/streaming):
 * each event's data is one JSON `chat.completion.chunk`, and `data: [DONE]` ends the stream.
 * Provider deviations handled here, all seen in `test/fixtures/providers/`: Groq ends a 200
 * stream with `event: error` + `data: {"error":{…}}` and no `[DONE]`; OpenRouter puts
 * `{"error":{…}}` in an ordinary data event; OpenRouter sends `: OPENROUTER PROCESSING` comments;
 * Cerebras (via the Hugging Face router) ends without `[DONE]`.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { describeBytes } from '../shared/describe-bytes.js';
import { classifySseEvent, type SseItem } from './sse-items.js';

export type { SseItem } from './sse-items.js';

/**
 * Incremental decoder: bytes in (split anywhere, including inside a UTF-8 multi-byte character
 * or between the CR and LF of a CRLF), items out, synchronously.
 */
export interface SseDecoder {
  /**
   * Feed the next bytes of the body.
   * @returns the items of the events those bytes completed, in order (possibly none).
   */
  push(bytes: Uint8Array): SseItem[];
  /**
   * End of body: decode any incomplete UTF-8 tail (as U+FFFD) and deliver a last event that was
   * not terminated by a blank line (or whose last line has no line ending at all).
   * @returns the remaining items; the decoder must not be used afterwards.
   */
  end(): SseItem[];
}

/** Options of {@link createSseDecoder}. */
export interface SseDecoderOptions {
  /**
   * Longest event, in bytes: {@link SseDecoder.push} throws {@link SseEventTooLargeError} as soon as
   * the event being received is longer, so that its bytes are not kept. @defaultValue no limit
   */
  maxEventBytes?: number;
}

/** Thrown by {@link SseDecoder.push} when one event is over `maxEventBytes`. */
export class SseEventTooLargeError extends Error {
  constructor(readonly maxEventBytes: number) {
    super(`one server-sent event is larger than the ${describeBytes(maxEventBytes)} limit, so the stream was abandoned`);
    this.name = 'SseEventTooLargeError';
  }
}

/**
 * Create an {@link SseDecoder}. Work is linear in the input: one streaming `TextDecoder`
 * (UTF-8, BOM stripped, invalid bytes become U+FFFD) and one eventsource-parser that only
 * buffers the incomplete last line. Malformed input becomes `skip` items or is ignored (unknown
 * fields), invalid UTF-8 becomes U+FFFD; the only throw is {@link SseEventTooLargeError}.
 */
export function createSseDecoder(options: SseDecoderOptions = {}): SseDecoder {
  const text = new TextDecoder('utf-8', { fatal: false });
  let out: SseItem[] = [];
  const maxEventBytes = options.maxEventBytes ?? Infinity;
  /** Bytes of the event being received (since the last line end after a dispatched event). */
  let pending = 0;
  let dispatched = false;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      dispatched = true;
      out.push(classifySseEvent(message));
    },
    // Unknown fields (such as a line " data: …" with a leading space) are ignored, as the
    // WHATWG rules say; nothing to report.
    onError() {},
  });
  const take = (): SseItem[] => {
    const items = out;
    out = [];
    return items;
  };
  return {
    push(bytes: Uint8Array): SseItem[] {
      // Counted before feeding, so that an oversized event is refused before the parser keeps it.
      const lineEnd = Math.max(bytes.lastIndexOf(0x0a), bytes.lastIndexOf(0x0d));
      if (lineEnd === -1 && pending + bytes.length > maxEventBytes) throw new SseEventTooLargeError(maxEventBytes);
      dispatched = false;
      const chunk = text.decode(bytes, { stream: true });
      if (chunk.length > 0) parser.feed(chunk);
      pending = dispatched ? bytes.length - 1 - lineEnd : pending + bytes.length;
      if (pending > maxEventBytes) throw new SseEventTooLargeError(maxEventBytes);
      return take();
    },
    end(): SseItem[] {
      const tail = text.decode();
      if (tail.length > 0) parser.feed(tail);
      // eventsource-parser 3.x `reset({ consume: true })` parses a pending line but then
      // discards the event instead of dispatching it; two line feeds terminate any pending
      // line (including a lone trailing CR, which then pairs as CRLF) and dispatch the event.
      parser.feed('\n\n');
      parser.reset();
      return take();
    },
  };
}
