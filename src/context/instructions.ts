/**
 * The instruction files the system prompt carries (the https://agents.md convention):
 * - `AGENTS.md` of every folder from the repository root (the nearest folder above the session's
 *   cwd holding `.git`) down to the cwd; without a repository, the cwd's alone. A folder without
 *   `AGENTS.md` but with `CLAUDE.md` gives that instead (many projects only have that one).
 * - `additionalDirectories` inside the same repository add their own folders the same way; others
 *   are not searched.
 * - a user-wide `AGENTS.md` in the agent's config directory (`$XDG_CONFIG_HOME/openai-acp`).
 * Most general first, nearest last, so the nearest has the last word.
 *
 * Their size counts against the context: all together get at most {@link instructionBudgetBytes}
 * (a quarter of the window when it is known), handed out nearest first; a file past its share is
 * cut with a note, and a file that gets nothing is named as left out. A file that is a symlink
 * leading out of the repository is still read (within the limits) and said to be one; one that
 * is not text or cannot be read is named with a one-line note instead of its text. The same limits
 * hold when the files are read again during a session (`prompt-facts.ts`).
 *
 * Each file is opened once and what was opened is checked (`open-inside.ts`). On a server with a
 * workspace root (`openai-acp serve --root`) nothing above the root is looked at, and a file that
 * once opened lies outside the root (a symlink, or one swapped in) is left out, unread; the
 * user-wide file must lie in the config directory.
 */
import { constants } from 'node:fs';
import { type FileHandle, lstat, open, realpath } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { openedRealPath, openInside, OutsideError } from '../shared/open-inside.js';

/** The instruction file names, in order of preference within one folder. */
const INSTRUCTION_FILE_NAMES = ['AGENTS.md', 'CLAUDE.md'] as const;
/**
 * Bytes all instruction files may take when the context window is unknown: 32 KiB.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const INSTRUCTIONS_MAX_BYTES = 32 * 1024;
/** Bytes they may take at most, whatever the window: 64 KiB. */
const INSTRUCTIONS_CEILING_BYTES = 64 * 1024;
/** Their share of a known context window: a quarter. */
const INSTRUCTIONS_WINDOW_SHARE = 0.25;
/** Bytes per token assumed when turning the window share into bytes (the estimate's ~4 characters per token). */
const BYTES_PER_TOKEN = 4;

/**
 * Bytes all instruction files may take for a context window (tokens): a quarter of it at ~4 bytes
 * per token, at most {@link INSTRUCTIONS_CEILING_BYTES}; {@link INSTRUCTIONS_MAX_BYTES} when the
 * window is unknown. The context planner may replace this fixed share.
 */
export function instructionBudgetBytes(contextWindow: number | undefined): number {
  if (!contextWindow || contextWindow <= 0) return INSTRUCTIONS_MAX_BYTES;
  return Math.min(INSTRUCTIONS_CEILING_BYTES, Math.floor(contextWindow * INSTRUCTIONS_WINDOW_SHARE) * BYTES_PER_TOKEN);
}

/** One instruction file as used. */
export interface InstructionFile {
  /** Absolute path. */
  path: string;
  /** How the prompt names it: relative to the cwd, or absolute for the user-wide file. */
  label: string;
  /** The text included (maybe cut; empty when left out). */
  text: string;
  /** What the model should know about it: cut, left out, a symlink out of the repository. */
  notes: string[];
}

/** Where to look. */
export interface InstructionSources {
  /** The session's working directory (absolute). */
  cwd: string;
  /** The session's `additionalDirectories` (absolute); only those in the cwd's repository are searched. */
  extra?: readonly string[];
  /** The agent's config directory, for the user-wide file; absent: none. */
  configDir?: string | undefined;
  /** Bytes all files may take. @defaultValue {@link INSTRUCTIONS_MAX_BYTES} */
  maxBytes?: number;
  /** The server's workspace root (`serve --root`): no folder above it is searched, no file outside it read. Absent: no such bound. */
  root?: string | undefined;
}

const exists = (path: string): Promise<boolean> => lstat(path).then(Boolean, () => false);

/**
 * The nearest folder at or above `dir` that holds `.git` (file or folder), or `undefined`.
 * @internal checked on nested temporary repositories without loading instruction files.
 */
export async function repositoryRoot(dir: string): Promise<string | undefined> {
  for (let current = resolve(dir); ; current = dirname(current)) {
    if (await exists(join(current, '.git'))) return current;
    if (dirname(current) === current) return undefined;
  }
}

/** Whether `path` is `dir` or inside it. */
const within = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/** The folders from `root` down to `dir` (both included); `[dir]` when `dir` is not inside `root`. */
function foldersDown(root: string, dir: string): string[] {
  if (!within(dir, root)) return [dir];
  const folders = [dir];
  for (let current = dir; current !== root; ) {
    current = dirname(current);
    folders.unshift(current);
  }
  return folders;
}

/** The instruction file of one folder (AGENTS.md, else CLAUDE.md), or `undefined`. */
async function fileIn(folder: string): Promise<string | undefined> {
  for (const name of INSTRUCTION_FILE_NAMES) {
    const path = join(folder, name);
    if (await exists(path)) return path;
  }
  return undefined;
}

/**
 * Finds and reads the instruction files (see the module comment), most general first. Never
 * rejects: a file that cannot be read or is not text is listed with a note saying so and no text.
 */
export async function loadInstructions(sources: InstructionSources): Promise<InstructionFile[]> {
  const cwd = resolve(sources.cwd);
  const bound = sources.root === undefined ? undefined : resolve(sources.root);
  const repository = await repositoryRoot(cwd);
  // Over serve, a repository reaching above the server's root is read from the root down: nothing above it.
  const root = bound !== undefined && repository !== undefined && within(cwd, bound) && !within(repository, bound) ? bound : repository;
  const folders = new Set<string>(root ? foldersDown(root, cwd) : [cwd]);
  if (root) {
    // Shallow folders first; the cwd's own chain stays last, so the cwd's file is the nearest.
    const more = (sources.extra ?? [])
      .map((dir) => resolve(dir))
      .filter((dir) => within(dir, root))
      .flatMap((dir) => foldersDown(root, dir));
    const ordered = [...new Set([...more, ...folders])].sort((a, b) => depth(a) - depth(b) || (folders.has(a) ? 1 : 0) - (folders.has(b) ? 1 : 0));
    folders.clear();
    for (const folder of ordered) folders.add(folder);
  }
  const found: { path: string; label: string; user: boolean }[] = [];
  const user = sources.configDir ? join(resolve(sources.configDir), 'AGENTS.md') : undefined;
  if (user && (await exists(user))) found.push({ path: user, label: user, user: true });
  for (const folder of folders) {
    const path = await fileIn(folder);
    if (path && !found.some((entry) => entry.path === path)) found.push({ path, label: relative(cwd, path) || path, user: false });
  }
  if (found.length === 0) return []; // the common case: none, so no `realpath` below
  // Nearest first for the budget: the cwd's file is read whole before a parent's.
  let budget = sources.maxBytes ?? INSTRUCTIONS_MAX_BYTES;
  const files = new Map<string, InstructionFile>();
  // Compared resolved on both sides: a cwd reached through a symlinked folder is not "outside".
  const home = await realpath(root ?? cwd).catch(() => root ?? cwd);
  const realOf = (dir: string) => realpath(dir).catch(() => dir);
  const serverRoot = bound === undefined ? undefined : [await realOf(bound)];
  const configRoot = sources.configDir === undefined ? undefined : [await realOf(resolve(sources.configDir))];
  for (const entry of [...found].reverse()) {
    const read = await readWithin(entry.path, budget, entry.user ? configRoot : serverRoot);
    if (!read) continue;
    budget -= read.bytes;
    const notes = [...read.notes];
    if (!entry.user) {
      const target = read.real ?? entry.path;
      if (target !== entry.path && !within(target, home)) notes.push(`a symlink to ${target}, outside the ${root ? 'repository' : 'working directory'}`);
    }
    files.set(entry.path, { path: entry.path, label: entry.label, text: read.text, notes });
  }
  return found.flatMap((entry) => files.get(entry.path) ?? []);
}

const depth = (path: string) => path.split(sep).length;

/** Decodes strictly: bytes that are not UTF-8 throw. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Read-only, and without waiting on a FIFO (the file is checked to be a regular one once open). */
const READ_FLAGS = process.platform === 'win32' ? 'r' : constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * Reads at most `budget` bytes of a regular file, cut at a character boundary with a note. A file
 * that is not text (a NUL byte, or not UTF-8) or cannot be read is left out with a one-line note;
 * `undefined` when there is no regular file there (gone, a folder, a dangling symlink) or, with
 * `allowed`, when the opened file lies outside those directories (real paths). `real`: where the
 * opened file is, when that could be told.
 */
async function readWithin(
  path: string,
  budget: number,
  allowed: readonly string[] | undefined,
): Promise<{ text: string; bytes: number; notes: string[]; real?: string | undefined } | undefined> {
  let handle: FileHandle;
  let real: string | undefined;
  try {
    if (allowed) ({ handle, real } = await openInside(path, allowed, READ_FLAGS));
    else {
      handle = await open(path, READ_FLAGS);
      real = await openedRealPath(handle, path);
    }
  } catch (error) {
    return error instanceof OutsideError ? undefined : unreadable(error);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    if (info.size === 0) return { text: '', bytes: 0, notes: [], real };
    if (budget <= 0)
      return { text: '', bytes: 0, notes: [`left out: the instruction files already take their share of the context (${kib(info.size)})`], real };
    // One byte past the budget, to see whether the cut falls inside a character.
    const want = Math.min(info.size, budget + 1);
    const buffer = Buffer.alloc(want);
    const { bytesRead } = await handle.read(buffer, 0, want, 0);
    let cut = Math.min(bytesRead, budget);
    if (bytesRead > budget) while (cut > 0 && ((buffer[cut] ?? 0) & 0xc0) === 0x80) cut--;
    const bytes = buffer.subarray(0, cut);
    if (bytes.includes(0)) return { text: '', bytes: 0, notes: [`left out: it is not text (${kib(info.size)} of binary data)`], real };
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return { text: '', bytes: 0, notes: ['left out: it is not UTF-8 text'], real };
    }
    const notes = info.size > budget ? [`cut to its first ${kib(cut)} of ${kib(info.size)} to fit the context`] : [];
    return { text, bytes: cut, notes, real };
  } catch (error) {
    return unreadable(error);
  } finally {
    await handle.close();
  }
}

/**
 * A file that is there but cannot be read: left out with the reason; `undefined` when it is not there.
 * @internal the tests check the reading of the failures root never meets (EACCES).
 */
export function unreadable(error: unknown): { text: string; bytes: number; notes: string[] } | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return undefined;
  return { text: '', bytes: 0, notes: [`left out: it cannot be read (${code ?? (error as Error).message})`] };
}

const kib = (bytes: number) => (bytes < 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024)} KiB`);

/**
 * The system prompt's part for the files: which files are used, then each under its name, with
 * its notes. `''` when there are none (or all are blank). Pure.
 */
export function renderInstructions(files: readonly InstructionFile[]): string {
  const used = files.filter((file) => file.text.trim() || file.notes.length > 0);
  if (used.length === 0) return '';
  const head = `Instructions from ${used.map((file) => file.label).join(', ')} (most general first; the later, nearer file wins where they differ):`;
  const parts = used.map((file) => [`## ${file.label}`, file.text.trim(), ...file.notes.map((note) => `[${file.label}: ${note}]`)].filter(Boolean).join('\n'));
  return [head, ...parts].join('\n\n');
}
