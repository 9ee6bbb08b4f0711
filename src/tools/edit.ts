/**
 * The `edit_file` replacement as a pure function: exact text, found once (or everywhere with
 * `replace_all`), errors worded for the model.
 */

/** The result of {@link applyEdit}. */
/** `at`: index in the new text where the first replacement starts; `inserted`: the new_string as put in (line ends converted). */
export type EditResult = { ok: true; text: string; replacements: number; at: number; inserted: string } | { ok: false; error: string };

/**
 * Replaces `oldString` by `newString` in `text`.
 * - `oldString` must occur exactly once, or at least once with `replaceAll`.
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
  if (oldString === newString) return { ok: false, error: `old_string and new_string are the same; nothing to change in ${where}.` };
  const count = countOccurrences(text, oldString);
  if (count === 0 && text.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r')) {
    // Models write LF; a CRLF file would otherwise never match. Edit in the file's own line endings.
    const crlf = (s: string) => s.replace(/\r?\n/g, '\r\n');
    if (text.includes(crlf(oldString))) return applyEdit(text, crlf(oldString), crlf(newString), replaceAll, where);
  }
  if (count === 0) {
    return { ok: false, error: `old_string was not found in ${where}. It must match exactly, including whitespace, indentation and line breaks, and without line numbers; read the file again and copy the text.${nearMissHint(text, oldString)}` };
  }
  if (count > 1 && !replaceAll) {
    return { ok: false, error: `old_string was found ${count} times in ${where}. Include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence.` };
  }
  // Nothing before the first occurrence changes, so its index holds in the new text too.
  const at = text.indexOf(oldString);
  if (!replaceAll) return { ok: true, text: text.slice(0, at) + newString + text.slice(at + oldString.length), replacements: 1, at, inserted: newString };
  const pieces = text.split(oldString);
  return { ok: true, text: pieces.join(newString), replacements: pieces.length - 1, at, inserted: newString };
}

/**
 * Places where `needle` (non-empty) starts in `text`, overlapping ones included: `bb` is in `bbb`
 * twice, so an edit of it is ambiguous and refused without `replace_all`.
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
