/**
 * Where an `edit_file` goes when its `old_string` is not in the file exactly: a cascade of
 * fallbacks, each tried only when the ones before it found nothing, each applied only when it
 * finds exactly one place. Pure.
 *
 * The steps: our own `read_file` line prefixes taken off (then the whole cascade again); trailing
 * whitespace per line ignored; indentation ignored while each line's depth relative to the block
 * is kept (tabs vs spaces, the block shifted), the replacement re-indented to the file's; escapes
 * written twice decoded where the file holds no such literal text (then the cascade again);
 * Unicode punctuation read as ASCII. A fallback that finds two places or more is never applied:
 * the candidates' line numbers are returned. Only the matched range is replaced: every byte
 * outside it stays. Line endings follow the file's (a CRLF file stays CRLF).
 *
 * Facts read (no code taken): opencode's `edit.ts` replacer cascade, codex `apply_patch`
 * `seek_sequence`, aider's editblock fallbacks; reports of failing edits in tab-indented files
 * (anthropics/claude-code#26996, charmbracelet/crush#3452). No similarity threshold or edit
 * distance: a near match that is not one of these normalisations is not taken.
 */
import { findBlocks, indentMap, indentStyle, indexLines, reindent, sameTrimEnd, sameTrimmed, type LineIndex } from './edit-lines.js';
import {
  adaptPunctuation,
  decodeEscapes,
  escapesToDecode,
  hasUnicodePunctuation,
  normalisePunctuation,
  stripEachLinePrefix,
  stripLinePrefixes,
} from './edit-normalise.js';

/**
 * The result of {@link matchEdit}: the range `[start, end)` of the file to replace by
 * `replacement` with a one-line `note` saying what the fallback did (none for an exact match);
 * or nothing found; or several places (1-based first lines, `how` naming the fallback); or a
 * match whose replacement cannot be adapted (`error` says why).
 */
export type EditMatch =
  | { ok: true; start: number; end: number; replacement: string; note?: string }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'ambiguous'; how: string; lines: number[] }
  | { ok: false; reason: 'refused'; error: string };

const NOT_FOUND: EditMatch = { ok: false, reason: 'not_found' };

/** Which steps a nested run of the cascade may still take. */
interface Steps {
  prefixes: boolean;
  escapes: boolean;
}

/**
 * Finds the one place `old` stands for in `text` and the text to put there. An exact unique match
 * (also with LF line ends in a CRLF file) is returned as is; an exact match found more than once
 * is `ambiguous` with `how` = `exactly`; otherwise the fallbacks run. `old` must not be empty.
 * Never throws.
 */
export function matchEdit(text: string, old: string, replacement: string, steps: Steps = { prefixes: true, escapes: true }): EditMatch {
  const exact = exactMatch(text, old, replacement);
  if (exact) return exact;
  if (steps.prefixes) {
    const stripped = stripLinePrefixes(old);
    if (stripped !== undefined && stripped.trim() !== '') {
      const result = matchEdit(text, stripped, stripEachLinePrefix(replacement), { ...steps, prefixes: false });
      return result.ok
        ? withNote(result, 'the line-number prefixes of read_file were removed from old_string')
        : withHow(result, 'without its line-number prefixes');
    }
  }
  const byLines = lineMatch(text, old, replacement);
  if (byLines !== NOT_FOUND) return byLines;
  if (steps.escapes) {
    const which = escapesToDecode(old, text);
    if (which.length > 0) {
      const result = matchEdit(text, decodeEscapes(old, which), decodeEscapes(replacement, which), { prefixes: false, escapes: false });
      return result.ok
        ? withNote(result, `${which.join(', ')} in old_string and new_string were read as the characters they stand for`)
        : withHow(result, `with ${which.join(', ')} read as the characters they stand for`);
    }
  }
  return punctuationMatch(text, old, replacement);
}

/** The exact match, with the file's CRLF line ends when `old` was written with LF; undefined when absent. */
function exactMatch(text: string, old: string, replacement: string): EditMatch | undefined {
  let at = text.indexOf(old);
  if (at === -1 && text.includes('\r\n') && old.includes('\n') && !old.includes('\r')) {
    [old, replacement] = [toCrlf(old), toCrlf(replacement)];
    at = text.indexOf(old);
  }
  if (at === -1) return undefined;
  const places = startsOf(text, old);
  if (places.length > 1) return { ok: false, reason: 'ambiguous', how: 'exactly', lines: places.map((i) => lineOf(text, i)) };
  return { ok: true, start: at, end: at + old.length, replacement };
}

/** Trailing whitespace ignored, then indentation ignored: whole lines of the file. */
function lineMatch(text: string, old: string, replacement: string): EditMatch {
  const oldLines = toLines(old);
  if (!oldLines.lines.some((line) => line.trim() !== '')) return NOT_FOUND;
  const newLines = replacement === '' ? { lines: [], eol: false } : toLines(replacement);
  const file = indexLines(text);
  const span = (k: number) => `${k + 1 === k + oldLines.lines.length ? `line ${k + 1}` : `lines ${k + 1}–${k + oldLines.lines.length}`}`;

  const trimmedEnd = findBlocks(file.lines, oldLines.lines, sameTrimEnd);
  if (trimmedEnd.length > 1) return { ok: false, reason: 'ambiguous', how: 'once trailing whitespace is ignored', lines: trimmedEnd.map((k) => k + 1) };
  if (trimmedEnd.length === 1) {
    const k = trimmedEnd[0]!;
    return place(text, file, k, oldLines, newLines.lines, newLines.eol, `old_string matched at ${span(k)} once trailing whitespace was ignored`);
  }

  const indented = findBlocks(file.lines, oldLines.lines, sameTrimmed).filter((k) => indentMap(file.lines, k, oldLines.lines) !== undefined);
  if (indented.length > 1) return { ok: false, reason: 'ambiguous', how: 'with different indentation', lines: indented.map((k) => k + 1) };
  if (indented.length === 0) return NOT_FOUND;
  const k = indented[0]!;
  const block = file.lines.slice(k, k + oldLines.lines.length);
  const adapted = reindent(newLines.lines, indentMap(file.lines, k, oldLines.lines)!, block, file.lines);
  if (!adapted.ok) return { ok: false, reason: 'refused', error: `old_string matched with different indentation at ${span(k)}, but ${adapted.error}` };
  const style = indentStyle(block) ?? indentStyle(file.lines);
  const styled = style === 'tabs' ? ' (tabs)' : style === 'spaces' ? ' (spaces)' : '';
  return place(
    text,
    file,
    k,
    oldLines,
    adapted.lines,
    newLines.eol,
    `old_string matched with different indentation at ${span(k)}; new_string was re-indented to the file's${styled}`,
  );
}

/** The replacement of file lines `k…` by `lines`, joined with the file's line end. */
function place(
  text: string,
  file: LineIndex,
  k: number,
  old: { lines: string[]; eol: boolean },
  lines: readonly string[],
  newEol: boolean,
  note: string,
): EditMatch {
  const last = k + old.lines.length - 1;
  const lineEnd = text.slice(file.ends[k]!, file.after[k]!) || (text.includes('\r\n') ? '\r\n' : '\n');
  const start = file.starts[k]!;
  const end = old.eol ? file.after[last]! : file.ends[last]!;
  return { ok: true, start, end, replacement: lines.join(lineEnd) + (newEol && lines.length > 0 ? lineEnd : ''), note };
}

/** Curly quotes, Unicode dashes and special spaces read as ASCII, in `text` and `old` alike. */
function punctuationMatch(text: string, old: string, replacement: string): EditMatch {
  if (!hasUnicodePunctuation(old) && !hasUnicodePunctuation(text)) return NOT_FOUND;
  if (text.includes('\r\n') && !old.includes('\r')) [old, replacement] = [toCrlf(old), toCrlf(replacement)];
  const haystack = normalisePunctuation(text);
  const needle = normalisePunctuation(old);
  const at = haystack.indexOf(needle);
  if (at === -1) return NOT_FOUND;
  const places = startsOf(haystack, needle);
  if (places.length > 1)
    return { ok: false, reason: 'ambiguous', how: 'once Unicode quotes, dashes and spaces are read as ASCII', lines: places.map((i) => lineOf(text, i)) };
  const matched = text.slice(at, at + old.length);
  return {
    ok: true,
    start: at,
    end: at + old.length,
    replacement: adaptPunctuation(old, matched, replacement),
    note: `old_string matched at line ${lineOf(text, at)} once Unicode quotes, dashes and spaces were read as ASCII`,
  };
}

/** Lines of a model's string (CR dropped), and whether it ended with a line end. */
function toLines(s: string): { lines: string[]; eol: boolean } {
  const lf = s.replace(/\r\n/g, '\n');
  const eol = lf.endsWith('\n');
  return { lines: (eol ? lf.slice(0, -1) : lf).split('\n'), eol };
}

function toCrlf(s: string): string {
  return s.replace(/\r?\n/g, '\r\n');
}

/** Where `needle` starts in `text` (overlapping places too), at most 11 of them. */
function startsOf(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1 && found.length <= 10; at = text.indexOf(needle, at + 1)) found.push(at);
  return found;
}

/** The 1-based line at index `at`. */
function lineOf(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** An ambiguous result of a nested cascade, saying which normalisation came first. */
function withHow(result: EditMatch, first: string): EditMatch {
  if (result.ok || result.reason !== 'ambiguous') return result;
  return { ...result, how: result.how === 'exactly' ? first : `${first} and ${result.how}` };
}

function withNote(result: EditMatch & { ok: true }, what: string): EditMatch {
  return { ...result, note: result.note ? `${what}; ${result.note}` : what };
}
