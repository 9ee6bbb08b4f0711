/**
 * Python literals and pythonic calls as models write them, read exactly: `[get_weather(city='Paris'),
 * get_time()]` (Llama 3.2 / 4 and Gemma's pythonic tool calling, LFM2 and OLMo 3 inside
 * their markers), and envelopes written with Python quotes (`{'name': 'get_weather', ...}`, older
 * Mistral). A Python literal has one meaning, so reading it into JSON changes no value: strings
 * in either quote (triple quotes and `r''` too) with Python's escapes (an unknown escape keeps its
 * backslash, as Python does), numbers, `True`/`False`/`None` (and JSON's `true`/`false`/`null`),
 * lists, tuples and dicts with string keys. Anything else is refused. Pure; depth bounded.
 *
 * Sources: the pythonic format of Llama 3.2 (https://www.llama.com/docs/model-cards-and-prompt-formats/llama3_2/),
 * vLLM's `pythonic_tool_parser.py` (which reads it with Python's own `ast`), Python's string
 * literal escapes (https://docs.python.org/3/reference/lexical_analysis.html#escape-sequences).
 */
import { isDeepStrictEqual } from 'node:util';
import { repeatedProblem } from '../duplicate-keys.js';
import { MAX_ARGUMENT_DEPTH } from '../repair-arguments.js';
import { isSpace } from './value-span.js';

/** One call read from pythonic text: its name and keyword arguments; `positional` when it had positional arguments (not readable as named ones). */
export interface PythonicCall {
  name: string;
  args: Record<string, unknown>;
  positional?: true;
  /** A keyword given twice with different values (a SyntaxError in Python): why the call cannot run (`repeatedProblem`). */
  repeated?: string;
}

class Reader {
  i = 0;
  constructor(
    readonly text: string,
    readonly end: number,
  ) {}

  space(): void {
    while (this.i < this.end && isSpace(this.text.charCodeAt(this.i))) this.i++;
  }

  eat(c: string): boolean {
    this.space();
    if (this.i >= this.end || this.text[this.i] !== c) return false;
    this.i++;
    return true;
  }

  identifier(): string | undefined {
    this.space();
    const match = /^[A-Za-z_][\w.-]*/.exec(this.text.slice(this.i, Math.min(this.end, this.i + 256)));
    if (!match) return undefined;
    this.i += match[0].length;
    return match[0];
  }

  value(depth: number): unknown {
    if (depth > MAX_ARGUMENT_DEPTH) throw new Error('too deep');
    this.space();
    const c = this.text[this.i];
    if (c === '[' || c === '(') return this.sequence(c === '[' ? ']' : ')', depth);
    if (c === '{') return this.dict(depth);
    if (c === '"' || c === "'" || ((c === 'r' || c === 'R' || c === 'u' || c === 'U') && /['"]/.test(this.text[this.i + 1] ?? ''))) return this.string();
    const word = /^(?:-?(?:\d[\d_]*\.?[\d_]*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)|True|False|None|true|false|null)(?![\w.])/.exec(
      this.text.slice(this.i, Math.min(this.end, this.i + 64)),
    );
    if (!word) throw new Error('not a literal');
    this.i += word[0].length;
    const w = word[0];
    if (w === 'True' || w === 'true') return true;
    if (w === 'False' || w === 'false') return false;
    if (w === 'None' || w === 'null') return null;
    const n = Number(w.replace(/_/g, ''));
    if (!Number.isFinite(n)) throw new Error('not a number');
    return n;
  }

  sequence(close: string, depth: number): unknown[] {
    this.i++;
    const out: unknown[] = [];
    while (!this.eat(close)) {
      out.push(this.value(depth + 1));
      if (!this.eat(',') && this.text[this.i] !== close) {
        this.space();
        if (this.text[this.i] !== close) throw new Error('expected a comma');
      }
    }
    return out;
  }

  dict(depth: number): Record<string, unknown> {
    this.i++;
    const out: Record<string, unknown> = {};
    while (!this.eat('}')) {
      const key = this.value(depth + 1);
      if (typeof key !== 'string' && typeof key !== 'number') throw new Error('a key must be a string');
      if (!this.eat(':')) throw new Error('expected a colon');
      const value = this.value(depth + 1);
      if (Object.hasOwn(out, String(key)) && !isDeepStrictEqual(out[String(key)], value)) throw new Error('a key given twice');
      Object.defineProperty(out, String(key), { value, enumerable: true, writable: true, configurable: true });
      if (!this.eat(',')) {
        this.space();
        if (this.text[this.i] !== '}') throw new Error('expected a comma');
      }
    }
    return out;
  }

  string(): string {
    let raw = false;
    if (/[rRuU]/.test(this.text[this.i]!)) raw = /[rR]/.test(this.text[this.i++]!);
    const q = this.text[this.i]!;
    const triple = this.text.startsWith(q.repeat(3), this.i);
    const close = triple ? q.repeat(3) : q;
    this.i += close.length;
    let out = '';
    for (;;) {
      if (this.i >= this.end) throw new Error('string not closed');
      if (this.text.startsWith(close, this.i)) {
        this.i += close.length;
        return out;
      }
      const c = this.text[this.i++]!;
      if (c === '\n' && !triple) throw new Error('line break in a string');
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.text[this.i++] ?? '';
      if (raw) out += `\\${e}`;
      else out += this.escape(e);
    }
  }

  escape(e: string): string {
    const simple: Record<string, string> = {
      n: '\n',
      t: '\t',
      r: '\r',
      '\\': '\\',
      "'": "'",
      '"': '"',
      a: '\x07',
      b: '\b',
      f: '\f',
      v: '\v',
      '\n': '',
    };
    if (Object.hasOwn(simple, e)) return simple[e]!;
    // An octal escape: one to three digits 0-7 (`\0`, `\012`).
    if (/[0-7]/.test(e)) {
      const digits = e + (/^[0-7]{0,2}/.exec(this.text.slice(this.i, Math.min(this.end, this.i + 2)))?.[0] ?? '');
      this.i += digits.length - 1;
      return String.fromCharCode(Number.parseInt(digits, 8));
    }
    const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (width === 0) return `\\${e}`;
    const hex = this.text.slice(this.i, this.i + width);
    if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) throw new Error('bad escape');
    this.i += width;
    return String.fromCodePoint(Number.parseInt(hex, 16));
  }
}

/** The value of the Python literal that is all of `text` (whitespace aside), or `undefined` when it is not one. */
export function pythonLiteral(text: string): { value: unknown } | undefined {
  const reader = new Reader(text, text.length);
  try {
    const value = reader.value(0);
    reader.space();
    return reader.i === text.length ? { value } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The calls written in pythonic form from `start` up to `end`: a list `[f(a=1), g()]` or calls
 * one after another (separated by commas, semicolons or line breaks). `undefined` when that text
 * is anything else; `open` when it ends inside a call (cut off).
 */
export function pythonicCalls(text: string, start = 0, end = text.length): { calls: PythonicCall[]; open?: true } | undefined {
  const reader = new Reader(text, end);
  reader.i = start;
  const listed = reader.eat('[');
  const calls: PythonicCall[] = [];
  let current: PythonicCall | undefined;
  const cut = () => (current ? { calls: [...calls, current], open: true as const } : calls.length > 0 ? { calls, open: true as const } : undefined);
  try {
    for (;;) {
      reader.space();
      if (reader.i >= end) return calls.length === 0 ? undefined : listed ? { calls, open: true } : { calls };
      if (listed && reader.eat(']')) {
        reader.space();
        return reader.i >= end && calls.length > 0 ? { calls } : undefined;
      }
      const name = reader.identifier();
      if (!name) return undefined;
      if (!reader.eat('(')) return undefined;
      // Llama 3.1's built-in tools are called as `NAME.call(...)`.
      current = { name: name.replace(/\.call$/, ''), args: {} };
      while (!reader.eat(')')) {
        if (reader.i >= end) return cut();
        const mark = reader.i;
        const key = reader.identifier();
        if (key && reader.eat('=')) {
          const value = reader.value(1);
          // The same keyword twice: one meaning when the values are equal, a guess when not.
          current.repeated ??= repeatedProblem(current.args, key, value);
          Object.defineProperty(current.args, key, { value, enumerable: true, writable: true, configurable: true });
        } else {
          reader.i = mark;
          reader.value(1);
          current.positional = true;
        }
        if (!reader.eat(',')) {
          reader.space();
          if (reader.i >= end) return cut();
          if (reader.text[reader.i] !== ')') return undefined;
        }
      }
      calls.push(current);
      current = undefined;
      reader.eat(',') || reader.eat(';');
    }
  } catch (error) {
    return (error as Error).message === 'string not closed' || reader.i >= end ? cut() : undefined;
  }
}
