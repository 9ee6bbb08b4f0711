/**
 * Ignore rules for the local listing and search, matched by the `ignore` library (the same rules
 * as git), read as ripgrep reads them: each directory's `.gitignore` and `.ignore` (which wins
 * over `.gitignore`), and a repository's `.git/info/exclude` (under both). Each file applies to
 * paths relative to its own directory; a deeper file's rules come after (and so override) a
 * shallower one's, as in git. `.git` is always skipped.
 *
 * Files are read from the (outermost) workspace root that holds the searched directory down to it, then from
 * each directory entered while walking. Nothing above the workspace root is read.
 */
import { constants } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { WorkspaceRoots } from '../tool.js';
import { isWithin, rootList } from '../backends/workspace.js';

/** Names never listed nor searched. */
const ALWAYS_SKIPPED = new Set(['.git']);

/** The ignore files of one directory, weakest first. */
const IGNORE_FILES = [path.join('.git', 'info', 'exclude'), '.gitignore', '.ignore'];

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** One ignore file's rules. */
interface Layer {
  dir: string;
  rules: Ignore;
}

/** The `.gitignore` rules in force at one directory; {@link IgnoreStack.enter} gives a child's. */
export class IgnoreStack {
  private constructor(private readonly layers: readonly Layer[]) {}

  /** No rules at all. */
  static empty(): IgnoreStack {
    return new IgnoreStack([]);
  }

  /**
   * The rules in force in `dir`: every `.gitignore` from the outermost workspace root holding
   * `dir` down to `dir` itself. Unreadable files count as empty.
   */
  static async forDirectory(dir: string, roots: WorkspaceRoots): Promise<IgnoreStack> {
    const holding = rootList(roots)
      .filter((root) => isWithin(dir, root))
      // The outermost root: an extra directory inside the cwd still gets the cwd's rules.
      .sort((a, b) => a.length - b.length)[0];
    const start = holding ?? dir;
    const chain = [start];
    for (const part of path.relative(start, dir).split(path.sep).filter(Boolean)) chain.push(path.join(chain[chain.length - 1] ?? start, part));
    let stack = IgnoreStack.empty();
    for (const each of chain) stack = await stack.enter(each);
    return stack;
  }

  /**
   * The rules inside `dir` (a child of this stack's directory): these plus those of
   * `dir/.git/info/exclude`, `dir/.gitignore` and `dir/.ignore`, in that order, where they exist.
   */
  async enter(dir: string): Promise<IgnoreStack> {
    const layers = [...this.layers];
    for (const name of IGNORE_FILES) {
      // Non-blocking: a FIFO by that name gives nothing instead of a read that never ends.
      const text = await readFile(path.join(dir, name), { encoding: 'utf8', flag: READ_FLAGS }).catch(() => undefined);
      if (text !== undefined && text.trim() !== '') layers.push({ dir, rules: ignore().add(text) });
    }
    return layers.length === this.layers.length ? this : new IgnoreStack(layers);
  }

  /**
   * True when `abs` is skipped: named `.git`, or ignored by the rules (the last matching rule of
   * the deepest file that has one wins; `!pattern` re-includes).
   */
  ignores(abs: string, directory: boolean): boolean {
    if (ALWAYS_SKIPPED.has(path.basename(abs))) return true;
    let ignored = false;
    for (const layer of this.layers) {
      if (!isWithin(abs, layer.dir) || abs === layer.dir) continue;
      const rel = path.relative(layer.dir, abs).split(path.sep).join('/') + (directory ? '/' : '');
      let result: { ignored: boolean; unignored: boolean };
      try {
        result = layer.rules.test(rel);
      } catch {
        continue; // a name the library will not take as a relative path: no rule applies
      }
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }
}
