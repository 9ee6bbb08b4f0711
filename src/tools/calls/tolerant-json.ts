/**
 * Almost-JSON as models write tool-call arguments, read without changing what any value says:
 * single quotes, trailing or missing commas, unquoted keys, Python's `True`/`False`/`None`, a code
 * fence, comments, raw line breaks inside strings, a backslash-n written between tokens, one
 * surplus closing bracket at the end, and one missing one after a nested value. Everything is
 * re-spelled as strict JSON text and read by `JSON.parse` (so a duplicate key ends as there: the
 * last one wins). A repair changes quoting, escaping and punctuation only: a value the model did
 * not quote (other than the literals), a number JSON does not have, or text after the value is
 * refused, never guessed at. Strings, and their backslashes and quotes, are read by `json-string.ts`.
 *
 * Source: the JSON grammar, RFC 8259 https://www.rfc-editor.org/rfc/rfc8259 (numbers §6).
 */
import { type Choices, CUT, readString, Unreadable } from './json-string.js';

/** The JSON text read, and what was repaired (short phrases); or why it could not be read (`truncated`: the text stops inside the value). */
export type TolerantJson = { ok: true; json: string; repairs: string[]; closedAtEnd: boolean } | { ok: false; reason: string; truncated?: true };

type Token = { kind: 'punct'; text: string } | { kind: 'string'; value: string } | { kind: 'number'; text: string } | { kind: 'word'; text: string };

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/;
const LITERALS: ReadonlyMap<string, string> = new Map([
  ['true', 'true'],
  ['false', 'false'],
  ['null', 'null'],
  ['True', 'true'],
  ['False', 'false'],
  ['None', 'null'],
]);

/** Most readings tried of one text: each `\"` right before what may follow a string doubles them. */
const MAX_READINGS = 16;

/**
 * Reads `text` (see the module comment). Where a `\"` may be read two ways, every reading is
 * tried: the text is read only when exactly one value comes out. Linear in its length for each
 * reading; the caller bounds size and depth first. Never throws.
 */
export function readTolerantJson(text: string): TolerantJson {
  const fenced = /^\s*```[\w-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```\s*$/.exec(text);
  const body = fenced ? fenced[1]! : text;
  const readings: TolerantJson[] = [];
  let decisions: number[] = [];
  for (;;) {
    if (readings.length === MAX_READINGS) return { ok: false, reason: 'too many quotes may end a string or be part of it; write a " inside a string as \\"' };
    const choices: Choices = { decisions, met: 0 };
    const reading = readOnce(body, choices);
    if (reading.ok && fenced) reading.repairs.unshift('a code fence');
    readings.push(reading);
    // The next reading: the last place decided 0 that this one met, decided 1 instead.
    const next = [...decisions, ...new Array<number>(Math.max(0, choices.met - decisions.length)).fill(0)].slice(0, choices.met);
    const last = next.lastIndexOf(0);
    if (last < 0) break;
    decisions = [...next.slice(0, last), 1];
  }
  const values = new Set(readings.flatMap((reading) => (reading.ok ? [reading.json] : [])));
  if (values.size > 1) return { ok: false, reason: 'a \\" may end a string or be part of it; write a " inside a string as \\" and a backslash as \\\\' };
  return readings.find((reading) => reading.ok) ?? readings[0]!;
}

function readOnce(text: string, choices: Choices): TolerantJson {
  const repairs = new Set<string>();
  try {
    const tokens = lex(text, repairs, choices);
    const reader = new Reader(tokens, repairs);
    const json = reader.value();
    reader.end();
    return { ok: true, json: json + reader.closers, repairs: [...repairs], closedAtEnd: reader.closers !== '' };
  } catch (error) {
    if (!(error instanceof Unreadable)) throw error;
    return error.truncated ? { ok: false, reason: error.message, truncated: true } : { ok: false, reason: error.message };
  }
}

function lex(text: string, repairs: Set<string>, choices: Choices): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') i++;
    else if (c === '\\' && 'nrt'.includes(text[i + 1] ?? '')) {
      repairs.add('a backslash-n written between tokens');
      i += 2;
    } else if (c === '/' && text[i + 1] === '/') {
      repairs.add('a comment');
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new Unreadable('the arguments end inside a comment', true);
      repairs.add('a comment');
      i = end + 2;
    } else if ('{}[]:,'.includes(c)) {
      tokens.push({ kind: 'punct', text: c });
      i++;
    } else if (c === '"' || c === "'") {
      if (c === "'") repairs.add('single quotes');
      const string = readString(text, i, repairs, choices);
      tokens.push({ kind: 'string', value: string.value });
      i = string.end;
    } else {
      const word = /^[-+.\w$]+/.exec(text.slice(i, i + 400))?.[0];
      if (!word) throw new Unreadable(`unexpected character ${JSON.stringify(c)} at position ${i}`);
      tokens.push(/^[-+.\d]/.test(word) ? { kind: 'number', text: word } : { kind: 'word', text: word });
      i += word.length;
    }
  }
  return tokens;
}

/** A recursive reader over the tokens, writing strict JSON text as it goes. */
class Reader {
  private at = 0;
  /** Closing brackets appended for one missing at the very end (`}` or `]`), or ''. */
  closers = '';

  constructor(
    private readonly tokens: readonly Token[],
    private readonly repairs: Set<string>,
  ) {}

  value(depth = 0): string {
    const token = this.tokens[this.at++];
    if (token === undefined) throw new Unreadable(CUT, true);
    if (token.kind === 'string') return JSON.stringify(token.value);
    // A number or word the text ends in may be one cut short (`fal`, `-`).
    const last = this.at === this.tokens.length;
    if (token.kind === 'number') {
      if (!NUMBER.test(token.text)) throw new Unreadable(last ? CUT : `${token.text} is not a JSON number`, last);
      return token.text;
    }
    if (token.kind === 'word') {
      const literal = LITERALS.get(token.text);
      if (literal === undefined) throw new Unreadable(last ? CUT : `the value ${token.text} is not quoted`, last);
      if (literal !== token.text) this.repairs.add(`Python's ${token.text}`);
      return literal;
    }
    if (token.text === '{') return this.members('}', depth);
    if (token.text === '[') return this.members(']', depth);
    throw new Unreadable(`unexpected ${JSON.stringify(token.text)} where a value belongs`);
  }

  /** The members of an object (`close` is `}`) or the items of an array, after its opening bracket. */
  private members(close: '}' | ']', depth: number): string {
    const parts: string[] = [];
    let afterComma = true;
    for (;;) {
      const token = this.tokens[this.at];
      if (token === undefined) return this.missingCloser(close, depth, parts, afterComma);
      if (token.kind === 'punct' && token.text === close) {
        this.at++;
        if (!afterComma || parts.length === 0) return close === '}' ? `{${parts.join(',')}}` : `[${parts.join(',')}]`;
        this.repairs.add('a trailing comma');
        return close === '}' ? `{${parts.join(',')}}` : `[${parts.join(',')}]`;
      }
      if (token.kind === 'punct' && token.text === ',') {
        if (afterComma) throw new Unreadable('two commas in a row');
        this.at++;
        afterComma = true;
        continue;
      }
      if (!afterComma) this.repairs.add('a missing comma');
      parts.push(close === '}' ? this.member(depth) : this.value(depth + 1));
      afterComma = false;
    }
  }

  private member(depth: number): string {
    const key = this.tokens[this.at++]!;
    let name: string;
    if (key.kind === 'string') name = key.value;
    else if (key.kind === 'word' || key.kind === 'number') {
      this.repairs.add('unquoted keys');
      name = key.text;
    } else throw new Unreadable(`unexpected ${JSON.stringify(key.text)} where a key belongs`);
    const colon = this.tokens[this.at++];
    if (colon === undefined) throw new Unreadable(CUT, true);
    if (colon.kind !== 'punct' || colon.text !== ':') throw new Unreadable(`no ":" after the key ${JSON.stringify(name)}`);
    return `${JSON.stringify(name)}:${this.value(depth + 1)}`;
  }

  /**
   * The text ended inside this object or array. Only the outermost may lack its bracket, and only
   * right after a nested value was closed (`{"name": "x", "arguments": {…}`): anything else is a
   * call cut off.
   */
  private missingCloser(close: '}' | ']', depth: number, parts: string[], afterComma: boolean): string {
    const last = this.tokens[this.at - 1];
    if (depth > 0 || afterComma || last?.kind !== 'punct' || (last.text !== '}' && last.text !== ']')) throw new Unreadable(CUT, true);
    this.repairs.add('a missing closing bracket at the end');
    this.closers = close;
    return close === '}' ? `{${parts.join(',')}` : `[${parts.join(',')}`;
  }

  /** After the value: nothing, or one surplus closing bracket. */
  end(): void {
    const rest = this.tokens.slice(this.at);
    if (rest.length === 0) return;
    if (rest.length === 1 && rest[0]!.kind === 'punct' && (rest[0]!.text === '}' || rest[0]!.text === ']') && this.closers === '') {
      this.repairs.add('a surplus closing bracket at the end');
      return;
    }
    throw new Unreadable('there is more after the arguments (one JSON object is expected)');
  }
}
