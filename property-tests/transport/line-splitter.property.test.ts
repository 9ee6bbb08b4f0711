/**
 * LineSplitter (src/transport/line-splitter.ts): however stdin's bytes are cut into reads, the same
 * lines come out, decoded as a whole (a UTF-8 sequence cut between two reads is one character),
 * and a line over the limit is reported with its length and head, never passed on.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, PEEK_BYTES, type SplitLine } from '../../src/transport/line-splitter.js';

/** Feeds `bytes` cut at `cuts` (positions) and returns every line, the last one included. */
function split(bytes: Buffer, cuts: number[], maxLineBytes: number): SplitLine[] {
  const splitter = new LineSplitter(maxLineBytes);
  const out: SplitLine[] = [];
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    out.push(...splitter.push(bytes.subarray(from, cut)));
    from = cut;
  }
  out.push(...splitter.push(bytes.subarray(from)));
  const last = splitter.end();
  if (last) out.push(last);
  return out;
}

/** What the lines must be: split the whole text at `\n`, blank lines dropped, long ones refused. */
function expected(bytes: Buffer, maxLineBytes: number): SplitLine[] {
  const lines: SplitLine[] = [];
  let from = 0;
  for (;;) {
    const newline = bytes.indexOf(0x0a, from);
    const line = bytes.subarray(from, newline === -1 ? bytes.length : newline);
    if (line.length > maxLineBytes) lines.push({ kind: 'oversized', bytes: line.length, head: '' });
    else if (line.length > 0) lines.push({ kind: 'line', text: line.toString('utf8'), bytes: line.length });
    if (newline === -1) return lines;
    from = newline + 1;
  }
}

const withoutHeads = (lines: SplitLine[]) => lines.map((line) => (line.kind === 'oversized' ? { ...line, head: '' } : line));

describe('LineSplitter', () => {
  it('yields the same lines however the bytes are cut into reads', () => {
    const piece = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constant('\n'), fc.constant('€😀\r\n'), fc.constant('x'.repeat(300)));
    const text = fc.array(piece, { maxLength: 30 });
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 20 }), fc.integer({ min: 1, max: 400 }), (parts, cuts, maxLineBytes) => {
        const bytes = Buffer.from(parts.join(''), 'utf8');
        const lines = split(
          bytes,
          cuts.map((cut) => cut % (bytes.length + 1)),
          maxLineBytes,
        );
        expect(withoutHeads(lines)).toEqual(expected(bytes, maxLineBytes));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the head of an oversized line, whether it came in one read or many', () => {
    const line = Buffer.from(`{"id":7,"x":"${'y'.repeat(PEEK_BYTES * 2)}"}\n`);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: line.length }), { maxLength: 8 }), (cuts) => {
        const [out] = split(line, cuts, PEEK_BYTES);
        expect(out).toMatchObject({ kind: 'oversized', bytes: line.length - 1 });
        expect(out!.kind === 'oversized' && out!.head).toBe(line.subarray(0, PEEK_BYTES).toString('utf8'));
      }),
      { numRuns: 50 },
    );
  });
});
