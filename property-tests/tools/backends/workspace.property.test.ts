import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isInside, relativeForTitle, resolveToolPath } from '../../../src/tools/backends/workspace.js';
import { isNormalAbsolute, isWithin, resolved } from '../../../src/shared/path-within.js';

const name = fc.constantFrom('a', 'b', 'ws', 'ws2', 'extra', 'w', 'ws-x', '~', '.x', '...', 'a b');
const segment = fc.oneof(name, fc.constant('..'), fc.constant('.'), fc.constant(''));
const relative = fc.array(segment, { maxLength: 8 }).map((parts) => parts.join('/'));
const absolute = fc.array(segment, { maxLength: 8 }).map((parts) => `/${parts.join('/')}`);
const input = fc.oneof(
  relative,
  absolute,
  fc.tuple(relative, relative).map(([a, b]) => `${a}//${b}`),
);
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

/** The string checks of workspace.ts against what `path.resolve`/`path.relative` say (the earlier implementation). */
describe('workspace string checks agree with node:path (POSIX)', () => {
  const anyRoot = fc.oneof(
    root,
    absolute,
    fc.constant('/'),
    root.map((r) => `${r}/`),
    root.map((r) => r.replace('/', '//')),
  );
  const referenceWithin = (abs: string, r: string) => {
    const rel = path.posix.relative(path.posix.resolve(r), path.posix.resolve(abs));
    return rel === '' || (!path.posix.isAbsolute(rel) && rel !== '..' && !rel.startsWith('../'));
  };
  const referenceTitle = (abs: string, cwd: string) =>
    referenceWithin(abs, cwd) ? path.posix.relative(path.posix.resolve(cwd), path.posix.resolve(abs)) || '.' : path.posix.resolve(abs);

  it('isNormalAbsolute holds exactly for what path.resolve leaves unchanged; resolved is path.resolve', () => {
    fc.assert(
      fc.property(fc.oneof(input, anyRoot), (p) => {
        expect(isNormalAbsolute(p)).toBe(path.posix.resolve(p) === p && p.startsWith('/'));
        expect(resolved(p)).toBe(path.posix.resolve(p));
      }),
      { numRuns: 3_000 },
    );
  });

  it('resolveToolPath, isWithin and relativeForTitle give what path.resolve and path.relative give', () => {
    fc.assert(
      fc.property(input, anyRoot, anyRoot, (given, cwd, other) => {
        expect(resolveToolPath(given, { cwd, extra: [] })).toBe(path.posix.resolve(cwd, given));
        const abs = path.posix.resolve(cwd, given);
        for (const candidate of [abs, given.startsWith('/') ? given : abs]) {
          expect(isWithin(candidate, cwd)).toBe(referenceWithin(candidate, cwd));
          expect(isWithin(candidate, other)).toBe(referenceWithin(candidate, other));
          expect(relativeForTitle(candidate, cwd)).toBe(referenceTitle(candidate, cwd));
          expect(relativeForTitle(candidate, other)).toBe(referenceTitle(candidate, other));
        }
      }),
      { numRuns: 5_000 },
    );
  });
});
