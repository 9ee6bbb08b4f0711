/**
 * Gemma 4's calls written as text: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:42}<tool_call|>`
 * (strings between `<|"|>` tokens, other values bare), also with the tokens gone (`call:NAME{…}`
 * as the whole answer). Read as the model's own parser does with what Gemma writes wrong: a string
 * never closed runs to the end of the call, a string opened with `'` may be closed by `<|"|>`,
 * and an unquoted text value runs to the end of the call. Pure.
 *
 * Sources: Ollama `model/parsers/gemma4.go` and its tests, which cite ollama/ollama#15315.
 */
import { repeatedProblem } from '../duplicate-keys.js';
import type { Finder } from './finder.js';
import { pythonLiteral } from './python-literal.js';
import type { TextCall } from './text-call.js';
import { skipSpace } from './value-span.js';

/** A key written twice with different values: the call is refused naming both (`repeatedProblem`). */
class Repeated extends Error {}

/** Gemma 4's string delimiter token. */
const QUOTE = '<|"|>';

class Reader {
  i: number;
  /** What closes the arguments: `}` (Gemma 4's own form) or `)` (the call written as a function call). */
  close = '}';
  constructor(
    readonly text: string,
    start: number,
    readonly limit: number,
    readonly finder: Finder,
  ) {
    this.i = start;
  }

  /** The text from `from` to the end of the call, without the call's closing bracket. */
  rest(from: number): string {
    return this.text.slice(from, this.limit).replace(this.close === ')' ? /\)\s*$/ : /\}\s*$/, '');
  }

  /** A value; `open` set when it ran to the end of the call unclosed. */
  value(depth: number): unknown {
    if (depth > 64) throw new Error('too deep');
    const t = this.text;
    const from = this.i;
    this.i = skipSpace(t, this.i, this.limit);
    if (t.startsWith(QUOTE, this.i)) return this.until(this.i + QUOTE.length, [QUOTE]);
    if (t[this.i] === "'" || t[this.i] === '"') return this.until(this.i + 1, [t[this.i]!, QUOTE]);
    if (t[this.i] === '{') return this.object(depth + 1);
    if (t[this.i] === '[') {
      const out: unknown[] = [];
      this.i++;
      while (skipSpace(t, this.i, this.limit) < this.limit && t[(this.i = skipSpace(t, this.i, this.limit))] !== ']') {
        out.push(this.value(depth + 1));
        this.i = skipSpace(t, this.i, this.limit);
        if (t[this.i] === ',') this.i++;
      }
      this.i++;
      return out;
    }
    const literal = /^(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)(?=\s*[,}\]])/.exec(t.slice(this.i, this.i + 40));
    if (literal) {
      this.i += literal[0].length;
      return JSON.parse(literal[0]) as unknown;
    }
    // Unquoted text: the rest of the call, its closing brace aside.
    const rest = this.rest(from);
    this.i = this.limit;
    return rest;
  }

  /** A string from `from` to the first of `ends`, or to the end of the call (its closing brace aside). */
  until(from: number, ends: readonly string[]): string {
    let best = -1;
    let width = 0;
    for (const end of ends) {
      const at = this.finder.indexOf(end, from);
      if (at >= 0 && at < this.limit && (best < 0 || at < best)) [best, width] = [at, end.length];
    }
    if (best < 0) {
      this.i = this.limit;
      return this.rest(from);
    }
    this.i = best + width;
    return this.text.slice(from, best);
  }

  object(depth: number, close = '}'): Record<string, unknown> {
    const t = this.text;
    const out: Record<string, unknown> = {};
    this.i++;
    for (;;) {
      this.i = skipSpace(t, this.i, this.limit);
      if (this.i >= this.limit || t[this.i] === close) {
        this.i++;
        return out;
      }
      const key = /^([A-Za-z_][\w.-]*)\s*[:=]/.exec(t.slice(this.i, this.i + 200));
      if (!key) throw new Error('not a key');
      this.i += key[0].length;
      const value = this.value(depth);
      const repeated = repeatedProblem(out, key[1]!, value);
      if (repeated) throw new Repeated(repeated);
      Object.defineProperty(out, key[1]!, { value, enumerable: true, writable: true, configurable: true });
      this.i = skipSpace(t, this.i, this.limit);
      // A string opened with a quote and closed by both the quote and the token.
      if (t.startsWith(QUOTE, this.i)) this.i = skipSpace(t, this.i + QUOTE.length, this.limit);
      if (t[this.i] === ',') this.i++;
    }
  }
}

/**
 * The call written as `call:NAME{…}` at `start` (after `<|tool_call>`, or the whole answer) up to
 * `limit` (its `<tool_call|>`, or the end), or `undefined` when it is not one.
 */
export function gemmaCall(text: string, start: number, limit: number, finder: Finder, { nameOnly = false }: { nameOnly?: boolean } = {}): TextCall | undefined {
  // `call:NAME{`, also with a stray colon before it (`<|tool_call>:call:`); after a `<call>` token split from its word, `NAME{`.
  const head = (nameOnly ? /^\s*()([A-Za-z_][\w.-]*)\s*([{(])/ : /^\s*(:?)call:([A-Za-z_][\w.-]*)\s*([{(])/).exec(
    text.slice(start, Math.min(limit, start + 300)),
  );
  if (!head) return undefined;
  const name = head[2]!;
  const reader = new Reader(text, start + head[0].length - 1, limit, finder);
  if (head[3] === '(') reader.close = ')';
  try {
    const args = reader.object(0, reader.close);
    return { name, arguments: JSON.stringify(args), format: 'gemma' };
  } catch (error) {
    if (error instanceof Repeated) return { name, arguments: '{}', format: 'gemma', problem: error.message };
    // Python-style arguments inside the braces, as a last try.
    const python = pythonLiteral(text.slice(start + head[0].length - 1, limit).trim());
    return python && typeof python.value === 'object' ? { name, arguments: JSON.stringify(python.value), format: 'gemma' } : undefined;
  }
}
