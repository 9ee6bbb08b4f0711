/**
 * The fast path of SSE classification: the learned shape of a plain text chunk, matched without
 * `JSON.parse` (see {@link ShapeCache}). Anything that does not match goes through
 * {@link classifySseEvent}.
 */
import { plainDeltaShape, type JsonPath } from './chunk-shape.js';
import { classifySseEvent, type SseItem } from './sse-items.js';

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
export class ShapeCache {
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
