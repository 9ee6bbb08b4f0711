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
import type { ChatCompletionChunk, ChatErrorObject } from './openai-types.js';

/**
 * One classified SSE event.
 * - `chunk`: the data was a JSON object (a `chat.completion.chunk`, not validated further).
 * - `done`: `data: [DONE]`, the OpenAI end-of-stream marker.
 * - `error`: an `event: error` event, or any JSON data whose top-level `error` is a non-null
 *   object (Groq and OpenRouter in-stream errors). When an `event: error` carries data that is
 *   not JSON, the error is `{ message: data }`.
 * - `skip`: nothing usable (empty data, non-JSON data, JSON that is not an object); `reason`
 *   says why, for logs.
 */
export type SseItem =
  | { kind: 'chunk'; chunk: ChatCompletionChunk }
  | { kind: 'done' }
  | { kind: 'error'; error: ChatErrorObject }
  | { kind: 'skip'; reason: string };

const DONE: SseItem = Object.freeze({ kind: 'done' }) as SseItem;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Stateless: classify one SSE event's data (see {@link SseItem} for the rules).
 *
 * @param event - the event type (`event:` field; absent means `message`) and its joined data.
 * @returns exactly one item; never throws (invalid JSON becomes `skip`).
 */
export function classifySseEvent(event: { event?: string | undefined; data: string }): SseItem {
  const data = event.data;
  const isErrorEvent = event.event === 'error';
  if (data === '[DONE]') return DONE;
  if (data.length === 0) {
    return isErrorEvent ? { kind: 'error', error: { message: 'error event without data' } } : { kind: 'skip', reason: 'empty data' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    if (isErrorEvent) return { kind: 'error', error: { message: data } };
    // Tolerate `[DONE]` with surrounding whitespace; checked only on the rare non-JSON path.
    if (data.trim() === '[DONE]') return DONE;
    return { kind: 'skip', reason: 'data is not JSON' };
  }
  if (!isObject(parsed)) {
    if (isErrorEvent) return { kind: 'error', error: { message: typeof parsed === 'string' ? parsed : data } };
    return { kind: 'skip', reason: 'JSON data is not an object' };
  }
  const error = parsed['error'];
  if (isObject(error)) return { kind: 'error', error: error as ChatErrorObject };
  if (isErrorEvent) return { kind: 'error', error: parsed as ChatErrorObject };
  return { kind: 'chunk', chunk: parsed as ChatCompletionChunk };
}

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

/**
 * Create an {@link SseDecoder}. Work is linear in the input: one streaming `TextDecoder`
 * (UTF-8, BOM stripped, invalid bytes become U+FFFD) and one eventsource-parser that only
 * buffers the incomplete last line. Never throws: malformed input becomes `skip` items or is
 * ignored (unknown fields), invalid UTF-8 becomes U+FFFD.
 */
export function createSseDecoder(): SseDecoder {
  const text = new TextDecoder('utf-8', { fatal: false });
  let out: SseItem[] = [];
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
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
      const chunk = text.decode(bytes, { stream: true });
      if (chunk.length > 0) parser.feed(chunk);
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
