/**
 * The local {@link ToolBackend}: Node's fs and child_process, for clients that did not advertise
 * `fs.*` or `terminal`. Every path is checked again with {@link confine} here, whatever the caller
 * did, so nothing outside the workspace is ever read, written or used as a command's cwd. A read
 * then checks the file it opened, and a write the folder it opened (`open-inside.ts`): a path
 * swapped for a symlink after the check is refused, not followed.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { ToolError, type WorkspaceRoots } from '../tool.js';
import type { CommandOptions, CommandResult, LineRange, ToolBackend } from './tool-backend.js';
import { allowedReal, confine, realTarget, rootList } from './workspace.js';
import { openInside, OutsideError, throughOpened } from '../../shared/open-inside.js';
import { runLocalCommand } from './local-command.js';
import { decodeText, formatBytes } from './text-decode.js';

/**
 * Largest file read whole, in bytes: 10 MiB. A file up to this size is read at once and paged by
 * `read_file`'s offset/limit (cheap next to a model call); a larger one is refused with a message
 * pointing at search_files or a command, since paging it would read it whole every time.
 */
const MAX_READ_BYTES = 10 * 1024 * 1024;

/** Options of {@link createLocalBackend}. */
export interface LocalBackendOptions {
  /** Largest readable file in bytes. @defaultValue {@link MAX_READ_BYTES} */
  maxReadBytes?: number;
}

/**
 * A backend that acts on the local disk and runs commands locally, confined to `roots`.
 * `release()` of a command is a no-op (the process is gone when `runCommand` settles).
 */
export function createLocalBackend(roots: WorkspaceRoots, options: LocalBackendOptions = {}): ToolBackend {
  const maxReadBytes = options.maxReadBytes ?? MAX_READ_BYTES;
  return {
    where: { read: 'local', write: 'local', terminal: 'local' },
    readTextFile: async (file, signal, range) => linesOf(await readLocalText(await confine(file, roots), signal, maxReadBytes, roots), range),
    writeTextFile: async (file, content, signal) => writeLocalText(await confine(file, roots), content, signal, roots),
    fileExists: async (file) => localFileExists(await confine(file, roots), roots.cwd),
    deleteFile: async (file, signal) => {
      signal.throwIfAborted();
      const target = await confine(file, roots);
      if ((await stat(target).catch(() => undefined))?.isDirectory()) throw new ToolError(`${file} is a directory; not removed`, 'is_directory');
      await unlink(target).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw fsToolError(error, file);
      });
    },
    runCommand: async (command: string, commandOptions: CommandOptions): Promise<CommandResult & { release: () => Promise<void> }> => {
      const cwd = await confine(commandOptions.cwd, roots);
      const info = await stat(cwd).catch(() => undefined);
      if (!info?.isDirectory()) throw new ToolError(`cannot run the command in ${cwd}: not an existing directory`);
      const result = await runLocalCommand(command, { ...commandOptions, cwd }, rootList(roots));
      return { ...result, release: async () => undefined };
    },
  };
}

/**
 * Whether `file` exists on this machine's disk: `true`, `false` when it is missing but the
 * session's `cwd` is here (so the workspace is this disk), `undefined` when even the cwd is not
 * (an agent in a container, its client's files elsewhere: only the client can tell).
 */
async function localFileExists(file: string, cwd: string): Promise<boolean | undefined> {
  const info: Stats | undefined = await stat(file).catch(() => undefined);
  if (info) return true;
  return (await stat(cwd).catch(() => undefined))?.isDirectory() ? false : undefined;
}

/**
 * Reads a text file: opened once, and the opened file checked to lie inside `roots`.
 * @throws {ToolError} no such file, a directory, a file over `maxBytes`, a binary file, no permission, outside the workspace.
 */
async function readLocalText(file: string, signal: AbortSignal, maxBytes: number, roots: WorkspaceRoots): Promise<string> {
  signal.throwIfAborted();
  const opened = await openInside(file, allowedReal(roots)).catch((error: NodeJS.ErrnoException) => {
    throw error instanceof OutsideError ? outsideAfterOpen(file, roots, error) : fsToolError(error, file);
  });
  try {
    const info = await opened.handle.stat();
    if (info.isDirectory()) throw new ToolError(`${file} is a directory; use list_directory`, 'is_directory');
    if (!info.isFile()) throw new ToolError(`${file} is not a regular file`);
    if (info.size > maxBytes) {
      throw new ToolError(
        `${file} is too large to read (${formatBytes(info.size)}; the limit is ${formatBytes(maxBytes)}). Use search_files to find the lines you need, or run_command with a tool such as head, tail or sed -n.`,
        'too_large',
      );
    }
    const bytes = await opened.handle.readFile({ signal }).catch((error: NodeJS.ErrnoException) => {
      if (signal.aborted) throw signal.reason;
      throw fsToolError(error, file);
    });
    const text = decodeText(bytes);
    if (text === null) throw new ToolError(`${file} is a binary file (${formatBytes(bytes.length)}); not shown`, 'binary');
    return text;
  } finally {
    await opened.handle.close();
  }
}

/** The refusal of a file that turned out, once opened, to lie outside the workspace. */
function outsideAfterOpen(file: string, roots: WorkspaceRoots, error: OutsideError): ToolError {
  const where = error.real === undefined ? 'where it lies could not be told' : `it is ${error.real}`;
  return new ToolError(
    `${file} is outside the workspace once opened (${where}); allowed: ${rootList(roots).join(', ')}. Nothing was read or changed.`,
    'outside_workspace',
  );
}

/**
 * Writes a whole text file atomically: parents created (`mkdir -p`), the folder opened and checked
 * to lie inside `roots`, the text written to a temp file in that opened folder and renamed over
 * the target; an existing file keeps its mode. A symlink (already confined) is written through,
 * not replaced.
 * @throws {ToolError} when the target is a directory, cannot be written, or its folder is outside the workspace once opened; the signal's reason when aborted before the rename.
 */
async function writeLocalText(file: string, content: string, signal: AbortSignal, roots: WorkspaceRoots): Promise<void> {
  signal.throwIfAborted();
  const target = await realTarget(file);
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isDirectory()) throw new ToolError(`${file} is a directory; give a file path`, 'is_directory');
  const dir = path.dirname(target);
  await mkdir(dir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    throw fsToolError(error, dir);
  });
  // Windows opens no folder as a file: there the confined path is written by name.
  const folder =
    process.platform === 'win32'
      ? undefined
      : await openInside(dir, allowedReal(roots), constants.O_RDONLY | constants.O_DIRECTORY).catch((error: NodeJS.ErrnoException) => {
          throw error instanceof OutsideError ? outsideAfterOpen(file, roots, error) : fsToolError(error, dir);
        });
  try {
    // Through the opened folder (Linux: /proc/self/fd/N), so a folder swapped after the check is not followed.
    const via = folder ? throughOpened(folder.handle, dir) : dir;
    const name = path.basename(target);
    const temp = path.join(via, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await writeFile(temp, content, { encoding: 'utf8', signal, flag: 'wx' });
      if (existing) await chmod(temp, existing.mode & 0o7777);
      signal.throwIfAborted();
      await rename(temp, path.join(via, name));
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      if (signal.aborted) throw signal.reason;
      throw fsToolError(error as NodeJS.ErrnoException, file);
    }
  } finally {
    await folder?.handle.close();
  }
}

/** An fs error as a {@link ToolError} for the model; errors without a known code are passed on. */
function fsToolError(error: NodeJS.ErrnoException, file: string): Error {
  switch (error.code) {
    case 'ENOENT':
      return new ToolError(`no such file: ${file}`, 'not_found');
    case 'ENOTDIR':
      return new ToolError(`no such file: ${file} (a parent is not a directory)`, 'not_found');
    case 'EISDIR':
      return new ToolError(`${file} is a directory; use list_directory`, 'is_directory');
    case 'EACCES':
    case 'EPERM':
      return new ToolError(`permission denied: ${file}`);
    case 'EROFS':
      return new ToolError(`read-only file system: ${file}`);
    case 'ENOSPC':
      return new ToolError(`no space left on the device writing ${file}`);
    default:
      return error;
  }
}

/** The lines of `text` in `range` (1-based `line`, `limit` lines; line ends kept); all of it without one. */
function linesOf(text: string, range: LineRange | undefined): string {
  if (!range || (range.line === undefined && range.limit === undefined)) return text;
  const lines = text.split(/(?<=\n)/);
  const first = Math.max(1, range.line ?? 1) - 1;
  return lines.slice(first, range.limit === undefined ? undefined : first + Math.max(0, range.limit)).join('');
}
