/**
 * The text normalisations of the edit cascade (see `edit-match.ts`): our own `read_file` line
 * prefixes taken off, escapes written twice decoded, Unicode punctuation read as ASCII. Pure.
 *
 * Real model outputs they answer: `old_string` copied with the read tool's line prefixes
 * (xal-sh/xal#37 and #42; letta-ai/letta-code#3816 on Claude Code's `N<TAB>` format); `\n`
 * written as a backslash and an `n` (openclaw/openclaw#14452, OpenHands/software-agent-sdk#2488
 * with Qwen3.5); curly quotes, Unicode dashes and non-breaking spaces for ASCII ones
 * (earendil-works/pi#713; codex `apply_patch` `seek_sequence` normalises the same characters).
 */

/** One `read_file` line prefix: optional padding, the number, a tab (or Claude Code's `→`). */
const LINE_PREFIX = /^ *(\d+)(?:\t|→)/;

/**
 * `text` with a line-number prefix taken off every line, when every line has one and the numbers
 * run consecutively (so a TSV file's `1<TAB>x` data line alone is not mistaken for a prefix);
 * `undefined` otherwise. A final line end (an empty last line) needs no prefix.
 */
export function stripLinePrefixes(text: string, consecutive = true): string | undefined {
  const lines = text.split('\n');
  const last = lines.length > 1 && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
  let expected: number | undefined;
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (i >= last) {
      out.push(lines[i]!);
      continue;
    }
    const match = LINE_PREFIX.exec(lines[i]!);
    if (!match) return undefined;
    const n = Number(match[1]);
    if (consecutive && expected !== undefined && n !== expected) return undefined;
    expected = n + 1;
    out.push(lines[i]!.slice(match[0].length));
  }
  return out.join('\n');
}

/**
 * `text` with a line-number prefix taken off each line that has one: for a `new_string` whose
 * `old_string` carried prefixes (the model may number only some of its new lines).
 */
export function stripEachLinePrefix(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(LINE_PREFIX, ''))
    .join('\n');
}

/** The escapes a model writes twice: a backslash and `n`, `t` or `"` standing for the character. */
const ESCAPES = [
  { literal: '\\n', char: '\n' },
  { literal: '\\t', char: '\t' },
  { literal: '\\"', char: '"' },
] as const;

/**
 * The escapes to decode in an `old_string` matched against `file`: those `old` holds literally and
 * the file does not hold anywhere (a JavaScript file with `"\n"` in it keeps `\n` literal). A
 * literal `\n` counts only when `old` has no real line break (a model that double-escapes does it
 * throughout). Empty when there is nothing to decode.
 */
export function escapesToDecode(old: string, file: string): string[] {
  return ESCAPES.filter(({ literal }) => old.includes(literal) && !file.includes(literal) && (literal !== '\\n' || !old.includes('\n'))).map((e) => e.literal);
}

/** `text` with the given escapes (from {@link escapesToDecode}) decoded; `\\` before one keeps it literal. */
export function decodeEscapes(text: string, which: readonly string[]): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const two = text.slice(i, i + 2);
    if (two === '\\\\') {
      out += two;
      i++;
      continue;
    }
    const found = ESCAPES.find((e) => e.literal === two && which.includes(e.literal));
    if (found) {
      out += found.char;
      i++;
    } else out += text[i];
  }
  return out;
}

/**
 * Unicode punctuation and the ASCII character it is read as: curly single and double quotes,
 * primes, hyphens and dashes, the minus sign, non-breaking and other fixed-width spaces. One
 * UTF-16 unit each way, so positions in a normalised text are positions in the original.
 */
const PUNCTUATION: Readonly<Record<string, string>> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201b': "'",
  '\u2032': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u201f': '"',
  '\u2033': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u00a0': ' ',
  '\u2002': ' ',
  '\u2003': ' ',
  '\u2007': ' ',
  '\u2009': ' ',
  '\u200a': ' ',
  '\u202f': ' ',
  '\u3000': ' ',
};
const PUNCTUATION_RE = new RegExp(`[${Object.keys(PUNCTUATION).join('')}]`, 'g');

/** `text` with {@link PUNCTUATION} read as ASCII; same length, same positions. */
export function normalisePunctuation(text: string): string {
  return text.replace(PUNCTUATION_RE, (c) => PUNCTUATION[c]!);
}

/** True when `text` holds any character {@link normalisePunctuation} changes. */
export function hasUnicodePunctuation(text: string): boolean {
  PUNCTUATION_RE.lastIndex = 0;
  return PUNCTUATION_RE.test(text);
}

/**
 * The replacement written with the file's characters where the model's differed: each character
 * of `old` that stood for another at the same place in `matched` (the file's text) is replaced
 * the same way in `replacement` (a curly quote the model wrote for a straight one becomes straight).
 * Characters the model used consistently with the file are kept.
 */
export function adaptPunctuation(old: string, matched: string, replacement: string): string {
  const map = new Map<string, string>();
  for (let i = 0; i < old.length && i < matched.length; i++) if (old[i] !== matched[i] && PUNCTUATION[old[i]!] !== undefined) map.set(old[i]!, matched[i]!);
  if (map.size === 0) return replacement;
  let out = '';
  for (const c of replacement) out += map.get(c) ?? c;
  return out;
}
