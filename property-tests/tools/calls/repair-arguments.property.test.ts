import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readArgumentsText } from '../../../src/tools/calls/repair-arguments.js';

const args = fc.dictionary(
  fc.string({ maxLength: 8 }),
  fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 })),
  { maxKeys: 4 },
);

describe('readArgumentsText properties', () => {
  it('valid JSON objects are read as they are, with no repair', () => {
    fc.assert(
      fc.property(args, (value) => {
        expect(readArgumentsText(JSON.stringify(value))).toEqual({ ok: true, value });
      }),
    );
  });

  it('a cut-off object (any strict prefix of its JSON) is never read as a call', () => {
    fc.assert(
      fc.property(args, fc.nat(), (value, cut) => {
        const text = JSON.stringify(value);
        const prefix = text.slice(0, 1 + (cut % (text.length - 1)));
        expect(readArgumentsText(prefix)).toMatchObject({ ok: false, truncated: true });
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
