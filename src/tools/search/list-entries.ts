/**
 * `list_directory`, always local (ACP has no listing method): the entries of one directory,
 * sorted by name, `.git` and `.gitignore`d entries left out, capped.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { ToolError, type WorkspaceRoots } from '../tool.js';
import type { DirectoryEntry } from '../backends/tool-backend.js';
import { confine, relativeForTitle } from '../backends/workspace.js';
import { IgnoreStack } from './ignore-rules.js';
import { counted } from '../present/output-cap.js';

/** Most entries listed: 500. */
const MAX_LIST_ENTRIES = 500;

/** A directory listing. */
export interface DirectoryListing {
  /** The directory, absolute. */
  dir: string;
  /** Shown entries, sorted by name (code unit order), at most the cap. */
  entries: DirectoryEntry[];
  /** Entries past the cap, not shown. */
  more: number;
  /** Entries left out because `.gitignore` ignores them (`.git` not counted). */
  ignored: number;
}

/**
 * Lists `dir` (absolute; confined to `roots` here). A symlink is listed by its own name and marked
 * a directory when it points to one.
 * @param limit - most entries. @defaultValue {@link MAX_LIST_ENTRIES}
 * @throws {ToolError} outside the workspace, no such directory, not a directory; the signal's reason when aborted.
 */
export async function listDirectory(dir: string, roots: WorkspaceRoots, signal: AbortSignal, limit = MAX_LIST_ENTRIES): Promise<DirectoryListing> {
  signal.throwIfAborted();
  const abs = await confine(dir, roots);
  const info = await stat(abs).catch(() => undefined);
  if (!info) throw new ToolError(`no such directory: ${abs}`);
  if (!info.isDirectory()) throw new ToolError(`${abs} is a file, not a directory; use read_file`);
  const rules = await IgnoreStack.forDirectory(abs, roots);
  const dirents = await readdir(abs, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    throw new ToolError(`cannot list ${abs}: ${error.code ?? error.message}`);
  });
  const entries: DirectoryEntry[] = [];
  let ignored = 0;
  for (const dirent of dirents) {
    const full = path.join(abs, dirent.name);
    let directory = dirent.isDirectory();
    if (dirent.isSymbolicLink()) directory = (await stat(full).catch(() => undefined))?.isDirectory() ?? false;
    if (dirent.name === '.git') continue;
    if (rules.ignores(full, directory)) {
      ignored++;
      continue;
    }
    entries.push({ name: dirent.name, directory });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  signal.throwIfAborted();
  return { dir: abs, entries: entries.slice(0, limit), more: Math.max(0, entries.length - limit), ignored };
}

/**
 * The listing as text for the model and the client: a header line, one entry a line
 * (directories with a trailing `/`), then what was left out.
 */
export function formatListing(listing: DirectoryListing, cwd: string): string {
  const lines = [`${relativeForTitle(listing.dir, cwd)}/`];
  if (listing.entries.length === 0 && listing.more === 0) lines.push('(empty)');
  for (const entry of listing.entries) lines.push(`${entry.name}${entry.directory ? '/' : ''}`);
  if (listing.more > 0) lines.push(`[... ${counted(listing.more, 'more entry', 'more entries')} not shown]`);
  if (listing.ignored > 0) lines.push(`(${counted(listing.ignored, 'entry', 'entries')} ignored by .gitignore not shown)`);
  return lines.join('\n');
}
