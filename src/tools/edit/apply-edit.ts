/**
 * The `edit_file` replacement as a pure function: the text found once (or everywhere with
 * `replace_all`), exactly or through the fallbacks of `edit-match.ts`, errors worded for the model.
 */
import { matchEdit } from './edit-match.js';

/** The result of {@link applyEdit}. */
/**
 * `at`: index in the new text where the first replacement starts; `inserted`: the text put in
 * (line ends converted, re-indented); `note`: one line saying what a fallback did, for the model.
 */
export type EditResult = { ok: true; text: string; replacements: number; at: number; inserted: string; note?: string } | { ok: false; error: string };

/** Most candidate lines named when a fallback matches several places: 10. */
const MAX_CANDIDATES = 10;

/**
 * Replaces `oldString` by `newString` in `text`.
 * - `oldString` must occur exactly once, or at least once with `replaceAll`.
 * - When it does not occur at all, the fallbacks of {@link matchEdit} run (line-number prefixes,
 *   trailing whitespace, indentation, escapes, Unicode punctuation), each applied only on a unique
 *   match, with a `note`; a fallback matching several places is refused naming their lines.
 * - An empty `oldString` is refused (it would match everywhere); to create a file, use write_file.
 * - In a CRLF file, an `oldString` written with LF line ends matches, and `newString` gets CRLF too.
 * - Replacement is literal: `$&` and friends in `newString` are not special.
 * @param where - the file as named to the model (used in error messages).
 * @returns never throws.
 */
export function applyEdit(text: string, oldString: string, newString: string, replaceAll = false, where = 'the file'): EditResult {
  if (oldString === '') {
    return { ok: false, error: `old_string is empty. To change ${where}, give the exact text to replace; to replace the whole file, use write_file.` };
  }
  // A CRLF file stays CRLF: the model writes LF.
  if (text.includes('\r\n') && !/(^|[^\r])\n/.test(text)) newString = newString.replace(/\r?\n/g, '\r\n');
  if (oldString === newString) return { ok: false, error: `old_string and new_string are the same; nothing to change in ${where}.` };
  let count = countOccurrences(text, oldString);
  if (count === 0 && text.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r')) {
    // Models write LF; a CRLF file would otherwise never match. Edit in the file's own line endings.
    const crlf = (s: string) => s.replace(/\r?\n/g, '\r\n');
    if (text.includes(crlf(oldString))) {
      if (replaceAll) return applyEdit(text, crlf(oldString), crlf(newString), replaceAll, where);
      count = countOccurrences(text, crlf(oldString));
    }
  }
  if (count >= 1 && replaceAll) {
    const pieces = text.split(oldString);
    return { ok: true, text: pieces.join(newString), replacements: pieces.length - 1, at: text.indexOf(oldString), inserted: newString };
  }
  if (count > 1) {
    return {
      ok: false,
      error: `old_string was found ${count} times in ${where}. Include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence.`,
    };
  }
  const match = matchEdit(text, oldString, newString);
  if (match.ok) {
    // Nothing before the match changes, so its index holds in the new text too.
    const result: EditResult = {
      ok: true,
      text: text.slice(0, match.start) + match.replacement + text.slice(match.end),
      replacements: 1,
      at: match.start,
      inserted: match.replacement,
    };
    if (match.note) result.note = match.note;
    return result;
  }
  if (match.reason === 'refused') return { ok: false, error: `Edit refused: ${match.error}` };
  if (match.reason === 'ambiguous') {
    const lines = match.lines.slice(0, MAX_CANDIDATES).join(', ') + (match.lines.length > MAX_CANDIDATES ? ', …' : '');
    return {
      ok: false,
      error: `old_string was not found exactly in ${where}; ${match.how} it matches ${match.lines.length} places (lines ${lines}). Copy the exact text from one of them with a few more surrounding lines to make it unique.`,
    };
  }
  return {
    ok: false,
    error: `old_string was not found in ${where}. It must match exactly, including whitespace, indentation and line breaks, and without line numbers; read the file again and copy the text.${nearMissHint(text, oldString)}`,
  };
}

/**
 * Places where `needle` (non-empty) starts in `text`, overlapping ones included: `bb` is in `bbb`
 * twice, so an edit of it is ambiguous and refused without `replace_all`.
 * @internal checked by a property test against a naive count.
 */
export function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) count++;
  return count;
}

/** A hint when the text is there but only with different whitespace or line endings. */
function nearMissHint(text: string, oldString: string): string {
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (squash(oldString) !== '' && squash(text).includes(squash(oldString))) return ' (The text is there with different whitespace or indentation.)';
  return '';
}
