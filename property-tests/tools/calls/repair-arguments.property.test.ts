/**
 * Repair that preserves meaning: arguments written with the corruptions models make are read as
 * the value the model meant, or refused; never read as another value.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkArguments } from '../../../src/tools/calls/check-arguments.js';
import { readArgumentsText } from '../../../src/tools/calls/repair-arguments.js';

/** Which corruptions one text carries. */
interface Corruptions {
  singleQuotes: boolean;
  trailingCommas: boolean;
  /** Line breaks and tabs written as they are inside strings. */
  rawLineBreaks: boolean;
  /** Backslashes written as they are (not doubled) in strings where that makes an invalid escape, as in `"c:\Users"`. */
  rawBackslashes: boolean;
  /** The last `}` left out. */
  missingFinalBrace: boolean;
  /** A first key given twice, the earlier with another value (the later one is meant, as `JSON.parse` has it). */
  duplicateKey: boolean;
}

const corruptions: fc.Arbitrary<Corruptions> = fc.record({
  singleQuotes: fc.boolean(),
  trailingCommas: fc.boolean(),
  rawLineBreaks: fc.boolean(),
  rawBackslashes: fc.boolean(),
  missingFinalBrace: fc.boolean(),
  duplicateKey: fc.boolean(),
});

/** Text that models put in arguments: paths (Windows ones too), regexes, code, quotes, line breaks. */
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom('a', 'n', 't', 'u', 'U', 'd', '0', 'F', '\\', '/', '"', "'", '\n', '\t', ' ', ':', '{', '}', ',', 'é', '😀'),
    maxLength: 14,
  }),
  fc
    .tuple(fc.constantFrom('C:\\', 'c:\\', '\\\\srv\\', '..\\', 'D:/'), fc.array(fc.stringMatching(/^[A-Za-z0-9 ._-]{1,8}$/), { maxLength: 4 }))
    .map(([root, parts]) => root + parts.join('\\')),
);
const scalar = fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(text, tie('value'), { maxKeys: 3 }),
  ),
})).value;
/** What the model meant: an object, as JSON has it (so -0 is 0). */
const meant = fc.dictionary(text, value, { minKeys: 1, maxKeys: 4 }).map((v) => JSON.parse(JSON.stringify(v)) as Record<string, unknown>);

/** Whether `body` (a string's characters between its quotes) holds a backslash that is no JSON escape. */
function hasInvalidEscape(body: string): boolean {
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '\\') continue;
    const next = body[i + 1] ?? '';
    if ('"\\/bfnrt'.includes(next) && next !== '') i++;
    else if (next === 'u' && /^[0-9a-fA-F]{4}/.test(body.slice(i + 2, i + 6))) i += 5;
    else return true;
  }
  return false;
}

function writeString(s: string, c: Corruptions): string {
  const control = (ch: string) => (c.rawLineBreaks && '\n\t\r'.includes(ch) ? ch : JSON.stringify(ch).slice(1, -1));
  if (c.singleQuotes) return `'${[...s].map((ch) => (ch === '\\' ? '\\\\' : ch === "'" ? "\\'" : ch < ' ' ? control(ch) : ch)).join('')}'`;
  // Written raw, a string says what the model meant only when its backslashes are plainly no escapes (see the reader).
  const raw = [...s]
    .map((ch) => (ch === '"' ? '\\"' : ch < ' ' ? (ch === '\n' || ch === '\t' || ch === '\r' ? ch : JSON.stringify(ch).slice(1, -1)) : ch))
    .join('');
  if (c.rawBackslashes && !s.includes('"') && hasInvalidEscape(raw)) return `"${raw}"`;
  return `"${[...s].map((ch) => (ch === '\\' ? '\\\\' : ch === '"' ? '\\"' : ch < ' ' ? control(ch) : ch)).join('')}"`;
}

function write(v: unknown, c: Corruptions, other: unknown, top = false): string {
  if (typeof v === 'string') return writeString(v, c);
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const comma = c.trailingCommas ? ',' : '';
  if (Array.isArray(v)) return `[${v.map((item) => write(item, c, other)).join(', ')}${v.length > 0 ? comma : ''}]`;
  const entries = Object.entries(v);
  const members = entries.map(([key, item]) => `${writeString(key, c)}: ${write(item, c, other)}`);
  if (top && c.duplicateKey) members.unshift(`${writeString(entries[0]![0], c)}: ${write(other, c, null)}`);
  const object = `{${members.join(', ')}${members.length > 0 ? comma : ''}}`;
  return top && c.missingFinalBrace ? object.slice(0, -1) : object;
}

describe('readArgumentsText properties', () => {
  it('arguments written with the corruptions models make are read as the value meant, or refused: never as another value', () => {
    fc.assert(
      fc.property(meant, corruptions, value, (v, c, other) => {
        const read = readArgumentsText(write(v, c, other, true));
        if (read.ok) expect(read.value).toEqual(v);
      }),
      { numRuns: 1000 },
    );
  });

  it('single quotes, trailing commas, raw line breaks and a duplicate key alone are always read, as the value meant (a key given twice with another value is refused)', () => {
    const benign = corruptions.map((c) => ({ ...c, rawBackslashes: false, missingFinalBrace: false }));
    fc.assert(
      fc.property(meant, benign, value, (v, c, other) => {
        const written = write(v, c, other, true);
        // An escaped quote right before what may follow a string (`"a\", "b"`) may also be a backslash ending it: such a text is refused unless only one reading works.
        fc.pre(!/\\["']\s*(?:$|[,}\]:/])/.test(written));
        const first = Object.values(v)[0];
        const same = isDeepStrictEqual(JSON.parse(JSON.stringify(other ?? null)), JSON.parse(JSON.stringify(first ?? null)));
        if (c.duplicateKey && first !== undefined && !same) expect(readArgumentsText(written)).toMatchObject({ ok: false });
        else expect(readArgumentsText(written)).toMatchObject({ ok: true, value: v });
      }),
      { numRuns: 300 },
    );
  });

  it('valid JSON objects are read as they are, with no repair', () => {
    fc.assert(
      fc.property(meant, (v) => {
        expect(readArgumentsText(JSON.stringify(v))).toEqual({ ok: true, value: v });
      }),
    );
  });

  it('a strict prefix of an object is never read as a call: refused as cut off, or (a missing last bracket) said so for the pipeline to refuse', () => {
    fc.assert(
      fc.property(meant, fc.nat(), (v, cut) => {
        const full = JSON.stringify(v);
        const prefix = full.slice(0, 1 + (cut % (full.length - 1)));
        const read = readArgumentsText(prefix);
        if (read.ok) expect(read.closedAtEnd).toBe(true);
        else expect(read.truncated).toBe(true);
        // The pipeline takes a missing last bracket only from a call envelope: a schema naming the keys rules that out.
        const properties = Object.fromEntries(Object.keys(v).map((key) => [key, {}]));
        expect(checkArguments({ name: 't', schema: { properties, required: [] }, unknown: 'keep' }, prefix).ok).toBe(false);
      }),
    );
  });

  it('a repair never makes an object out of text that is not one', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (raw) => {
        fc.pre(!raw.includes('{'));
        const read = readArgumentsText(raw);
        if (read.ok && raw.trim() !== '') expect(typeof read.value !== 'object' || read.value === null || Array.isArray(read.value)).toBe(true);
      }),
    );
  });
});

describe('the argument pipeline, for any tool', () => {
  it('passes the arguments meant, or refuses, whatever the corruption, when the schema declares them', () => {
    fc.assert(
      fc.property(meant, corruptions, value, (v, c, other) => {
        // Each parameter declared with the type it has (null allowed where it is null), so nothing needs coercing.
        const type = (x: unknown) => (x === null ? ['null'] : Array.isArray(x) ? 'array' : typeof x === 'object' ? 'object' : typeof x);
        const properties = Object.fromEntries(Object.entries(v).map(([key, x]) => [key, { type: type(x) }]));
        const checked = checkArguments({ name: 't', schema: { properties, required: Object.keys(v) }, unknown: 'keep' }, write(v, c, other, true));
        if (checked.ok) expect(checked.args).toEqual(v);
      }),
      { numRuns: 300 },
    );
  });
});
