import fc from 'fast-check';
import { binaryUnit } from '../helpers/binary-unit.js';
import { describe, expect, it } from 'vitest';
import { jsonBytes, jsonPieces } from '../../src/openai/json-bytes.js';

describe('jsonBytes', () => {
  it('equals the bytes of JSON.stringify, long strings included', () => {
    const long = 'p'.repeat(70_000);
    const value = {
      model: 'm',
      messages: [
        { role: 'user', content: long },
        { role: 'user', content: `é${long}"` },
      ],
      n: 1,
    };
    expect(jsonBytes(value).equals(Buffer.from(JSON.stringify(value), 'utf8'))).toBe(true);
  });

  it('equals it for any value with long or short strings', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ minLength: 1, maxLength: 3 }).map((s) => s.repeat(30_000)),
    );
    fc.assert(
      fc.property(fc.array(fc.record({ role: fc.constant('user'), content: text }), { maxLength: 3 }), (messages) => {
        expect(jsonBytes({ messages }).equals(Buffer.from(JSON.stringify({ messages }), 'utf8'))).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});

describe('jsonPieces', () => {
  it("keeps a long string that needs no escaping as the value's own string, between quote pieces", () => {
    const long = 'p'.repeat(70_000);
    const json = jsonPieces({ a: long, b: 'x' }, '\n');
    expect(json.pieces).toEqual(['\n{"a":"', long, '"', ',"b":"x"}']);
    expect(json.byteLength).toBe(Buffer.byteLength(`\n${JSON.stringify({ a: long, b: 'x' })}`));
  });

  it('chunks join to the JSON text, each at most maxChars (one more to keep a surrogate pair), never cutting a pair', () => {
    const check = (contents: string[], maxChars: number) => {
      const value = { messages: contents.map((content) => ({ role: 'user', content })) };
      const json = jsonPieces(value);
      const chunks = [...json.chunks(maxChars)];
      expect(chunks.join('')).toBe(JSON.stringify(value));
      expect(json.byteLength).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
      // One assertion over all chunks (a run has hundreds): none is empty, none over maxChars + 1.
      expect(chunks.filter((chunk) => chunk.length === 0 || chunk.length > maxChars + 1).map((chunk) => chunk.length)).toEqual([]);
      // Each chunk encoded alone gives the bytes of the whole: no surrogate pair was cut.
      expect(Buffer.concat(chunks.map((c) => Buffer.from(c, 'utf8'))).equals(jsonBytes(value))).toBe(true);
    };
    const short = fc.oneof(fc.string({ unit: binaryUnit }), fc.constant('😀'.repeat(40)));
    fc.assert(fc.property(fc.array(short, { maxLength: 4 }), fc.integer({ min: 1, max: 8 }), check), { numRuns: 200 });
    const long = fc.string({ minLength: 1, maxLength: 3 }).map((s) => s.repeat(30_000));
    fc.assert(fc.property(fc.array(fc.oneof(short, long), { maxLength: 4 }), fc.integer({ min: 1_000, max: 50_000 }), check), { numRuns: 50 });
  });
});
