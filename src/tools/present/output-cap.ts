/**
 * Caps text given back to the model: head and tail kept, the middle replaced by one note line.
 * Only the model's copy is capped; the client is shown the whole text. (codex does the same in
 * `codex-rs/core/src/context_manager/truncate.rs`; opencode's limits are 2,000 lines / 50 KB.)
 */
import { grouped } from '../../shared/grouped.js';

/** Default most bytes (UTF-8) given to the model. */
const DEFAULT_MAX_BYTES = 50_000;
/** Default most lines given to the model. */
const DEFAULT_MAX_LINES = 2_000;

/** Where the cut is, for writing the note. */
export interface OmittedInfo {
  /** Lines not shown in full (a line cut in the middle counts as omitted). */
  omittedLines: number;
  /** 1-based number (within the capped text) of the first line not shown in full. */
  firstOmittedLine: number;
}

/** Options of {@link capForModel}. */
export interface CapOptions {
  /** Most UTF-8 bytes of kept text (the note comes on top). @defaultValue 50_000 */
  maxBytes?: number;
  /** Most kept lines (the note comes on top). @defaultValue 2_000 */
  maxLines?: number;
  /** Writes the note line; default `[... 1,234 lines omitted ...]`. */
  note?: (info: OmittedInfo) => string;
}

/** The capped text. */
export interface CapResult {
  /** The head, the note on its own line, the tail; or the input unchanged. */
  text: string;
  /** Lines not shown in full; 0 when not truncated. */
  omittedLines: number;
  /** True when something was cut. */
  truncated: boolean;
}

/** `1 line`, `2 lines`, `1,234 lines`: a count and its noun, agreeing. `plural` @defaultValue `${singular}s` */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${grouped(n)} ${n === 1 ? singular : plural}`;
}

/**
 * The default note: `[... 1,234 lines omitted ...]`.
 * @internal the tests compare a cut's note with it.
 */
export function genericNote({ omittedLines }: OmittedInfo): string {
  return `[... ${counted(omittedLines, 'line')} omitted ...]`;
}

/** The note for file reads, pointing at the `offset`/`limit` that show the rest. */
export function readFileNote(lineOffset = 0): (info: OmittedInfo) => string {
  return ({ omittedLines, firstOmittedLine }) =>
    `[... ${counted(omittedLines, 'line')} omitted; use offset/limit to read them (they start at offset ${lineOffset + firstOmittedLine}) ...]`;
}

/** Number of lines: newline count, plus one when the text does not end with a newline (0 for ""). */
export function countLines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return text.length > 0 && !text.endsWith('\n') ? count + 1 : count;
}

/**
 * Keeps the head and tail of `text` within `maxBytes` UTF-8 bytes and `maxLines` lines (half of
 * each budget per side), cutting at line ends; when even one line does not fit, that line is cut
 * at a code point boundary (a surrogate pair is never split). The note line goes between.
 * Result: at most `maxBytes` + the note's bytes + 2 newline bytes, and `maxLines` + 1 lines.
 * @returns the input itself when it is within both limits.
 */
export function capForModel(text: string, options: CapOptions = {}): CapResult {
  const maxBytes = Math.max(0, options.maxBytes ?? DEFAULT_MAX_BYTES);
  const maxLines = Math.max(0, options.maxLines ?? DEFAULT_MAX_LINES);
  const totalLines = countLines(text);
  if (totalLines <= maxLines && Buffer.byteLength(text) <= maxBytes) return { text, omittedLines: 0, truncated: false };

  const headByteCap = Math.ceil(maxBytes / 2);
  const tailByteCap = maxBytes - headByteCap;
  const headLineCap = Math.ceil(maxLines / 2);
  const tailLineCap = maxLines - headLineCap;

  let headEnd = 0;
  let headFull = 0;
  for (let used = 0; headFull < headLineCap && headEnd < text.length; headFull++) {
    const newline = text.indexOf('\n', headEnd);
    const end = newline === -1 ? text.length : newline + 1;
    const bytes = Buffer.byteLength(text.slice(headEnd, end));
    if (used + bytes > headByteCap) break;
    used += bytes;
    headEnd = end;
  }
  if (headFull === 0 && headLineCap > 0) headEnd = prefixEnd(text, headByteCap);

  let tailStart = text.length;
  let tailFull = 0;
  for (let used = 0; tailFull < tailLineCap && tailStart > headEnd; tailFull++) {
    // The line ending at tailStart begins after the newline before its own last character.
    const newline = tailStart - 2 < 0 ? -1 : text.lastIndexOf('\n', tailStart - 2);
    const start = newline + 1;
    if (start < headEnd) break;
    const bytes = Buffer.byteLength(text.slice(start, tailStart));
    if (used + bytes > tailByteCap) break;
    used += bytes;
    tailStart = start;
  }
  if (tailFull === 0 && tailLineCap > 0) tailStart = suffixStart(text, headEnd, tailByteCap);

  const omittedLines = Math.max(1, totalLines - headFull - tailFull);
  const note = (options.note ?? genericNote)({ omittedLines, firstOmittedLine: headFull + 1 });
  const head = text.slice(0, headEnd);
  const tail = text.slice(tailStart);
  const joined = `${head}${head === '' || head.endsWith('\n') ? '' : '\n'}${note}\n${tail}`;
  return { text: joined, omittedLines, truncated: true };
}

/** The end index of the longest prefix of `text` within `maxBytes` UTF-8 bytes, at a code point boundary. */
export function prefixEnd(text: string, maxBytes: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.codePointAt(i) ?? 0;
    const size = utf8Size(code);
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += code > 0xffff ? 2 : 1;
  }
  return i;
}

/**
 * The start index of the longest suffix of `text` (not before `floor`) within `maxBytes` UTF-8 bytes, at a code point boundary.
 * @internal checked on its own (never inside a surrogate pair).
 */
export function suffixStart(text: string, floor: number, maxBytes: number): number {
  let bytes = 0;
  let i = text.length;
  while (i > floor) {
    const low = text.charCodeAt(i - 1);
    const high = i - 2 >= floor ? text.charCodeAt(i - 2) : 0;
    const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
    const size = pair ? 4 : utf8Size(low);
    if (bytes + size > maxBytes) break;
    bytes += size;
    i -= pair ? 2 : 1;
  }
  return i;
}

/** UTF-8 bytes of a code point; a lone surrogate is written as U+FFFD (3 bytes), as Buffer does. */
function utf8Size(code: number): number {
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code < 0x10000) return 3;
  return 4;
}
