/**
 * The walk that feeds the JavaScript search (search-worker.ts): the files under a directory in
 * the order and with the skips ripgrep uses (`.git`, hidden entries, ignored paths, symlinks), a
 * glob deciding instead of the ignore rules as ripgrep's `-g` does; or the one file named.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { WorkspaceRoots } from '../tool.js';
import { IgnoreStack } from './ignore-rules.js';
import type { AskGlob, WorkerFile } from './search-worker.js';

/** A regular file given explicitly. */
export async function* single(file: string): AsyncGenerator<WorkerFile> {
  yield { abs: file, rel: path.basename(file) };
}

/**
 * The files under `base`, depth-first in name order: `.git`, hidden entries, symlinks and
 * anything but regular files and directories left out, ignored ones too. A glob overrides that as
 * ripgrep's `-g` does: a glob decides alone for files (a `!glob` leaves out what it matches, among
 * the files not ignored), and a directory it matches is entered (a `!glob`: left out) whatever the
 * rules say. The glob is tested by the worker (`ask`), never here.
 */
export async function* walkFiles(base: string, roots: WorkspaceRoots, glob?: { negate: boolean; ask: AskGlob }): AsyncGenerator<WorkerFile> {
  const rel = (full: string) => path.relative(base, full).split(path.sep).join('/');
  const pending: { dir: string; rules: IgnoreStack }[] = [{ dir: base, rules: await IgnoreStack.forDirectory(base, roots) }];
  while (pending.length > 0) {
    const { dir, rules } = pending.pop()!;
    const dirents = await readdir(dir, { withFileTypes: true }).catch(() => []);
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    const askAbout: string[] = [];
    const whitelist = glob !== undefined && !glob.negate;
    for (const dirent of dirents) {
      const full = path.join(dir, dirent.name);
      const skipped = dirent.name.startsWith('.') || rules.ignores(full, dirent.isDirectory());
      if (dirent.isDirectory() && dirent.name !== '.git') {
        if (glob && (glob.negate ? !skipped : skipped)) askAbout.push(full);
        else if (!skipped) subdirs.push(full);
      } else if (dirent.isFile() && (whitelist || !skipped)) {
        yield { abs: full, rel: rel(full) };
      }
    }
    if (glob && askAbout.length > 0) {
      const matched = await glob.ask(askAbout.map(rel));
      askAbout.forEach((full, i) => {
        if (matched[i] !== glob.negate) subdirs.push(full);
      });
      subdirs.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
    for (const sub of subdirs.reverse()) pending.push({ dir: sub, rules: await rules.enter(sub) });
  }
}
