/**
 * vitest globalSetup: the run gets a home of its own, and must leave its openai-acp directories
 * untouched. Before the workers start it makes a temp directory and points `HOME` and `XDG_*` at
 * it (the workers inherit them), so nothing a test does can reach the user's real session, config
 * or cache directory, and what the user does meanwhile (an editor or acpx saving sessions) cannot
 * be taken for a test's doing. After the run it lists the openai-acp directories the agent would
 * use in that home (sessions, config, code caches) and throws, naming what is there, when any
 * test wrote to them; then it removes the home.
 *
 * A test that starts the CLI without a temp HOME of its own (test/helpers/clean-env.mjs), or runs
 * the agent in-process with the default directories, is what this catches.
 */
import { mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
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

/** The variables pointing the agent at its directories, set for the run and restored after it. */
const HOME_VARIABLES = ['HOME', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'OPENAI_ACP_STATE_DIR'] as const;

/**
 * Makes the run's home and points the environment at it; the returned teardown throws when the
 * agent's directories in it are not empty, and restores the environment and removes the home
 * (even when it throws).
 */
export default function setup(): () => void {
  const saved = Object.fromEntries(HOME_VARIABLES.map((name) => [name, process.env[name]]));
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'openai-acp-test-run-')));
  for (const name of HOME_VARIABLES) delete process.env[name];
  process.env.HOME = home;
  const dirs = realDirs(process.env);
  return () => {
    try {
      const found = dirs.flatMap((dir) => changes(new Map(), listing(dir)));
      if (found.length > 0) {
        throw new Error(
          `a test wrote to the openai-acp directories of the run's home (${home}), where the user's own would have been: ` +
            `it started the CLI without a temp HOME (use test/helpers/clean-env.mjs) or ran the agent with its default directories:\n  ${found.slice(0, 20).join('\n  ')}`,
        );
      }
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(home, { recursive: true, force: true });
    }
  };
}
