/**
 * The one environment every test and benchmark gives a CLI it starts (`dist/cli.js`, acpx, the
 * bench agents): what the parent has, minus anything that would point the agent at the user's
 * own settings or files, plus a throw-away home. Plain JavaScript so that the benchmarks
 * (bench/*.mjs) use it too; types in clean-env.d.mts.
 *
 * Why each piece:
 * - `HOME`: without it (an `env` of `{ PATH }`) Node's `os.homedir()` falls back to the passwd
 *   entry, the real home, and the agent saves sessions under `~/.local/state/openai-acp`.
 * - `XDG_CONFIG_HOME`, `XDG_STATE_HOME`, `XDG_CACHE_HOME`, `XDG_DATA_HOME`: under that home, so the
 *   config file, user `AGENTS.md`, user commands and the session directory are the temp ones
 *   (src/config/config-file.ts `agentConfigDir`, src/sessions/session-store.ts `defaultStateDir`).
 *   The agent still finds its session directory by its default rule, which the tests cover;
 *   a test that wants another passes `OPENAI_ACP_STATE_DIR` (a temp path, or `off`).
 * - Dropped from the parent: `OPENAI_*` (endpoint, key, `OPENAI_ACP_CONFIG`,
 *   `OPENAI_ACP_STATE_DIR`), `XDG_*`, `*_API_KEY`, `*_PROXY` (no test leaves 127.0.0.1).
 * - `OPENAI_ACP_IN_CONTAINER=false`: local discovery must not look up host.docker.internal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether an inherited variable is left out of a clean environment. */
function isDropped(key) {
  return key === 'HOME' || key.startsWith('OPENAI_') || key.startsWith('XDG_') || /_API_KEY$/.test(key) || /_PROXY$/i.test(key);
}

/**
 * The clean environment for `home`, then `env` on top (a test's own settings win, also over
 * `HOME` and the `XDG_*` directories).
 */
export function cleanEnv(home, env = {}) {
  const base = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !isDropped(key)) base[key] = value;
  }
  return {
    ...base,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    OPENAI_ACP_IN_CONTAINER: 'false',
    ...env,
  };
}

/** A fresh directory under the OS temp dir to serve as HOME; the caller removes it ({@link removeHome}). */
export function makeHome(prefix = 'openai-acp-home-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Removes a home made by {@link makeHome} (and everything the agent wrote in it). */
export function removeHome(home) {
  rmSync(home, { recursive: true, force: true });
}

let scriptHome;

/**
 * {@link cleanEnv} for one temp home per process, made on first use and removed when the process
 * exits: for scripts (bench/) that start agents outside vitest.
 */
export function scriptEnv(env = {}) {
  if (scriptHome === undefined) {
    const home = makeHome('openai-acp-bench-');
    scriptHome = home;
    process.once('exit', () => removeHome(home));
  }
  return cleanEnv(scriptHome, env);
}
