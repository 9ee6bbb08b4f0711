/**
 * Opening a file once and checking where the opened file really is, so a path swapped for a
 * symlink between a check and the open cannot lead outside the allowed directories: the check is
 * made on the open file itself, not on its name again.
 *
 * Where the file is: on Linux the kernel's own answer, `readlink("/proc/self/fd/<fd>")`
 * (proc(5)); elsewhere the realpath of the name, accepted only when it is the same file
 * (device and inode) as the one open. A hard link to an outside file placed inside is the same
 * file under an inside name: it passes (a known limit; only the sandbox or file ownership stops it).
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isWithin } from './path-within.js';

/** Thrown by {@link openInside} when the opened file lies outside the allowed directories (`code` `EOUTSIDE`). */
export class OutsideError extends Error {
  override readonly name = 'OutsideError';
  readonly code = 'EOUTSIDE';
  /**
   * @param file - the path opened.
   * @param real - where the opened file really is (`undefined`: it could not be told).
   */
  constructor(
    readonly file: string,
    readonly real: string | undefined,
  ) {
    super(`${file}${real !== undefined && real !== file ? ` (opened, it is ${real})` : ''} lies outside the allowed directories`);
  }
}

/** Whether `/proc/self/fd` answers here (Linux with /proc mounted), found once. */
let procFd: boolean | undefined;

/**
 * Where the file open as `handle` (opened from `file`) really is, or `undefined` when that cannot
 * be told (deleted since, or renamed so that the name no longer leads to it on systems without
 * `/proc/self/fd`).
 */
export async function openedRealPath(handle: FileHandle, file: string): Promise<string | undefined> {
  if (procFd !== false) {
    try {
      const where = await readlink(`/proc/self/fd/${handle.fd}`);
      procFd = true;
      return where.endsWith(' (deleted)') || !path.isAbsolute(where) ? undefined : where;
    } catch {
      if (procFd === true) return undefined;
      procFd = false;
    }
  }
  try {
    const real = await realpath(file);
    const [opened, named]: [Stats, Stats] = await Promise.all([handle.stat(), stat(real)]);
    return opened.dev === named.dev && opened.ino === named.ino ? real : undefined;
  } catch {
    return undefined;
  }
}

/** Read-only, and without waiting on a FIFO swapped in for a file. */
const READ_FLAGS = process.platform === 'win32' ? 'r' : constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * Opens `file` and checks that the opened file is inside one of `dirs`.
 * @param dirs - absolute real paths (symlinks resolved) of the allowed directories.
 * @param flags - `open(2)` flags or an fs flag string. @defaultValue read-only, non-blocking
 * @returns the open handle (the caller closes it) and where the file really is.
 * @throws {OutsideError} after closing the file when it lies outside `dirs` or where it is cannot be told;
 *   the fs error (`ENOENT`, `EACCES`, …) when it cannot be opened.
 */
export async function openInside(file: string, dirs: readonly string[], flags: number | string = READ_FLAGS): Promise<{ handle: FileHandle; real: string }> {
  const handle = await open(file, flags);
  const real = await openedRealPath(handle, file);
  if (real !== undefined && dirs.some((dir) => isWithin(real, dir))) return { handle, real };
  await handle.close();
  throw new OutsideError(file, real);
}

/**
 * The path through which a directory open as `handle` is reached without walking its name again
 * (Linux: `/proc/self/fd/<fd>`, which names the open directory itself), or `dir` elsewhere.
 */
export function throughOpened(handle: FileHandle, dir: string): string {
  return procFd === true ? `/proc/self/fd/${handle.fd}` : dir;
}

/**
 * The bytes of the regular file `file`, opened once and checked to lie inside `dirs`.
 * @param dirs - directories allowed; resolved to their real paths here.
 * @param maxBytes - larger files are refused. @defaultValue 1 MiB
 * @throws {OutsideError} when the opened file lies outside `dirs`; an `Error` for a file that is not
 *   regular or is too large; the fs error when it cannot be opened or read.
 */
export async function readFileInside(file: string, dirs: readonly string[], maxBytes = 1024 * 1024): Promise<Buffer> {
  const real = await Promise.all(dirs.map((dir) => realpath(dir).catch(() => path.resolve(dir))));
  const { handle } = await openInside(file, real);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error('it is not a regular file');
    if (info.size > maxBytes) throw new Error(`it is larger than ${maxBytes} bytes`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
