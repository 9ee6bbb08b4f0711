/**
 * The line-based steps of the edit cascade (see `edit-match.ts`): an `old_string` whose lines
 * match a run of whole lines of the file once trailing whitespace is ignored, or once indentation
 * is ignored while its relative structure is kept; and the re-indentation of `new_string` to the
 * matched block's indentation and style (tabs stay tabs). Pure.
 *
 * Facts read (no code taken): codex `apply_patch` `seek_sequence` (exact, then trim-end, then
 * trim), aider's editblock fallback for missing leading whitespace (re-indents the replacement).
 * Stricter than both: relative indentation must agree line by line, and a replacement whose
 * indentation cannot be written in the file's style is refused.
 */

/** Columns of one tab when indentation widths are compared: 4. */
const TAB_COLUMNS = 4;

/** The text split into lines: each line's start, its end before the line end, and after it. */
export interface LineIndex {
  lines: string[];
  starts: number[];
  ends: number[];
  /** Index just past the line end (`\n` or `\r\n`); equals `ends[i]` on a last line without one. */
  after: number[];
}

/** Splits `text` into lines, keeping where each starts and ends. */
export function indexLines(text: string): LineIndex {
  const index: LineIndex = { lines: [], starts: [], ends: [], after: [] };
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    index.lines.push(text.slice(start, end));
    index.starts.push(start);
    index.ends.push(end);
    index.after.push(nl === -1 ? text.length : nl + 1);
    if (nl === -1) return index;
    start = nl + 1;
  }
}

/** Leading spaces and tabs of a line. */
function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

/** Width of an indentation in columns, a tab counting {@link TAB_COLUMNS}. */
function columns(indent: string): number {
  let n = 0;
  for (const c of indent) n += c === '\t' ? TAB_COLUMNS : 1;
  return n;
}

/** Start lines (0-based) where every line of `needle` equals the file line under `same`. */
export function findBlocks(file: readonly string[], needle: readonly string[], same: (fileLine: string, needleLine: string) => boolean): number[] {
  const found: number[] = [];
  for (let k = 0; k + needle.length <= file.length; k++) {
    let i = 0;
    while (i < needle.length && same(file[k + i]!, needle[i]!)) i++;
    if (i === needle.length) found.push(k);
  }
  return found;
}

/** Lines equal once trailing whitespace is ignored. */
export const sameTrimEnd = (a: string, b: string): boolean => a.trimEnd() === b.trimEnd();

/** Lines equal once leading and trailing whitespace are ignored. */
export const sameTrimmed = (a: string, b: string): boolean => a.trim() === b.trim();

/**
 * How the model's indentation maps onto the file's in a matched block: file columns =
 * `fileBase + (modelColumns - modelBase) * scale`, `scale` a ratio `num/den` (unknown when every
 * non-blank line of the block has the same indentation).
 */
export interface IndentMap {
  fileBase: number;
  modelBase: number;
  scale?: { num: number; den: number };
}

/**
 * The indentation map of `needle` matched at file line `k` (lines already equal when trimmed), or
 * undefined when the relative indentation differs (a line deeper in one than in the other).
 */
export function indentMap(file: readonly string[], k: number, needle: readonly string[]): IndentMap | undefined {
  const pairs: [number, number][] = [];
  for (let i = 0; i < needle.length; i++) {
    if (needle[i]!.trim() === '') continue;
    pairs.push([columns(leadingWhitespace(file[k + i]!)), columns(leadingWhitespace(needle[i]!))]);
  }
  if (pairs.length === 0) return undefined;
  const fileBase = Math.min(...pairs.map((p) => p[0]));
  const modelBase = Math.min(...pairs.map((p) => p[1]));
  let scale: IndentMap['scale'];
  for (const [f, m] of pairs) {
    const df = f - fileBase;
    const dm = m - modelBase;
    if (dm === 0 || df === 0) {
      if (dm !== df) return undefined;
      continue;
    }
    if (!scale) scale = { num: df, den: dm };
    else if (df * scale.den !== dm * scale.num) return undefined;
  }
  return scale ? { fileBase, modelBase, scale } : { fileBase, modelBase };
}

/** How the file writes indentation: tabs, spaces, or both (then lines are copied, not composed). */
export type IndentStyle = 'tabs' | 'spaces' | 'mixed';

/** The style of the indented lines given, `undefined` when none is indented. */
export function indentStyle(lines: readonly string[]): IndentStyle | undefined {
  let tabs = false;
  let spaces = false;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const ws = leadingWhitespace(line);
    if (ws.includes('\t')) tabs = true;
    if (ws.includes(' ')) spaces = true;
  }
  return tabs && spaces ? 'mixed' : tabs ? 'tabs' : spaces ? 'spaces' : undefined;
}

/** The file's usual indentation step in columns: a tab, or the most frequent increase between lines (default 4). */
function indentUnit(lines: readonly string[]): number {
  if (indentStyle(lines) === 'tabs') return TAB_COLUMNS;
  const counts = new Map<number, number>();
  let previous = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const now = columns(leadingWhitespace(line));
    if (now > previous) counts.set(now - previous, (counts.get(now - previous) ?? 0) + 1);
    previous = now;
  }
  let best = 4;
  let most = 0;
  for (const [step, n] of counts) if (n > most || (n === most && step < best)) [best, most] = [step, n];
  return best;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The re-indented replacement lines, or why they cannot be written in the file's style. */
export type Reindented = { ok: true; lines: string[] } | { ok: false; error: string };

/**
 * `replacement` lines re-indented the way the matched block was: each line keeps its depth
 * relative to the old block, scaled to the file's step, written in the file's style. Blank lines
 * become empty. Refused when a line would land between the file's columns, left of column 0, or
 * when its indentation would mix tabs and spaces where the file's block does not.
 * @param block - the matched file lines; `wholeFile` - every file line (for the style and step of an unindented block).
 */
export function reindent(replacement: readonly string[], map: IndentMap, block: readonly string[], wholeFile: readonly string[]): Reindented {
  let scale = map.scale;
  if (!scale) {
    // The old block was flat: the model's step comes from the replacement, the file's from the file.
    let modelUnit = 0;
    for (const line of replacement) if (line.trim() !== '') modelUnit = gcd(modelUnit, Math.abs(columns(leadingWhitespace(line)) - map.modelBase));
    scale = modelUnit === 0 ? { num: 1, den: 1 } : { num: indentUnit(wholeFile), den: modelUnit };
  }
  const style = indentStyle(block) ?? indentStyle(wholeFile) ?? 'spaces';
  const byColumns = new Map<number, string>();
  for (const line of block) if (line.trim() !== '') byColumns.set(columns(leadingWhitespace(line)), leadingWhitespace(line));
  const out: string[] = [];
  for (const [i, line] of replacement.entries()) {
    if (line.trim() === '') {
      out.push('');
      continue;
    }
    const ws = leadingWhitespace(line);
    const scaled = (columns(ws) - map.modelBase) * scale.num;
    const target = map.fileBase + scaled / scale.den;
    const where = `line ${i + 1} of new_string`;
    if (!Number.isInteger(target) || target < 0)
      return {
        ok: false,
        error: `${where} is indented in a way that does not fit the file's indentation; write new_string with the file's exact indentation.`,
      };
    let indent: string | undefined;
    if (byColumns.has(target)) indent = byColumns.get(target);
    else if (style === 'tabs') indent = target % TAB_COLUMNS === 0 ? '\t'.repeat(target / TAB_COLUMNS) : undefined;
    else if (style === 'spaces') indent = ' '.repeat(target);
    if (indent === undefined)
      return {
        ok: false,
        error: `${where} would mix tabs and spaces in its indentation; write new_string with the file's exact indentation (${style === 'tabs' ? 'tabs' : 'as in the file'}).`,
      };
    out.push(indent + line.slice(ws.length));
  }
  return { ok: true, lines: out };
}
