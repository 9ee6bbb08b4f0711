/**
 * vitest globalSetup: the suite must leave the user's own openai-acp directories as it found
 * them. Before the run it lists every entry (path, kind, size, mtime) of the real session
 * directory, config directory and code-cache directory, as the agent would find them from the
 * environment vitest runs in; after the run it lists them again and throws, naming what changed,
 * when the listings differ. A directory that does not exist lists as empty.
 *
 * A test that starts the CLI without a temp HOME (test/helpers/clean-env.mjs) is what this
 * catches: the agent then saves its sessions under `~/.local/state/openai-acp`.
 */
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { agentConfigDir } from '../../src/config/config-file.js';
import { defaultStateDir } from '../../src/sessions/session-store.js';

/** The directories the agent would write to for `env`: sessions, config, code caches. */
export function realDirs(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME?.trim() || homedir();
  const cacheHome = env.XDG_CACHE_HOME?.trim() || join(home, '.cache');
  const dirs = [defaultStateDir(env), agentConfigDir(env), join(cacheHome, 'openai-acp')];
  const stateDir = env.OPENAI_ACP_STATE_DIR?.trim();
  if (stateDir && stateDir.toLowerCase() !== 'off') dirs.push(isAbsolute(stateDir) ? stateDir : resolve(stateDir.replace(/^~(?=$|\/)/, home)));
  return [...new Set(dirs)];
}

/** Every entry under `dir`: path → `kind size mtimeMs`; empty when `dir` is missing or unreadable. */
export function listing(dir: string): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (path: string) => {
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return;
    }
    for (const name of names) {
      const full = join(path, name);
      try {
        const stat = statSync(full);
        entries.set(full, stat.isDirectory() ? `dir - ${stat.mtimeMs}` : `file ${stat.size} ${stat.mtimeMs}`);
        if (stat.isDirectory()) walk(full);
      } catch {
        // Removed while listed: not there.
      }
    }
  };
  walk(dir);
  return entries;
}

/** What differs between two listings: `added …`, `changed …`, `removed …`, one entry each. */
export function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [path, entry] of after) {
    if (!before.has(path)) out.push(`added ${path}`);
    else if (before.get(path) !== entry) out.push(`changed ${path}`);
  }
  for (const path of before.keys()) if (!after.has(path)) out.push(`removed ${path}`);
  return out;
}

export default function setup(): () => void {
  const dirs = realDirs(process.env);
  const before = dirs.map(listing);
  return () => {
    const found = dirs.flatMap((_dir, index) => changes(before[index]!, listing(dirs[index]!)));
    if (found.length > 0) {
      throw new Error(
        `the test run changed the user's own openai-acp directories (${dirs.join(', ')}): a test started the CLI ` +
          `without a temp HOME (use test/helpers/clean-env.mjs):\n  ${found.slice(0, 20).join('\n  ')}`,
      );
    }
  };
}
