/**
 * Whether bubblewrap can confine a process here, found out once per process: a `bwrap` on the
 * PATH that can create its namespaces (a container without user namespaces, or a kernel or
 * AppArmor policy that forbids them, cannot).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** What the probe found: `available`, or why not and what the operator can do. */
export type SandboxAvailability = { available: true; bwrap: string } | { available: false; reason: string; remedy: string };

/** The remedy when the sandbox cannot be used, for doctor and the serve log. */
const REMEDY_OFF = 'or set OPENAI_ACP_SANDBOX=off where the machine or container is the boundary';

/** The first executable `bwrap` on `pathVariable`, or undefined. */
function findBwrap(pathVariable: string): string | undefined {
  for (const dir of pathVariable.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Longest wait for the probe's `bwrap … true`, in ms. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Runs the probe: finds `bwrap` and runs `bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent true`.
 * @param platform - `process.platform` unless a test says otherwise.
 */
function probeSandboxNow(platform: NodeJS.Platform = process.platform, pathVariable = process.env['PATH'] ?? ''): SandboxAvailability {
  if (platform !== 'linux')
    return { available: false, reason: `bubblewrap is for Linux; this is ${platform}`, remedy: `run serve on Linux for a sandbox, ${REMEDY_OFF}` };
  const bwrap = findBwrap(pathVariable);
  if (bwrap === undefined) {
    return {
      available: false,
      reason: 'bwrap is not installed',
      remedy: `install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), ${REMEDY_OFF}`,
    };
  }
  const run = spawnSync(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: PROBE_TIMEOUT_MS,
    encoding: 'utf8',
  });
  if (run.status === 0) return { available: true, bwrap };
  const said = (run.stderr ?? '').trim().split('\n')[0]?.slice(0, 200) || run.error?.message || `exit ${String(run.status ?? run.signal)}`;
  return {
    available: false,
    reason: `${bwrap} cannot create its namespaces (${said})`,
    remedy:
      'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also an AppArmor profile for bwrap); ' +
      `in Docker: --security-opt seccomp=unconfined --security-opt apparmor=unconfined; ${REMEDY_OFF}`,
  };
}

let cached: SandboxAvailability | undefined;

/** {@link probeSandboxNow}, run once per process and remembered. */
export function probeSandbox(): SandboxAvailability {
  cached ??= probeSandboxNow();
  return cached;
}
