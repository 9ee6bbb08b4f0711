/**
 * One quoted string of almost-JSON (`tolerant-json.ts`), read without changing what it says.
 *
 * Backslashes: `\x` that is no JSON escape (`"c:\Users\me"`) is kept as written (a backslash and
 * `x`), never dropped. A string that has such a backslash and also a valid escape that would mean
 * something else (`\n`, `\t`, `\\`…) is read as written only when it is a Windows path
 * (`c:\Users\me\notes.txt`: no path holds a line break); otherwise it is refused, since the model
 * may have meant either. Quotes: one followed by more text of the value (`"say "hi" now"`) is part
 * of it; one that may as well end the string (`["a" "b"]`) is refused; a `\"` right before what
 * may follow a string is read both ways, by the caller's readings (`Choices`).
 *
 * Source: the JSON grammar, RFC 8259 https://www.rfc-editor.org/rfc/rfc8259 (strings §7).
 */

/** A reading that failed: the reason for the model, and whether the text stopped inside the value. */
export class Unreadable extends Error {
  constructor(
    message: string,
    readonly truncated = false,
  ) {
    super(message);
  }
}

/** Why a text that stops inside the value is not read. */
export const CUT = 'the arguments end inside a string, array or object';
const SIMPLE_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);
/** What may follow a string's closing quote: the end, punctuation, a comment, or (a comma missing) the next key. */
const CLOSES_STRING = /^\s*(?:$|[,}\]:/])|^\s+["']?[A-Za-z_$][\w$-]*["']?\s*:/;
/**
 * What may follow a string that a `\"` ended (`"c:\", "b": 1`): as {@link CLOSES_STRING}, but a
 * comma only before what may come next in an object or a list (a key, a value, a closing
 * bracket). After `\", x)` no reading that ends the string there goes on, so it is no question.
 */
const ESCAPE_MAY_CLOSE =
  /^\s*(?:$|[}\]:/]|,\s*(?:$|["'{[\]}/\d-]|[A-Za-z_$][\w$-]*["']?\s*:|(?:true|false|null|True|False|None)(?![\w$])))|^\s+["']?[A-Za-z_$][\w$-]*["']?\s*:/;
/** What may start the next value after a string whose comma is missing: a string, a number, a literal. */
const MAY_FOLLOW_STRING = /^\s*(?:["']|-?\d|(?:true|false|null|True|False|None)(?![\w$]))/;
/** A Windows path as written: a drive (`c:\`), a share (`\\srv`) or a relative `.\`, and no line break or tab. */
const WINDOWS_PATH = /^(?:[A-Za-z]:\\|\\\\[^\\\s]|\.{1,2}\\)[^\n\r\t]*$/;

/**
 * The places where a `\"` may be an escaped quote or a backslash that ends the string
 * (`"c:\", "b": 1`): a reading takes a decision for each (0: the escape, 1: the end), in order.
 */
export interface Choices {
  decisions: readonly number[];
  /** How many places this reading met. */
  met: number;
}

/** One quoted string from `start` (its quote) on: its value and the index after its closing quote. */
export function readString(text: string, start: number, repairs: Set<string>, choices: Choices): { value: string; end: number } {
  const quote = text[start]!;
  // Two readings are kept while the string is read: escapes as JSON means them, and each backslash as written.
  let escaped = '';
  let written = '';
  let invalid = '';
  let meaningful = '';
  /** The string ends before `end`: its value, by the escapes or as written (see the module comment). */
  const close = (end: number) => {
    if (invalid === '' || meaningful === '') {
      if (invalid !== '') repairs.add(`backslashes that are no JSON escape (${invalid.trim()}) kept as written`);
      return { value: escaped, end };
    }
    // A doubled backslash inside a path would be one the model escaped: then the others were slips, and either reading may be wrong.
    if (WINDOWS_PATH.test(written) && !written.includes('\\\\', 1) && !written.includes('\\/')) {
      repairs.add('backslashes of a Windows path kept as written');
      return { value: written, end };
    }
    throw new Unreadable(
      `the string ${JSON.stringify(written.slice(0, 60))} has backslashes that are JSON escapes (${meaningful.trim()}) and backslashes that are not (${invalid.trim()}); write each backslash that is part of the text as \\\\`,
    );
  };
  // Runs of plain characters are copied at once; only quotes, backslashes and line breaks are looked at.
  const special = quote === '"' ? /["\\\n\r\t]/g : /['\\\n\r\t]/g;
  for (let i = start + 1; i < text.length; i++) {
    special.lastIndex = i;
    const stop = special.exec(text)?.index ?? text.length;
    if (stop > i) {
      const run = text.slice(i, stop);
      escaped += run;
      written += run;
      i = stop;
      if (i === text.length) break;
    }
    const c = text[i]!;
    // A quote followed by more text of the value (`"say "hi" now"`) was meant inside it: only one
    // followed by what may come after a string (or the end, or the next key) closes it. Where what
    // follows could also start the next value (`["a" "b"]`), or it comes after `, ` or `: ` (it may
    // open the next key or value, this string having ended before), either reading may be the meant one.
    if (c === quote && !CLOSES_STRING.test(text.slice(i + 1, i + 80))) {
      if (MAY_FOLLOW_STRING.test(text.slice(i + 1, i + 80)) || /[,:{[]\s*$/.test(text.slice(Math.max(start + 1, i - 40), i)))
        throw new Unreadable(unclearQuote(written, quote));
      repairs.add('quotes inside a string that were not escaped');
      escaped += c;
      written += c;
      continue;
    }
    if (c === quote) return close(i + 1);
    if (c !== '\\') {
      repairs.add('a raw line break or tab inside a string');
      escaped += c;
      written += c;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) break;
    const hex = next === 'u' ? /^[0-9a-fA-F]{4}/.exec(text.slice(i + 2, i + 6))?.[0] : undefined;
    // `\"` before what may follow a string: an escaped quote, or a backslash ending the string (`"c:\"`); each reading decides.
    if (next === quote && ESCAPE_MAY_CLOSE.test(text.slice(i + 2, i + 82)) && choices.decisions[choices.met++] === 1) {
      escaped += '\\';
      written += '\\';
      if (invalid.length < 40) invalid += ' \\';
      return close(i + 2);
    }
    if (next === quote) {
      escaped += quote;
      written += quote;
      i++;
    } else if (hex !== undefined) {
      escaped += String.fromCharCode(Number.parseInt(hex, 16));
      written += `\\u${hex}`;
      if (meaningful.length < 40) meaningful += ` \\u${hex}`;
      i += 5;
    } else if (SIMPLE_ESCAPES.has(next)) {
      escaped += SIMPLE_ESCAPES.get(next);
      written += `\\${next}`;
      if (meaningful.length < 40) meaningful += ` \\${next}`;
      i++;
    } else {
      // Not an escape: the backslash stands for itself, and the next character is read as usual.
      escaped += '\\';
      written += '\\';
      if (invalid.length < 40) invalid += ` \\${next}`;
    }
  }
  throw new Unreadable(CUT, true);
}

/** Why a quote that may end the string or be part of it is not guessed at. */
function unclearQuote(written: string, quote: string): string {
  const escapedQuote = quote === '"' ? '\\"' : "\\'";
  return `the string starting ${JSON.stringify(written.slice(0, 40))} has a ${quote} that may end it or be part of it; write a ${quote} inside a string as ${escapedQuote} and a backslash as \\\\`;
}
