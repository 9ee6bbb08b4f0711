import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../../src/openai/json-bytes.js';

describe('jsonBytes', () => {
  it('equals the bytes of JSON.stringify, long strings included', () => {
    const long = 'p'.repeat(70_000);
    const value = { model: 'm', messages: [{ role: 'user', content: long }, { role: 'user', content: `é${long}"` }], n: 1 };
    expect(jsonBytes(value).equals(Buffer.from(JSON.stringify(value), 'utf8'))).toBe(true);
  });

  it('equals it for any value with long or short strings', () => {
    const text = fc.oneof(fc.string(), fc.string({ minLength: 1, maxLength: 3 }).map((s) => s.repeat(30_000)));
    fc.assert(
      fc.property(fc.array(fc.record({ role: fc.constant('user'), content: text }), { maxLength: 3 }), (messages) => {
        expect(jsonBytes({ messages }).equals(Buffer.from(JSON.stringify({ messages }), 'utf8'))).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});
