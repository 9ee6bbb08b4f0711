import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEdit, countOccurrences } from '../../../src/tools/edit/apply-edit.js';

const small = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '\n', ' ', '$', '&'), maxLength: 30 });

describe('applyEdit properties', () => {
  it('a unique occurrence is replaced once, literally, and nothing else changes', () => {
    fc.assert(
      fc.property(
        small,
        small.filter((s) => s !== ''),
        small,
        small,
        (before, needle, after, replacement) => {
          const text = before + needle + after;
          fc.pre(text.indexOf(needle) === text.lastIndexOf(needle) && needle !== replacement && !text.includes('\r'));
          const result = applyEdit(text, needle, replacement);
          expect(result).toEqual({ ok: true, text: before + replacement + after, replacements: 1, at: before.length, inserted: replacement });
        },
      ),
    );
  });

  it('without replace_all, more than one occurrence changes nothing; with it, every one is replaced', () => {
    fc.assert(
      fc.property(
        small,
        small.filter((s) => s !== ''),
        small,
        (text, needle, replacement) => {
          fc.pre(needle !== replacement && !text.includes('\r'));
          const count = countOccurrences(text, needle);
          const one = applyEdit(text, needle, replacement);
          // unique means one place, overlaps included (`bb` in `bbb` is two places); an absent needle
          // may still be found by a fallback (then it says so in a note)
          if (count >= 1) expect(one.ok).toBe(text.indexOf(needle) === text.lastIndexOf(needle));
          else if (one.ok) expect(one.note).toEqual(expect.any(String));
          const all = applyEdit(text, needle, replacement, true);
          if (count >= 1) expect(all).toMatchObject({ ok: true, text: text.split(needle).join(replacement), replacements: text.split(needle).length - 1 });
          else if (all.ok) expect(all).toMatchObject({ replacements: 1, note: expect.any(String) });
        },
      ),
    );
  });
});
