import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEdit } from '../../../src/tools/edit/apply-edit.js';

/** A line of code without indentation: a few words from a small alphabet, never blank. */
const code = fc.string({ unit: fc.constantFrom('a', 'b', '(', ')', '=', ' ', ':'), minLength: 1, maxLength: 8 }).map((s) => `x${s.trim()}`);
/** A block: lines with depths 0..3 relative to the block. */
const block = fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), code), { minLength: 1, maxLength: 5 });
const render = (lines: readonly [number, string][], base: number, unit: string) => lines.map(([depth, text]) => unit.repeat(base + depth) + text);

/** Where the edit replaced: the prefix and suffix of `text` kept in `out` around `inserted` at `at`. */
function outsideKept(text: string, out: string, at: number, inserted: string): boolean {
  const suffix = out.length - at - inserted.length;
  return (
    suffix >= 0 && at + suffix <= text.length && out.slice(0, at) === text.slice(0, at) && out.slice(at + inserted.length) === text.slice(text.length - suffix)
  );
}

describe('edit cascade properties', () => {
  it('re-indentation keeps relative indentation: a space-indented edit of a tab-indented block lands at the same depths, in tabs', () => {
    fc.assert(
      fc.property(
        block,
        block,
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom('  ', '    '),
        fc.array(code, { maxLength: 3 }),
        (old, replacement, base, unit, around) => {
          const fileLines = [...around.map((l) => `#${l}`), ...render(old, base, '\t'), ...around.map((l) => `;${l}`)];
          const text = `${fileLines.join('\n')}\n`;
          const oldString = render(old, 0, unit).join('\n');
          const newString = render(replacement, 0, unit).join('\n');
          // Relative depth is defined when the old block has a line at its base and one deeper, and the new lines stay at or under the base.
          fc.pre(old.some(([d]) => d === 0) && old.some(([d]) => d > 0) && oldString !== newString && !text.includes(oldString));
          const result = applyEdit(text, oldString, newString);
          // The block may also match elsewhere only if `around` happens to hold it: then it is refused, never applied twice.
          if (!result.ok) return;
          const expected = render(replacement, base, '\t').join('\n');
          expect(result.inserted).toBe(expected);
          expect(outsideKept(text, result.text, result.at, result.inserted)).toBe(true);
        },
      ),
    );
  });

  it('no fallback applies when two candidates exist: the file is left as it was', () => {
    fc.assert(
      fc.property(
        block,
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 2 }),
        fc.array(code, { maxLength: 3 }),
        fc.constantFrom('\t', '  '),
        (lines, base1, base2, middle, unit) => {
          const text = [...render(lines, base1, unit), ...middle.map((l) => `#${l}`), ...render(lines, base2, unit)].join('\n');
          // The model's copy: another indentation than either copy (another unit, a space-and-tab lead), trailing spaces added.
          const oldString = render(lines, 0, unit === '\t' ? '   ' : '\t')
            .map((l) => ` \t${l}  `)
            .join('\n');
          fc.pre(!text.includes(oldString));
          const result = applyEdit(text, oldString, 'replaced');
          expect(result.ok).toBe(false);
          expect(!result.ok && result.error).toMatch(/with different indentation it matches \d+ places \(lines \d+, \d+/);
        },
      ),
    );
  });

  it('a successful edit changes no byte outside the matched range, and a CRLF file keeps CRLF line ends', () => {
    const line = fc.tuple(fc.constantFrom('', ' ', '\t', '  ', '\t\t'), code, fc.constantFrom('', ' ', '\t'));
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        fc.array(code, { minLength: 1, maxLength: 3 }),
        (lines, from, length, crlf, replacement) => {
          const eol = crlf ? '\r\n' : '\n';
          const text = lines.map(([lead, body, trail]) => lead + body + trail).join(eol) + eol;
          const start = from % lines.length;
          const picked = lines.slice(start, start + 1 + (length % 3));
          // The model's copy: indentation as two spaces per tab-or-space-run, trailing whitespace dropped, LF line ends.
          const oldString = picked.map(([lead, body]) => (lead ? '  ' : '') + body).join('\n');
          const newString = replacement.map((l) => `  ${l}`).join('\n');
          const result = applyEdit(text, oldString, newString);
          if (!result.ok) return;
          expect(outsideKept(text, result.text, result.at, result.inserted)).toBe(true);
          if (crlf) expect(result.text.replace(/\r\n/g, '')).not.toContain('\n');
        },
      ),
    );
  });
});
