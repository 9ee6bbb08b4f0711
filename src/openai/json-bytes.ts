/**
 * JSON as UTF-8 bytes without a whole-text copy of long strings: a request that carries a prompt
 * of tens of MB is otherwise held as a JSON string and again as its bytes (issue 11 item 6).
 */

/** Strings at least this long (UTF-16 code units) are written straight into the bytes. */
const LONG = 64 * 1024;
/** Characters JSON must escape, and surrogates (a lone one is escaped, a pair is kept: let `JSON.stringify` decide). */
const NEEDS_JSON = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `Buffer.from(JSON.stringify(value), 'utf8')`, byte for byte, but long strings that need no
 * escaping are encoded once, into the result, instead of first into the JSON text.
 *
 * @param prefix - text written before the JSON (a line feed for an appended line). @defaultValue ''
 * @throws what `JSON.stringify` throws (cycles, BigInt, too deep)
 */
export function jsonBytes(value: unknown, prefix = ''): Buffer {
  const long: string[] = [];
  const nonce = Math.random().toString(36).slice(2);
  const mark = (i: number) => `\u0000${nonce}:${i}\u0000`;
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' && v.length >= LONG && !NEEDS_JSON.test(v) ? mark(long.push(v) - 1) : v));
  if (long.length === 0) return Buffer.from(prefix + text, 'utf8');
  // Each mark appears in the text as its JSON string, `"\u0000nonce:i\u0000"`.
  const pieces: string[] = [];
  let from = 0;
  const head = prefix;
  for (let i = 0; i < long.length; i++) {
    const marker = JSON.stringify(mark(i));
    const at = text.indexOf(marker, from);
    pieces.push(text.slice(from, at));
    from = at + marker.length;
  }
  pieces.push(text.slice(from));
  pieces[0] = head + pieces[0]!;
  let size = 0;
  for (const piece of pieces) size += Buffer.byteLength(piece, 'utf8');
  for (const s of long) size += Buffer.byteLength(s, 'utf8') + 2;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < pieces.length; i++) {
    at += out.write(pieces[i]!, at, 'utf8');
    if (i < long.length) {
      out[at++] = 0x22;
      at += out.write(long[i]!, at, 'utf8');
      out[at++] = 0x22;
    }
  }
  return out;
}
