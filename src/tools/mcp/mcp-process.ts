/**
 * Making sure a stdio MCP server's process is gone. The SDK's `StdioClientTransport.close()`
 * ends stdin, waits 2 s, sends SIGTERM, waits 2 s, then SIGKILL (SDK 1.32 `client/stdio.js`):
 * up to 4 s, longer than clients wait for us at exit (acpx sends SIGKILL after 1.5 s). This
 * runs beside it on a shorter clock and checks the pid itself.
 */

/** Whether the process `pid` still exists (a process we may not signal counts as gone: the pid was reused). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone. EPERM: the pid now belongs to a process that is not ours, so ours is gone.
    return false;
  }
}

/** Resolves true once `pid` is gone, false after `ms` if it is still there. Polls every 20 ms. */
async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Sends `signal` to `pid`, ignoring a process that is already gone. */
function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone (ESRCH), or no longer ours (EPERM): nothing to stop.
  }
}

/**
 * Waits `graceMs` for `pid` to exit on its own (its stdin was closed), then sends SIGTERM and
 * waits `graceMs` again, then SIGKILL. Resolves whether the process is gone (false only if it
 * survived SIGKILL for `graceMs`, e.g. stuck in the kernel). Never rejects.
 * @param graceMs each wait, in ms. @defaultValue 500
 */
export async function ensureExited(pid: number, graceMs = 500): Promise<boolean> {
  if (await waitForExit(pid, graceMs)) return true;
  signalProcess(pid, 'SIGTERM');
  if (await waitForExit(pid, graceMs)) return true;
  signalProcess(pid, 'SIGKILL');
  return waitForExit(pid, graceMs);
}
