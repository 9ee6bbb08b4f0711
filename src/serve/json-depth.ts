/**
 * The nesting depth of a JSON text, read from its raw bytes before anything parses it (pure): a
 * message of `[[[[…` 15 MiB deep otherwise costs `JSON.parse` and the schemas after it seconds of
 * one thread, while every other client waits. Read incrementally ({@link DepthScanner}), as the
 * bytes arrive, so a message too deep is refused at its first bracket past the limit and the rest
 * of it is never held, decoded or parsed. No allocation; brackets inside strings (escapes
 * included) do not count. Bytes of UTF-8 multi-byte characters are never ASCII brackets or quotes,
 * so bytes are read as they come, and a chunk may end anywhere (inside a character or an escape).
 *
 * Source: RFC 8259 §9 ("An implementation may set limits on the maximum depth of nesting").
 */

/** Deepest nesting of objects and arrays a client message may have: far past any ACP message (a tool's JSON Schema nests a few dozen levels). */
export const MAX_JSON_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * The depth of one JSON text read in chunks. Malformed text is not judged here (the parser refuses
 * it after); only the depth of what it opens counts.
 */
export class DepthScanner {
  private depth = 0;
  private inString = false;
  /** The previous byte was a backslash inside a string (the next one is escaped). */
  private escaped = false;
  /** Whether the text has opened more than `max` levels at some point (it stays so). */
  tooDeep = false;

  /** @param max - the deepest nesting allowed. @defaultValue {@link MAX_JSON_DEPTH} */
  constructor(private readonly max = MAX_JSON_DEPTH) {}

  /**
   * Reads the next `bytes`; with `mask` (a WebSocket frame's 4-byte masking key) each byte is first
   * XORed with `mask[(maskOffset + i) % 4]` (RFC 6455 §5.3), so a frame's payload is read in place.
   * @returns {@link tooDeep}: true from the first bracket past the limit on (reading stops there).
   */
  push(bytes: Uint8Array, mask?: Uint8Array, maskOffset = 0): boolean {
    if (this.tooDeep) return true;
    let { depth, inString, escaped } = this;
    const { max } = this;
    for (let i = 0; i < bytes.length; i++) {
      const byte = mask ? bytes[i]! ^ mask[(maskOffset + i) & 3]! : bytes[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) inString = true;
      else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        if (++depth > max) {
          this.tooDeep = true;
          return true;
        }
      } else if ((byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) && depth > 0) depth--;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return false;
  }
}

/** The JSON-RPC error answering a message nested too deep: -32600, with `id` null (the message was not read). */
export function tooDeepError(max = MAX_JSON_DEPTH): { jsonrpc: '2.0'; id: null; error: { code: number; message: string; data: { maxDepth: number } } } {
  return { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: JSON nested deeper than ${max} levels`, data: { maxDepth: max } } };
}
