/**
 * The one pattern dialect of `search_files`, spelled for both engines: JavaScript's `RegExp` (the
 * fallback search) and ripgrep's default engine (Rust's `regex` crate, ripgrep 13 and later).
 * What models write means the same in both: a leading `(?i)`, `\b`, `\d`, `\w` (ASCII in both,
 * as in JavaScript), `\s`, character classes (POSIX `[[:digit:]]` included),
 * alternation, anchors, groups (`(?:…)`, `(?<name>…)`, `(?P<name>…)`), counted repetition, and a
 * `{` that starts no repetition taken literally. What one engine cannot do is refused in both,
 * with a sentence the model can act on: look-around and back-references (not in ripgrep's
 * default engine), other inline flags, `\p{…}`, unknown escapes. One difference is left: ripgrep
 * tests `\B` on bytes, so a lone `\B` also holds inside a multi-byte character.
 *
 * Sources: https://docs.rs/regex/latest/regex/#syntax (ripgrep's engine) and
 * https://tc39.es/ecma262/#sec-patterns (JavaScript, no `u` flag).
 */
import { ToolError } from '../tool.js';

/** A pattern spelled for each engine. */
export interface SearchPattern {
  /** JavaScript `RegExp` source (no flags inside). */
  js: string;
  /** JavaScript flags: `i` for a leading `(?i)`, else empty. */
  jsFlags: string;
  /** The same pattern for ripgrep's default engine (passed with `--regexp`). */
  rg: string;
}

/** Characters ripgrep's engine takes escaped (any other escaped punctuation is given to it bare). */
const RG_ESCAPABLE = new Set('\\.+*?()|[]{}^$#&-~'.split(''));
/** POSIX classes as ASCII ranges for JavaScript (ripgrep knows them by name). */
const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};
/** Class escapes as ASCII for ripgrep, outside and inside a class (JavaScript's are ASCII already). */
const RG_CLASS: Record<string, [string, string]> = {
  d: ['[0-9]', '[:digit:]'],
  D: ['[^0-9]', '[:^digit:]'],
  w: ['[0-9A-Za-z_]', '[:word:]'],
  W: ['[^0-9A-Za-z_]', '[:^word:]'],
  s: ['\\s', '\\s'],
  S: ['\\S', '\\S'],
};
const CONTROL = new Set(['n', 'r', 't', 'f', 'v']);

function refuse(pattern: string, why: string): never {
  throw new ToolError(`unsupported pattern ${JSON.stringify(shortQuote(pattern))}: ${why}.`);
}

function shortQuote(pattern: string): string {
  return pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern;
}

/**
 * Spells `pattern` for both engines and checks it compiles as JavaScript (the same check whichever
 * engine runs, so an invalid pattern gets one answer). Linear in the pattern's length.
 * @throws {ToolError} naming what is not supported (look-around, back-references, inline flags
 *   other than a leading `(?i)`, `\p{…}`, unknown escapes) or what is wrong (JavaScript's own words).
 */
export function translatePattern(pattern: string): SearchPattern {
  let i = 0;
  let jsFlags = '';
  let js = '';
  let rg = '';
  const emit = (both: string, forRg = both) => {
    js += both;
    rg += forRg;
  };
  if (pattern.startsWith('(?i)')) {
    jsFlags = 'i';
    rg = '(?i)';
    i = 4;
  }
  // True when the last thing emitted can take a quantifier (so a `{` may start a repetition).
  let quantifiable = false;
  while (i < pattern.length) {
    const c = pattern.charAt(i);
    if (c === '\\') {
      const [jsPart, rgPart, used] = escapeOutside(pattern, i);
      emit(jsPart, rgPart);
      i += used;
      quantifiable = !/^\\[bB]$/.test(jsPart);
    } else if (c === '[') {
      const [jsPart, rgPart, used] = characterClass(pattern, i);
      emit(jsPart, rgPart);
      i += used;
      quantifiable = true;
    } else if (c === '(') {
      const [jsPart, rgPart, used] = groupOpen(pattern, i);
      emit(jsPart, rgPart);
      i += used;
      quantifiable = false;
    } else if (c === '{') {
      const repeat = /^\{\d+(,\d*)?\}/.exec(pattern.slice(i, i + 24))?.[0];
      if (repeat && quantifiable) {
        emit(repeat);
        i += repeat.length;
      } else {
        emit('\\{');
        i++;
        quantifiable = true;
      }
    } else if (c === '}' || c === ']') {
      emit(`\\${c}`);
      i++;
      quantifiable = true;
    } else {
      emit(c);
      i++;
      quantifiable = !'(|^'.includes(c);
    }
  }
  try {
    new RegExp(js, jsFlags);
  } catch (error) {
    throw new ToolError(
      `invalid regular expression ${JSON.stringify(shortQuote(pattern))}: ${(error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '')}. Escape ( ) [ ] { } . * + ? | \\ to match them literally.`,
    );
  }
  return { js, jsFlags, rg };
}

/** An escape outside a class at `pattern[i] === '\\'`: [js, rg, characters used]. */
function escapeOutside(pattern: string, i: number): [string, string, number] {
  const c = pattern.charAt(i + 1);
  if (c === '') return ['\\\\', '\\\\', 1];
  if (c === 'b' || c === 'B') return [`\\${c}`, `(?-u:\\${c})`, 2];
  const cls = RG_CLASS[c];
  if (cls) return [`\\${c}`, cls[0], 2];
  return commonEscape(pattern, i);
}

/** Escapes read the same way inside and outside a class: controls, \xHH, \uHHHH, punctuation; the rest refused. */
function commonEscape(pattern: string, i: number): [string, string, number] {
  const c = pattern.charAt(i + 1);
  if (/[1-9]/.test(c) || c === 'k') refuse(pattern, `back-references (\\${c}) are not supported; search for the text itself`);
  if (c === '0') refuse(pattern, 'octal escapes (\\0) are not supported; write \\x00');
  if (c === 'p' || c === 'P') refuse(pattern, `Unicode classes (\\${c}{…}) are not supported; write a class such as [A-Za-z]`);
  if (CONTROL.has(c)) return [`\\${c}`, `\\${c}`, 2];
  const hex = c === 'x' ? /^[0-9A-Fa-f]{2}/.exec(pattern.slice(i + 2))?.[0] : c === 'u' ? /^[0-9A-Fa-f]{4}/.exec(pattern.slice(i + 2))?.[0] : undefined;
  if (hex) return [`\\${c}${hex}`, `\\x{${hex}}`, 2 + hex.length];
  if (/[A-Za-z0-9]/.test(c)) refuse(pattern, `unknown escape \\${c}${c === 'x' || c === 'u' ? ' (write \\xHH or \\uHHHH)' : ''}`);
  // Escaped punctuation (or any other character) is that character in both engines.
  return [`\\${c}`, RG_ESCAPABLE.has(c) ? `\\${c}` : c, 2];
}

/** A character class at `pattern[i] === '['`: [js, rg, characters used]. */
function characterClass(pattern: string, i: number): [string, string, number] {
  let j = i + 1;
  let js = '[';
  let rg = '[';
  if (pattern.charAt(j) === '^') {
    js += '^';
    rg += '^';
    j++;
  }
  // A `]` first in the class is a literal `]` (POSIX and ripgrep; JavaScript needs it escaped).
  if (pattern.charAt(j) === ']') {
    js += '\\]';
    rg += '\\]';
    j++;
  }
  while (j < pattern.length) {
    const c = pattern.charAt(j);
    if (c === ']') return [`${js}]`, `${rg}]`, j + 1 - i];
    if (c === '\\') {
      const e = pattern.charAt(j + 1);
      const cls = RG_CLASS[e];
      if (e === 'b' || e === 'B') refuse(pattern, `\\${e} inside a class is not supported`);
      const [jsPart, rgPart, used] = cls ? [`\\${e}`, cls[1], 2] : e === '' ? ['\\\\', '\\\\', 1] : commonEscape(pattern, j);
      js += jsPart;
      rg += rgPart;
      j += used;
      continue;
    }
    const posix = c === '[' ? /^\[:(\^?)([a-z]+):\]/.exec(pattern.slice(j, j + 12)) : null;
    if (posix) {
      const ranges = POSIX[posix[2] ?? ''];
      if (!ranges) refuse(pattern, `unknown class [:${posix[2]}:]`);
      if (posix[1]) refuse(pattern, `negated POSIX classes ([:^${posix[2]}:]) are not supported; use [^[:${posix[2]}:]]`);
      js += ranges;
      rg += posix[0];
      j += posix[0].length;
      continue;
    }
    // `[`, `&` and `~` are literal in a JavaScript class but open nested classes and set operations in ripgrep's.
    const literal = c === '[' || c === '&' || c === '~' ? `\\${c}` : c;
    js += c === '[' ? '\\[' : c;
    rg += literal;
    j++;
  }
  // No closing `]`: JavaScript's own error names it.
  return [js, rg, j - i];
}

/** A group at `pattern[i] === '('`: [js, rg, characters used]. */
function groupOpen(pattern: string, i: number): [string, string, number] {
  const rest = pattern.slice(i, i + 40);
  if (!rest.startsWith('(?')) return ['(', '(', 1];
  if (rest.startsWith('(?:')) return ['(?:', '(?:', 3];
  if (/^\(\?(=|!|<=|<!)/.test(rest))
    refuse(pattern, 'look-around ((?=…), (?!…), (?<=…), (?<!…)) is not supported; match the surrounding text instead, or search twice');
  const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
  if (named) return [`(?<${named[1]}>`, `(?P<${named[1]}>`, named[0].length];
  if (rest.startsWith('(?i)')) refuse(pattern, '(?i) is taken only at the very start of the pattern');
  return refuse(pattern, `${JSON.stringify(rest.slice(0, 5))}: only (?:…), (?<name>…) and a leading (?i) are supported`);
}
