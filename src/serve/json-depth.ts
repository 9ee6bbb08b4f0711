/**
 * The nesting depth of a JSON text, read from its raw bytes before anything parses it (pure): a
 * message of `[[[[…` 15 MiB deep otherwise costs `JSON.parse` and the schemas after it seconds of
 * one thread, while every other client waits. One pass, no allocation, stopping at the first
 * bracket past the limit; brackets inside strings (escapes included) do not count. Bytes of
 * UTF-8 multi-byte characters are never ASCII brackets or quotes, so bytes are read as they come.
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
 * Whether `bytes` (a JSON text, possibly malformed) opens more than `max` objects or arrays
 * inside one another. Malformed text is not judged here (the parser refuses it after); only the
 * depth of what it opens counts.
 */
export function nestsDeeperThan(bytes: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if ((byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) && depth > 0) depth--;
  }
  return false;
}

/** The JSON-RPC error answering a message nested too deep: -32600, with `id` null (the message was not read). */
export function tooDeepError(max = MAX_JSON_DEPTH): { jsonrpc: '2.0'; id: null; error: { code: number; message: string; data: { maxDepth: number } } } {
  return { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: JSON nested deeper than ${max} levels`, data: { maxDepth: max } } };
}
