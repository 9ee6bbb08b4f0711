import { describe, expect, it } from 'vitest';
import { applyEdit, countOccurrences } from '../../../src/tools/edit/apply-edit.js';

describe('applyEdit', () => {
  it('refuses an old_string that matches at overlapping places (ambiguous), unless replace_all', () => {
    const result = applyEdit('x bbb y', 'bb', 'B', false, 'f.txt');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/^old_string was found 2 times in f\.txt\./);
    expect(applyEdit('x bbb y', 'bb', 'B', true, 'f.txt')).toMatchObject({ ok: true, text: 'x Bb y' });
  });

  it('replaces a unique occurrence', () => {
    expect(applyEdit('a\nb\nc\n', 'b', 'B', false, 'f.txt')).toEqual({ ok: true, text: 'a\nB\nc\n', replacements: 1, at: 2, inserted: 'B' });
  });

  it('says when old_string is not found, with a whitespace hint when it nearly is', () => {
    const missing = applyEdit('abc', 'xyz', 'q', false, 'src/f.ts');
    expect(missing).toMatchObject({ ok: false });
    expect(!missing.ok && missing.error).toMatch(/^old_string was not found in src\/f\.ts\. It must match exactly, including whitespace, indentation/);
    // Lines joined differently: no fallback applies, the hint says why.
    const near = applyEdit('if (x) {\n    run();\n}', 'if (x) { run(); }', 'y', false, 'f');
    expect(!near.ok && near.error).toContain('different whitespace or indentation');
  });

  it('refuses an ambiguous edit, naming the count', () => {
    const result = applyEdit('x = 1; x = 1; x = 1;', 'x = 1', 'x = 2', false, 'f');
    expect(!result.ok && result.error).toBe(
      'old_string was found 3 times in f. Include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence.',
    );
  });

  it('replaces all with replace_all, literally ($& is not special)', () => {
    expect(applyEdit('x x x', 'x', '$&y', true)).toEqual({ ok: true, text: '$&y $&y $&y', replacements: 3, at: 0, inserted: '$&y' });
    expect(applyEdit('a-x', 'x', '$1', false)).toMatchObject({ text: 'a-$1' });
  });

  it('refuses an empty old_string and a no-op', () => {
    expect(applyEdit('abc', '', 'x')).toMatchObject({ ok: false });
    expect(applyEdit('abc', 'b', 'b')).toMatchObject({ ok: false });
  });

  it('matches LF old_string in a CRLF file and keeps CRLF', () => {
    expect(applyEdit('one\r\ntwo\r\nthree\r\n', 'one\ntwo', 'uno\ndos', false)).toMatchObject({ ok: true, text: 'uno\r\ndos\r\nthree\r\n' });
  });

  it('counts every place an old_string starts, overlapping ones too, so an ambiguous edit is refused', () => {
    expect(countOccurrences('aaaa', 'aa')).toBe(3);
    expect(countOccurrences('abc', 'd')).toBe(0);
    expect(applyEdit('bbb', 'bb', '', false, 'f')).toMatchObject({ ok: false, error: expect.stringContaining('found 2 times') });
    expect(applyEdit('bbb', 'bb', 'x', true, 'f')).toMatchObject({ ok: true, text: 'xb', replacements: 1 });
  });
});
