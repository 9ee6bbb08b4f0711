/**
 * Where a JSON (or Python literal) value written inside a model's text ends, without parsing it:
 * brackets counted outside strings, strings in double or single quotes skipped with their escapes.
 * The readers of calls written as text use it to cut a call's arguments out of the text exactly
 * as written, so the argument check sees the model's own characters (a repair there never sees
 * text changed here). Pure; linear in the characters scanned.
 */
import { MAX_ARGUMENT_DEPTH } from '../repair-arguments.js';

/** The end of a value: `end` is the index just after it; `open` when the text ended inside it; `tooDeep` past the depth bound. */
export interface ValueSpan {
  end: number;
  open: boolean;
  tooDeep: boolean;
}

/**
 * The span of the value starting at `start` (an object, array or quoted string; anything else is a
 * bare word up to the next delimiter). A single quote opens a string only where a value or key may
 * start (after `{ [ : ,`, whitespace or at `start`), so an apostrophe inside a word does not.
 * @param limit - index the scan stops at (exclusive); reaching it inside the value gives `open`. @defaultValue the text's end
 * @param maxDepth - deepest nesting accepted; the scan stops with `tooDeep` beyond it. @defaultValue {@link MAX_ARGUMENT_DEPTH}
 */
export function valueSpan(text: string, start: number, limit = text.length, maxDepth = MAX_ARGUMENT_DEPTH): ValueSpan {
  const first = text[start];
  if (first === '"' || first === "'") {
    const end = stringEnd(text, start, limit);
    return end < 0 ? { end: limit, open: true, tooDeep: false } : { end, open: false, tooDeep: false };
  }
  if (first !== '{' && first !== '[') {
    let i = start;
    while (i < limit && !/[\s,;\]}]/.test(text[i]!)) i++;
    return { end: i, open: false, tooDeep: false };
  }
  let depth = 0;
  for (let i = start; i < limit; i++) {
    const c = text[i]!;
    if (c === '"' || (c === "'" && /[\s{[:,(]/.test(text[i - 1] ?? ' '))) {
      const end = stringEnd(text, i, limit);
      if (end < 0) return { end: limit, open: true, tooDeep: false };
      i = end - 1;
    } else if (c === '{' || c === '[') {
      if (++depth > maxDepth) return { end: i, open: false, tooDeep: true };
    } else if (c === '}' || c === ']') {
      if (--depth === 0) return { end: i + 1, open: false, tooDeep: false };
    }
  }
  return { end: limit, open: true, tooDeep: false };
}

/** The index just after the string whose opening quote is at `start`, or -1 when it is not closed before `limit`. */
function stringEnd(text: string, start: number, limit = text.length): number {
  const quote = text[start];
  for (let i = start + 1; i < limit; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === quote) return i + 1;
  }
  return -1;
}

/** The index of the first character at or after `from` that is not whitespace (or `limit`). */
export function skipSpace(text: string, from: number, limit = text.length): number {
  let i = from;
  while (i < limit && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Whether the UTF-16 unit `c` is whitespace as `\s` means it; ASCII without a regex (hostile answers hold megabytes of it). */
export function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c > 127 && /\s/.test(String.fromCharCode(c)));
}
