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
import { plainDeltaShape, type JsonPath } from './chunk-shape.js';

/**
 * One classified SSE event.
 * - `chunk`: the data was a JSON object (a `chat.completion.chunk`, not validated further).
 * - `done`: `data: [DONE]`, the OpenAI end-of-stream marker.
 * - `error`: an `event: error` event, or any JSON data whose top-level `error` is a non-null
 *   object (Groq and OpenRouter in-stream errors), unless that data also has `usage` or `choices`:
 *   then it is a `chunk` (whose `error` the accumulator reports too). When an `event: error` carries data that is
 *   not JSON, the error is `{ message: data }`.
 * - `skip`: nothing usable (empty data, non-JSON data, JSON that is not an object); `reason`
 *   says why, for logs.
 * - `delta`: only from a decoder with `shapes` on (see {@link SseDecoderOptions}): a chunk whose
 *   only effect on a `TurnAccumulator` is this non-empty `content` (or reasoning) text, recognised
 *   without parsing it. Never produced by {@link classifySseEvent}.
 */
export type SseItem =
  | { kind: 'chunk'; chunk: ChatCompletionChunk }
  | { kind: 'delta'; field: 'content' | 'reasoning'; text: string }
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
  // An error chunk may also carry the usage and a finish reason: as a chunk, the accumulator
  // reports the error and keeps those (issue 11 item 17).
  if (isObject(error)) {
    return isObject(parsed['usage']) || Array.isArray(parsed['choices']) ? { kind: 'chunk', chunk: parsed as ChatCompletionChunk } : { kind: 'error', error: error as ChatErrorObject };
  }
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

/** Options of {@link createSseDecoder}. */
export interface SseDecoderOptions {
  /**
   * Recognise chunks shaped like the last plain text chunk without `JSON.parse` and yield them as
   * `delta` items (see {@link ShapeCache}). For consumers that feed a `TurnAccumulator`, which
   * produces the same events either way. @defaultValue false
   */
  shapes?: boolean;
  /**
   * Longest event, in bytes: {@link SseDecoder.push} throws {@link SseEventTooLargeError} as soon as
   * the event being received is longer, so that its bytes are not kept. @defaultValue no limit
   */
  maxEventBytes?: number;
}

/** Thrown by {@link SseDecoder.push} when one event is over `maxEventBytes`. */
export class SseEventTooLargeError extends Error {
  constructor(readonly maxEventBytes: number) {
    super(`one server-sent event is larger than the ${maxEventBytes % 1048576 === 0 ? `${maxEventBytes / 1048576} MiB` : `${maxEventBytes} bytes`} limit, so the stream was abandoned`);
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
  const shapes = options.shapes ? new ShapeCache() : undefined;
  let out: SseItem[] = [];
  const maxEventBytes = options.maxEventBytes ?? Infinity;
  /** Bytes of the event being received (since the last line end after a dispatched event). */
  let pending = 0;
  let dispatched = false;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      dispatched = true;
      out.push(shapes && message.event !== 'error' ? shapes.classify(message.data) : classifySseEvent(message));
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

/** Longest event data matched or learned as a shape, in UTF-16 code units: far above any chunk of text tokens. */
const MAX_SHAPE_CHARS = 64 * 1024;

/** One JSON string token, valid as `JSON.parse` accepts it (no raw control characters; known escapes). */
const STRING_TOKEN = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
/** One JSON number token (RFC 8259 §6), longest match. */
const NUMBER_TOKEN = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * The text of a data event cut at its variable values: `constants[0] slot0 constants[1] slot1 …
 * constants[n]`, each slot one string or number token (`tokens[i]`). Slot `payload` holds the
 * chunk's text; the others hold values the accumulator never reads (`id`, `token_id`, …).
 */
interface Shape {
  constants: string[];
  tokens: RegExp[];
  payload: number;
  field: 'content' | 'reasoning';
}

/**
 * Skips `JSON.parse` for the typical chunk of a stream: the same JSON text as the last plain
 * text chunk except for the text itself and string or number values the accumulator never
 * reads (`id`, `obfuscation`, `token_id`, …). Measured: about 0.6 µs of the ~2.5 µs a 20,000-token turn spends per chunk.
 *
 * Why it is exact: the JSON grammar has no context inside a string token, so replacing string
 * (or number) tokens of a valid JSON text by other valid tokens of the same kind gives a valid
 * text whose parse is the same tree with those leaves changed. A data event that matches a shape is such a text
 * (its constant parts are the learned text's, each slot is one valid token, matched with a
 * JSON-exact pattern; a number slot is followed by a constant that cannot continue a number), and {@link plainDeltaShape} says the accumulator then does exactly what
 * the `delta` item tells it. Anything else (an escape in a slot, a number that changed, an extra
 * field) does not match and goes through {@link classifySseEvent}, which may learn a new shape.
 */
class ShapeCache {
  private shape: Shape | undefined;
  private hits = 0;
  /** Events to let pass before trying to learn again, after shapes that never matched (≤ 64). */
  private cooldown = 0;
  private wait = 0;

  classify(data: string): SseItem {
    // Shapes are for the small chunks of a stream; the token patterns are not meant for
    // megabytes (V8's regex stack overflows near 8 MiB), so a long event is simply parsed.
    if (data.length > MAX_SHAPE_CHARS) return classifySseEvent({ data });
    const shape = this.shape;
    if (shape !== undefined) {
      const text = matchShape(shape, data);
      if (text !== undefined) {
        this.hits++;
        return { kind: 'delta', field: shape.field, text };
      }
    }
    const item = classifySseEvent({ data });
    if (item.kind !== 'chunk') return item;
    if (this.wait > 0) {
      this.wait--;
      return item;
    }
    const learned = learnShape(data, item.chunk);
    if (learned === undefined) return item;
    // A shape replaced before its first use means this stream's chunks vary in ways shapes do
    // not cover (a changing number, say): learn less often, so that costs stay bounded.
    if (shape !== undefined && this.hits === 0) this.wait = this.cooldown = Math.min(64, this.cooldown * 2 || 1);
    else this.cooldown = 0;
    this.shape = learned;
    this.hits = 0;
    return item;
  }
}

/** The text of the payload slot when `data` has `shape`, else `undefined`. */
function matchShape(shape: Shape, data: string): string | undefined {
  const { constants } = shape;
  let position = constants[0]!.length;
  if (!data.startsWith(constants[0]!)) return undefined;
  let literal = '';
  for (let slot = 1; slot < constants.length; slot++) {
    const token = shape.tokens[slot - 1]!;
    token.lastIndex = position;
    if (!token.test(data)) return undefined;
    const end = token.lastIndex;
    if (slot - 1 === shape.payload) literal = data.slice(position, end);
    const constant = constants[slot]!;
    if (!data.startsWith(constant, end)) return undefined;
    position = end + constant.length;
  }
  if (position !== data.length || literal.length <= 2) return undefined;
  return literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}

/**
 * The shape of `data` (whose parse is `chunk`) when the chunk is a plain text delta, else
 * `undefined`. Scans the JSON text once, tracking the path of each string value.
 */
function learnShape(data: string, chunk: unknown): Shape | undefined {
  const plain = plainDeltaShape(chunk);
  if (plain === undefined) return undefined;
  const constants: string[] = [];
  const tokens: RegExp[] = [];
  let payload = -1;
  let from = 0;
  // Per open container: the current key (objects) or position (arrays), and whether a key comes next.
  const stack: { key: string | number; expectKey: boolean; array: boolean }[] = [];
  for (let i = 0; i < data.length; ) {
    const c = data.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x22 /* " */) {
      STRING_TOKEN.lastIndex = i;
      if (!STRING_TOKEN.test(data)) return undefined;
      const end = STRING_TOKEN.lastIndex;
      if (top !== undefined && !top.array && top.expectKey) {
        top.key = JSON.parse(data.slice(i, end)) as string;
        top.expectKey = false;
      } else {
        const path: JsonPath = stack.map((entry) => entry.key);
        const isPayload = samePath(path, plain.path);
        if (isPayload || !plain.readsValue(path)) {
          if (isPayload) {
            // A duplicate key could hold a second candidate: then no shape.
            if (payload !== -1) return undefined;
            payload = constants.length;
          }
          constants.push(data.slice(from, i));
          tokens.push(STRING_TOKEN);
          from = end;
        }
      }
      i = end;
      continue;
    }
    if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39) /* 0-9 */) {
      NUMBER_TOKEN.lastIndex = i;
      if (!NUMBER_TOKEN.test(data)) return undefined;
      const end = NUMBER_TOKEN.lastIndex;
      if (!plain.readsValue(stack.map((entry) => entry.key))) {
        constants.push(data.slice(from, i));
        tokens.push(NUMBER_TOKEN);
        from = end;
      }
      i = end;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) stack.push({ key: 0, expectKey: c === 0x7b, array: c === 0x5b });
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
    else if (c === 0x2c /* , */ && top !== undefined) {
      if (top.array) top.key = (top.key as number) + 1;
      else top.expectKey = true;
    }
    i++;
  }
  constants.push(data.slice(from));
  return payload === -1 ? undefined : { constants, tokens, payload, field: plain.field };
}

function samePath(a: JsonPath, b: JsonPath): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}
