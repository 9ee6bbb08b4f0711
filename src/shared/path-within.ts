/**
 * Whether a path lies inside a directory, lexically: the one check every containment test of the
 * agent makes (the workspace's roots, files opened inside allowed folders), on whole path
 * segments (`/a/bc` is not inside `/a/b`).
 */
import path from 'node:path';

const POSIX = path.sep === '/';

/**
 * True when `p` is what `path.resolve` makes of it on POSIX: absolute, and without empty, `.` or
 * `..` segments or a trailing `/` (but `/` itself).
 */
export function isNormalAbsolute(p: string): boolean {
  if (p.charCodeAt(0) !== 0x2f) return false;
  if (p.length === 1) return true;
  return !p.endsWith('/') && !p.endsWith('/.') && !p.endsWith('/..') && !p.includes('//') && !p.includes('/./') && !p.includes('/../');
}

/**
 * `path.resolve(p)`, returning a path that is already normal on POSIX as it is.
 */
export function resolved(p: string): string {
  return POSIX && isNormalAbsolute(p) ? p : path.resolve(p);
}

/** True when `abs` is `root` or below it, lexically (after normalising both). */
export function isWithin(abs: string, root: string): boolean {
  if (!POSIX) {
    const rel = path.relative(path.resolve(root), path.resolve(abs));
    return rel === '' || (!path.isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${path.sep}`));
  }
  const a = resolved(abs);
  const r = resolved(root);
  return a === r || r === '/' || (a.charCodeAt(r.length) === 0x2f && a.startsWith(r));
}
