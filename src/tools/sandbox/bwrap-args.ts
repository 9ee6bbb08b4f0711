/**
 * The bubblewrap command line that runs one tool process confined (pure): the whole file system
 * read-only, the workspace roots read-write, a private `/tmp`, `/dev` and `/proc`, the paths that
 * hold the agent's secrets and sessions made empty, no network unless allowed, new user, PID,
 * IPC, UTS and cgroup namespaces, and a new session (no `TIOCSTI` into a terminal).
 *
 * Source: bwrap(1) of bubblewrap 0.8 (Debian 12's `bubblewrap`); mounts are made in the order of
 * the arguments, so a later mount covers an earlier one (the roots over `/tmp`, the hidden paths
 * over the roots).
 */

/** A path to hide: an empty directory (tmpfs) over a directory, `/dev/null` over a file. */
export interface HiddenPath {
  /** Absolute real path (symlinks resolved). */
  path: string;
  /** True for a directory. */
  directory: boolean;
}

/** What a sandboxed process may use. */
export interface SandboxSpec {
  /** Absolute real paths of the directories bound read-write (the session's roots). */
  writable: readonly string[];
  /** Existing paths made empty inside (state directory, config directory, secret files). */
  hidden: readonly HiddenPath[];
  /** Whether the process shares the host's network; false: a network namespace with its own loopback only. */
  network: boolean;
  /** Absolute real working directory (inside a writable root). */
  cwd: string;
}

/**
 * The arguments of `bwrap` that run `file` with `args` under `spec`. bwrap passes its own
 * environment on, so the caller spawns it with the tool's environment already filtered.
 */
export function bwrapArgs(spec: SandboxSpec, file: string, args: readonly string[]): string[] {
  const argv = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  for (const dir of spec.writable) argv.push('--bind', dir, dir);
  for (const hidden of spec.hidden) {
    if (hidden.directory) argv.push('--tmpfs', hidden.path);
    else argv.push('--ro-bind', '/dev/null', hidden.path);
  }
  argv.push('--unshare-all');
  if (spec.network) argv.push('--share-net');
  argv.push('--die-with-parent', '--new-session', '--chdir', spec.cwd, '--', file, ...args);
  return argv;
}
