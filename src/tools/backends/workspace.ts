/**
 * Paths for local tools: resolving what the model wrote, and keeping every local read, write,
 * listing and command inside the session's `cwd` and `additionalDirectories`.
 *
 * Two checks: {@link isInside} is lexical (pure, for titles and quick refusals), {@link confine}
 * also follows symlinks on disk, so a link inside the workspace that points out is refused too.
 * The roots' own real paths are pinned when a session sets them ({@link pinWorkspaceRoots}); the
 * local backend checks again on the opened file (`open-inside.ts`), so a path swapped between
 * the check and the open is caught.
 * Paths are compared case-sensitively (as on Linux); on case-insensitive file systems this can
 * only refuse more, never less.
 *
 * On POSIX the lexical checks work on strings once the paths are normal ({@link resolved}):
 * `path.resolve` and `path.relative` cost ~6 µs a call in a process that has not run them often,
 * and a tool step made ~30 such calls (bench: tool step). Windows keeps `path.relative`, whose
 * comparison ignores case.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isNormalAbsolute, isWithin, resolved } from '../../shared/path-within.js';
import { ToolError, type WorkspaceRoots } from '../tool.js';

export { isWithin };

const POSIX = path.sep === '/';

/**
 * The absolute, normalised path a tool argument names.
 * @param input - absolute, or relative to `roots.cwd`. A leading `~` is not expanded (it is an
 *   ordinary directory name, as it would be for the OS), so `~/x` means `<cwd>/~/x`.
 * @returns an absolute path with `.` and `..` resolved lexically; never throws.
 */
export function resolveToolPath(input: string, roots: WorkspaceRoots): string {
  // A plain relative path (`src/a.ts`) under a normal cwd is the two joined.
  if (POSIX && input !== '' && isNormalAbsolute(`/${input}`) && isNormalAbsolute(roots.cwd)) return roots.cwd === '/' ? `/${input}` : `${roots.cwd}/${input}`;
  return path.resolve(roots.cwd, input);
}

/** The allowed roots, `cwd` first. */
export function rootList(roots: WorkspaceRoots): string[] {
  return [roots.cwd, ...roots.extra].map(resolved);
}

/**
 * Pure lexical check: `abs` (normalised) is one of the roots or below one. Symlinks are not looked at.
 * @internal the lexical check is checked on its own, without a disk.
 */
export function isInside(abs: string, roots: WorkspaceRoots): boolean {
  return rootList(roots).some((root) => isWithin(abs, root));
}

/** The message for a path outside the workspace: names the path and the allowed roots. */
function outsideMessage(abs: string, roots: WorkspaceRoots, resolvedTo?: string): string {
  const via = resolvedTo !== undefined && resolvedTo !== abs ? ` (it resolves to ${resolvedTo})` : '';
  return `${abs}${via} is outside the workspace; allowed: ${rootList(roots).join(', ')}. Nothing was read or changed.`;
}

/** How many symlinks {@link realTarget} follows before giving up (like the kernel's ELOOP limit). */
const MAX_LINKS = 40;

/**
 * Where `abs` really points on disk: the realpath of the path, or for a path that does not exist
 * yet the realpath of its nearest existing ancestor joined with the missing rest. A dangling
 * symlink on the way is followed to its target, so "create a file through a broken link" cannot
 * land outside.
 * Synchronous on purpose: one `realpath(3)` system call per path is a few µs, while a trip
 * through libuv's thread pool per call cost ~0.1 ms of every tool step (bench: tool step).
 * @throws {ToolError} on a symlink loop; other fs errors (EACCES…) propagate.
 */
export async function realTarget(abs: string): Promise<string> {
  return realTargetSync(abs);
}

/** {@link realTarget}, synchronously (it makes only synchronous system calls). */
function realTargetSync(abs: string): string {
  let candidate = resolved(abs);
  let rest: string[] = [];
  for (let links = 0; ; ) {
    try {
      const real = realpathSync.native(candidate);
      return rest.length === 0 && POSIX && isNormalAbsolute(real) ? real : path.join(real, ...rest);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new ToolError(`${abs}: too many levels of symbolic links`);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    let stats: ReturnType<typeof lstatSync> | undefined;
    try {
      stats = lstatSync(candidate);
    } catch {
      stats = undefined;
    }
    if (stats?.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw new ToolError(`${abs}: too many levels of symbolic links`);
      candidate = path.resolve(path.dirname(candidate), readlinkSync(candidate));
      continue;
    }
    const parent = path.dirname(candidate);
    if (parent === candidate) return path.join(candidate, ...rest);
    rest = [path.basename(candidate), ...rest];
    candidate = parent;
  }
}

/**
 * Checks that `abs` stays inside the workspace, lexically and after following symlinks (each root
 * is compared both as given and as its realpath, so a `cwd` under a symlinked `/tmp` still works).
 * @param abs - an absolute path, usually from {@link resolveToolPath}.
 * @returns `abs` normalised (not the realpath: titles and diffs show the path the model used).
 * @throws {ToolError} naming the path and the allowed roots when it resolves outside them.
 */
export async function confine(abs: string, roots: WorkspaceRoots): Promise<string> {
  if (abs.includes('\0')) throw new ToolError(`${JSON.stringify(abs)}: a path cannot hold a NUL character`);
  const normal = resolved(abs);
  const allowed = rootList(roots);
  if (!allowed.some((root) => isWithin(normal, root))) throw new ToolError(outsideMessage(normal, roots), 'outside_workspace');
  let real: string;
  try {
    real = realTargetSync(normal);
  } catch (error) {
    // EACCES on a parent, ENAMETOOLONG…: the model's path is at fault, not our code.
    if (error instanceof ToolError || (error as NodeJS.ErrnoException).code === undefined) throw error;
    throw new ToolError(`${normal}: cannot check the path (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!allowedReal(roots).some((root) => isWithin(real, root))) throw new ToolError(outsideMessage(normal, roots, real), 'outside_workspace');
  return normal;
}

/** The roots' real paths as first seen, per roots object (a session's): see {@link pinWorkspaceRoots}. */
const pinned = new WeakMap<WorkspaceRoots, string[]>();

/** Each root's real path now (the path itself when it cannot be resolved). */
function realRootsNow(roots: WorkspaceRoots): string[] {
  return rootList(roots).map((root) => {
    try {
      return realTargetSync(root);
    } catch {
      return root;
    }
  });
}

/**
 * Remembers where the roots really are now (their real paths), for as long as `roots` lives: a
 * session folder replaced by a symlink afterwards does not move the workspace to the link's
 * target. Called when a session's roots are set; a roots object never pinned is pinned at its
 * first check.
 * @returns `roots`.
 */
export function pinWorkspaceRoots(roots: WorkspaceRoots): WorkspaceRoots {
  pinned.set(roots, realRootsNow(roots));
  return roots;
}

/**
 * The directories a real path may lie in: the roots as given and their pinned real paths (a cwd
 * under a symlinked `/tmp` still works). A real path has no symlink in it, so lying under a root
 * as given means that root is a real directory there.
 */
export function allowedReal(roots: WorkspaceRoots): string[] {
  let real = pinned.get(roots);
  if (real === undefined) {
    real = realRootsNow(roots);
    pinned.set(roots, real);
  }
  return [...rootList(roots), ...real];
}

/**
 * The path as shown in titles: relative to `cwd` when inside it (`.` for `cwd` itself), else absolute.
 */
export function relativeForTitle(abs: string, cwd: string): string {
  if (!POSIX) {
    if (!isWithin(abs, cwd)) return path.resolve(abs);
    return path.relative(path.resolve(cwd), path.resolve(abs)) || '.';
  }
  const a = resolved(abs);
  const r = resolved(cwd);
  if (a === r) return '.';
  if (r === '/') return a.slice(1);
  return a.charCodeAt(r.length) === 0x2f && a.startsWith(r) ? a.slice(r.length + 1) : a;
}
