import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capForModel, countLines, genericNote } from '../../../src/tools/present/output-cap.js';

const NOTE = /\[\.\.\. [\d,]+ lines? omitted \.\.\.\]/;
// No '[' in the text, so the note is the only one.
const unit = fc.constantFrom('a', 'b', ' ', '\n', '\n', 'é', '€', '😀', '\t', '\r', '\ud800');
const text = fc.oneof(
  fc.string({ unit, maxLength: 400 }),
  fc.array(fc.string({ unit: fc.constantFrom('x', 'y', '😀'), maxLength: 30 }), { maxLength: 80 }).map((l) => l.join('\n')),
);
const limits = fc.record({ maxBytes: fc.integer({ min: 0, max: 300 }), maxLines: fc.integer({ min: 0, max: 40 }) });

describe('capForModel properties', () => {
  it('stays within the byte and line bounds, plus the note', () => {
    fc.assert(
      fc.property(text, limits, (input, options) => {
        const result = capForModel(input, options);
        if (!result.truncated) return;
        const noteText = genericNote({ omittedLines: result.omittedLines, firstOmittedLine: 1 });
        expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(options.maxBytes + Buffer.byteLength(noteText) + 2);
        expect(countLines(result.text)).toBeLessThanOrEqual(options.maxLines + 2);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves text under both limits untouched', () => {
    fc.assert(
      fc.property(text, (input) => {
        const options = { maxBytes: Buffer.byteLength(input), maxLines: countLines(input) };
        expect(capForModel(input, options)).toEqual({ text: input, omittedLines: 0, truncated: false });
      }),
    );
  });

  it('keeps a prefix and a suffix of the input, with no split surrogate pair', () => {
    fc.assert(
      fc.property(text, limits, (input, options) => {
        const result = capForModel(input, options);
        if (!result.truncated) {
          expect(result.text).toBe(input);
          return;
        }
        const match = NOTE.exec(result.text);
        expect(match).not.toBeNull();
        let head = result.text.slice(0, match!.index);
        const tail = result.text.slice(match!.index + match![0].length + 1);
        if (head.endsWith('\n') && !input.startsWith(head)) head = head.slice(0, -1);
        expect(input.startsWith(head)).toBe(true);
        expect(input.endsWith(tail)).toBe(true);
        // (A head cut just before a newline gets one added back, so this is ≤, not <.)
        expect(head.length + tail.length).toBeLessThanOrEqual(input.length);
        // A cut never leaves half of a pair that was whole in the input.
        if (head.length > 0 && /[\ud800-\udbff]/.test(head.at(-1)!)) expect(input.charAt(head.length)).not.toMatch(/[\udc00-\udfff]/);
        if (tail.length > 0 && /[\udc00-\udfff]/.test(tail.charAt(0))) expect(input.charAt(input.length - tail.length - 1)).not.toMatch(/[\ud800-\udbff]/);
      }),
      { numRuns: 500 },
    );
  });
});
