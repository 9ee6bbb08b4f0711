/**
 * JSON without a whole-text copy of long strings: a request or record that carries a prompt of
 * tens of MB is otherwise held as a JSON string and again as its bytes.
 *
 * The JSON is produced as pieces of text: the short parts as `JSON.stringify` wrote them, and each
 * long string that needs no escaping as the very string the value holds (between two `"` pieces).
 * Those pieces are then written out one by one ({@link JsonPieces.chunks}, e.g. to a socket, so
 * the long text is never copied whole) or encoded into one buffer ({@link jsonBytes}).
 */

/** Strings at least this long (UTF-16 code units) are kept as they are instead of copied into the JSON text. */
const LONG = 64 * 1024;
/** Characters JSON must escape, and surrogates (a lone one is escaped, a pair is kept: let `JSON.stringify` decide). */
const NEEDS_JSON = /["\\\u0000-\u001f\ud800-\udfff]/;
/** Longest chunk {@link JsonPieces.chunks} yields by default, in UTF-16 code units: 1 Mi. */
const CHUNK_CHARS = 1024 * 1024;

/** The UTF-8 JSON text of a value as pieces, in order. */
export interface JsonPieces {
  /** The text's length in UTF-8 bytes. */
  readonly byteLength: number;
  /** The pieces of text; joined they are the JSON text. */
  readonly pieces: readonly string[];
  /**
   * The text as strings of at most `maxChars` code units each (longer pieces are sliced: a V8
   * slice shares the string's memory), for writing out without a whole copy. A surrogate pair is
   * never cut. @defaultValue maxChars 1 Mi
   */
  chunks(maxChars?: number): Generator<string>;
}

/**
 * `JSON.stringify(value)` (after `prefix`) as {@link JsonPieces}: the same text, code unit for
 * code unit, with long strings that need no escaping left uncopied.
 *
 * @param prefix - text written before the JSON (a line feed for an appended line). @defaultValue ''
 * @throws what `JSON.stringify` throws (cycles, BigInt, too deep)
 */
export function jsonPieces(value: unknown, prefix = ''): JsonPieces {
  const long: string[] = [];
  const nonce = Math.random().toString(36).slice(2);
  const mark = (i: number) => `\u0000${nonce}:${i}\u0000`;
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' && v.length >= LONG && !NEEDS_JSON.test(v) ? mark(long.push(v) - 1) : v));
  const pieces: string[] = [];
  if (long.length === 0) pieces.push(prefix + text);
  else {
    // Each mark appears in the text as its JSON string, `"\u0000nonce:i\u0000"`.
    let from = 0;
    for (let i = 0; i < long.length; i++) {
      const marker = JSON.stringify(mark(i));
      const at = text.indexOf(marker, from);
      pieces.push(`${i === 0 ? prefix : ''}${text.slice(from, at)}"`, long[i]!, '"');
      from = at + marker.length;
    }
    pieces.push(text.slice(from));
  }
  return piecesOf(pieces);
}

/** {@link JsonPieces} of text already in pieces (e.g. one line of JSON). */
export function piecesOf(pieces: readonly string[]): JsonPieces {
  let byteLength = 0;
  for (const piece of pieces) byteLength += Buffer.byteLength(piece, 'utf8');
  return { byteLength, pieces, chunks: (maxChars = CHUNK_CHARS) => chunksOf(pieces, maxChars) };
}

/** `pieces` in slices of at most `maxChars` code units (one more to keep a surrogate pair whole). */
function* chunksOf(pieces: readonly string[], maxChars: number): Generator<string> {
  for (const piece of pieces) {
    if (piece.length <= maxChars) {
      if (piece.length > 0) yield piece;
      continue;
    }
    for (let at = 0; at < piece.length; ) {
      let end = Math.min(at + maxChars, piece.length);
      const last = piece.charCodeAt(end - 1);
      if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end++;
      yield piece.slice(at, end);
      at = end;
    }
  }
}

/** The UTF-8 bytes of `json`'s text, in one buffer (each piece encoded once, straight into it). */
export function bytesOf(json: JsonPieces): Buffer {
  const { byteLength, pieces } = json;
  if (pieces.length === 1) return Buffer.from(pieces[0]!, 'utf8');
  const out = Buffer.allocUnsafe(byteLength);
  let at = 0;
  for (const piece of pieces) at += out.write(piece, at, 'utf8');
  return out;
}

/**
 * `Buffer.from(prefix + JSON.stringify(value), 'utf8')`, byte for byte, but long strings that need
 * no escaping are encoded once, into the result, instead of first into the JSON text.
 *
 * @param prefix - text written before the JSON (a line feed for an appended line). @defaultValue ''
 * @throws what `JSON.stringify` throws (cycles, BigInt, too deep)
 * @internal the whole-bytes form, checked against JSON.stringify as the reference of the pieces.
 */
export function jsonBytes(value: unknown, prefix = ''): Buffer {
  return bytesOf(jsonPieces(value, prefix));
}
