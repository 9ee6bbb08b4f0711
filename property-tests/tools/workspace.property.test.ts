import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isInside, relativeForTitle, resolveToolPath } from '../../src/tools/workspace.js';

const name = fc.constantFrom('a', 'b', 'ws', 'ws2', 'extra', 'w', 'ws-x', '~', '.x', '...', 'a b');
const segment = fc.oneof(name, fc.constant('..'), fc.constant('.'), fc.constant(''));
const relative = fc.array(segment, { maxLength: 8 }).map((parts) => parts.join('/'));
const absolute = fc.array(segment, { maxLength: 8 }).map((parts) => `/${parts.join('/')}`);
const input = fc.oneof(relative, absolute, fc.tuple(relative, relative).map(([a, b]) => `${a}//${b}`));
const root = fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => `/${parts.join('/')}`);
const roots = fc.record({ cwd: root, extra: fc.array(root, { maxLength: 2 }) });

/** Independent check: the normalised segments of `abs` start with those of some root. */
function underSomeRoot(abs: string, all: readonly string[]): boolean {
  const parts = path.posix.normalize(abs).split('/').filter(Boolean);
  return all.some((r) => {
    const rootParts = path.posix.normalize(r).split('/').filter(Boolean);
    return rootParts.every((p, i) => parts[i] === p);
  });
}

describe('workspace containment properties', () => {
  it('no path that isInside accepts escapes the roots once normalised', () => {
    fc.assert(
      fc.property(input, roots, (given, r) => {
        const abs = resolveToolPath(given, r);
        expect(path.isAbsolute(abs)).toBe(true);
        expect(abs.split('/')).not.toContain('..');
        expect(isInside(abs, r)).toBe(underSomeRoot(abs, [r.cwd, ...r.extra]));
      }),
      { numRuns: 2_000 },
    );
  });

  it('a relative path without .. always stays inside the cwd', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(name, fc.constant('.')), { maxLength: 6 }), roots, (parts, r) => {
        const abs = resolveToolPath(parts.join('/'), r);
        expect(isInside(abs, { cwd: r.cwd, extra: [] })).toBe(true);
        expect(relativeForTitle(abs, r.cwd).startsWith('/')).toBe(false);
      }),
    );
  });
});
