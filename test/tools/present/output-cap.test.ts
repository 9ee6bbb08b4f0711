import { describe, expect, it } from 'vitest';
import { capForModel, countLines, prefixEnd, readFileNote, suffixStart } from '../../../src/tools/present/output-cap.js';

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

describe('capForModel', () => {
  it('leaves text within both limits alone', () => {
    const text = numbered(100);
    expect(capForModel(text)).toEqual({ text, omittedLines: 0, truncated: false });
    expect(capForModel('', { maxBytes: 0, maxLines: 0 })).toEqual({ text: '', omittedLines: 0, truncated: false });
  });

  it('keeps head and tail lines and says how many are omitted', () => {
    const result = capForModel(numbered(5000));
    expect(result.truncated).toBe(true);
    expect(result.omittedLines).toBe(3000);
    const lines = result.text.split('\n');
    expect(lines[0]).toBe('line 1');
    expect(lines[999]).toBe('line 1000');
    expect(lines[1000]).toBe('[... 3,000 lines omitted ...]');
    expect(lines[1001]).toBe('line 4001');
    expect(lines.at(-1)).toBe('line 5000');
  });

  it('cuts by bytes too, and the read note gives the offset to continue at', () => {
    const text = Array.from({ length: 100 }, (_, i) => `${i + 1}\t${'é'.repeat(100)}`).join('\n');
    const result = capForModel(text, { maxBytes: 2_000, note: readFileNote(40) });
    expect(Buffer.byteLength(result.text.replace(/\n?\[\.\.\..*\.\.\.\]\n/, ''))).toBeLessThanOrEqual(2_000);
    expect(result.text).toMatch(/\[\.\.\. 92 lines omitted; use offset\/limit to read them \(they start at offset 45\) \.\.\.\]/);
  });

  it('cuts one huge line at a code point, never inside a surrogate pair', () => {
    const text = '😀'.repeat(10_000);
    const result = capForModel(text, { maxBytes: 1001 });
    expect(result.truncated).toBe(true);
    const [head, tail] = result.text.split('\n[... 1 line omitted ...]\n');
    expect(head).toBe('😀'.repeat(125));
    expect(tail).toBe('😀'.repeat(125));
    expect(result.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('counts lines like wc -l plus an unterminated last line', () => {
    expect(countLines('')).toBe(0);
    expect(countLines('a')).toBe(1);
    expect(countLines('a\n')).toBe(1);
    expect(countLines('a\nb')).toBe(2);
    expect(countLines('\n\n')).toBe(2);
  });

  it('finds byte-bounded prefixes and suffixes at code points', () => {
    expect(prefixEnd('a😀b', 4)).toBe(1);
    expect(prefixEnd('a😀b', 5)).toBe(3);
    expect(suffixStart('a😀b', 0, 4)).toBe(3);
    expect(suffixStart('a😀b', 0, 5)).toBe(1);
    expect(suffixStart('abc', 2, 10)).toBe(2);
  });
});
