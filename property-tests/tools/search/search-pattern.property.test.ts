/**
 * One dialect, two engines: for patterns built from what models write and random lines, the
 * JavaScript spelling and ripgrep's spelling of translatePattern match the same lines (checked
 * against a real rg where it is installed; skipped, and named so, where it is not). Whatever the
 * input, translatePattern either spells a pattern JavaScript compiles or refuses with a ToolError.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { translatePattern } from '../../../src/tools/search/search-pattern.js';
import { findRipgrep } from '../../../src/tools/search/search-rg.js';
import { ToolError } from '../../../src/tools/tool.js';

const rg = (await findRipgrep(undefined)).path;
const dir = mkdtempSync(join(tmpdir(), 'oa-dialect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PIECES = [
  'a',
  'b',
  'x',
  'A',
  '1',
  ' ',
  '_',
  '-',
  'é',
  '٣',
  '.',
  '\\.',
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '\\s',
  '\\S',
  '\\b',
  '[a-c]',
  '[^a]',
  '[\\d_]',
  '[[:digit:]]',
  '[[:alpha:]]',
  '(a|b)',
  '(?:ab|x)',
  'x*',
  'a+',
  'b?',
  'a{2}',
  '{',
  '}',
  ']',
  '^',
  '$',
  '\\{',
  '\\:',
  '|',
];
// Not `\B`: ripgrep tests it on bytes, so a lone `\B` also holds inside a multi-byte character
// (between the two bytes of `٣`), where JavaScript sees no position at all.
// Anchors where models put them, at the ends (ripgrep's line search and JavaScript differ on an
// anchor next to a word boundary inside a pattern, such as `\b^`, which no one writes).
const parts = fc
  .array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 4 })
  .filter((ps) => ps.every((p, i) => (p !== '^' || i === 0) && (p !== '$' || i === ps.length - 1)));
const pattern = fc.tuple(fc.boolean(), parts).map(([i, ps]) => `${i ? '(?i)' : ''}${ps.join('')}`);
const lines = fc.array(
  fc.array(fc.constantFrom('a', 'b', 'x', 'A', 'B', '1', '9', ' ', '_', '-', '.', 'é', '٣', '{', '}', ':'), { maxLength: 10 }).map((cs) => cs.join('')),
  { minLength: 1, maxLength: 8 },
);

describe('translatePattern', () => {
  it('spells a pattern JavaScript compiles, or refuses with a ToolError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        try {
          const spelled = translatePattern(text);
          expect(() => new RegExp(spelled.js, spelled.jsFlags)).not.toThrow();
        } catch (error) {
          expect(error).toBeInstanceOf(ToolError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  // Each run spawns rg once (~10 ms idle, 100 ms and more on a busy 2-core machine): 150 runs keep
  // the test to seconds there, with a bound of its own for a machine slower still.
  it.skipIf(!rg)('matches the same lines in JavaScript and in ripgrep', { timeout: 120_000 }, () => {
    let n = 0;
    fc.assert(
      fc.property(pattern, lines, (text, sample) => {
        let spelled: ReturnType<typeof translatePattern>;
        try {
          spelled = translatePattern(text);
        } catch {
          return; // refused in both
        }
        const file = join(dir, `l${n++}.txt`);
        writeFileSync(file, `${sample.join('\n')}\n`);
        const regex = new RegExp(spelled.js, spelled.jsFlags);
        const byJs = sample.flatMap((line, i) => (regex.test(line) ? [i + 1] : []));
        const run = spawnSync(rg!, ['--no-config', '--line-number', '--no-filename', '--crlf', '--regexp', spelled.rg, '--', file], { encoding: 'utf8' });
        expect(run.status === 2 ? run.stderr : '').toBe('');
        const byRg = run.stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => Number(line.split(':')[0]));
        expect({ text, byRg }).toEqual({ text, byRg: byJs });
      }),
      { numRuns: 150 },
    );
  });
  if (!rg) it.skip('matches the same lines in JavaScript and in ripgrep: rg is not on the PATH (apt-get install ripgrep)', () => undefined);
});
