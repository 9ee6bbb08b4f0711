/**
 * Telling text from binary, and decoding text files, for the local tools.
 *
 * A file is binary when its first 8 KiB hold a NUL byte (what git and grep look at), or when more
 * than 1 in 8 of the characters decoded from them are invalid UTF-8. A text file with a few invalid
 * bytes (say Latin-1 accents) is decoded with U+FFFD in their place.
 */

/** Bytes looked at to decide whether a file is binary. */
export const SNIFF_BYTES = 8 * 1024;

/** Share of invalid characters in the sniffed bytes above which a file counts as binary. */
const MAX_INVALID_SHARE = 1 / 8;

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * True when `bytes` look like a binary file (see the module comment). Pure.
 * @internal the sniffing rule is checked on bytes alone.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return true;
  let text = decoder.decode(head);
  // The sniff window may end inside a multi-byte character: that one is not a sign of binary.
  if (head.length === SNIFF_BYTES) text = text.replace(/\uFFFD{1,3}$/, '');
  if (text.length === 0) return false;
  let invalid = 0;
  for (let i = text.indexOf('\uFFFD'); i !== -1; i = text.indexOf('\uFFFD', i + 1)) invalid++;
  return invalid / text.length > MAX_INVALID_SHARE;
}

/**
 * The text of a file's bytes, or null when they look binary.
 * A leading byte order mark is kept in the text, so that writing the text back keeps it.
 */
export function decodeText(bytes: Uint8Array): string | null {
  return looksBinary(bytes) ? null : decoder.decode(bytes);
}

/** `1.5 MiB`, `312 bytes`: a size for messages. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
