/**
 * What `GET /ready` reports of the process: whether its event loop answers in time, and whether
 * its session store can still be written. Not how many connections are open: a full server is
 * healthy and answers the clients it holds (a new one is refused with 503 on `/acp`), so a probe
 * must not take it out of service for that.
 *
 * The loop is watched by Node's `monitorEventLoopDelay` (a histogram of the delay of a 20 ms
 * timer), read and reset every 5 s; the store directory by `access(W_OK)`, at most once per 5 s.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Longest event loop delay, in ms, over the last window before the process is reported not ready. @defaultValue 2_000 */
const MAX_LOOP_DELAY_MS = 2_000;
/** How often the loop delay is read, and the store checked at most, in ms. */
const WINDOW_MS = 5_000;

/** The process's health, for `/ready`. */
export interface ProcessHealth {
  /** Why the process should not take traffic now, or `undefined` when it may. */
  problem(): Promise<string | undefined>;
  /** Stops watching. */
  stop(): void;
}

/** Starts watching; `storeDir()` names the directory sessions are written to (`undefined`: kept in memory). */
export function watchProcessHealth(storeDir: () => Promise<string | undefined>, maxDelayMs = MAX_LOOP_DELAY_MS): ProcessHealth {
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  let lastDelayMs = 0;
  const reader = setInterval(() => {
    lastDelayMs = delay.max / 1e6;
    delay.reset();
  }, WINDOW_MS);
  reader.unref();
  let storeChecked: { at: number; problem: string | undefined } | undefined;
  const storeProblem = async (): Promise<string | undefined> => {
    const now = Date.now();
    if (storeChecked && now - storeChecked.at < WINDOW_MS) return storeChecked.problem;
    const dir = await storeDir();
    let problem: string | undefined;
    if (dir !== undefined) {
      try {
        await access(dir, constants.W_OK);
      } catch (error) {
        problem = `the session store cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
      }
    }
    storeChecked = { at: now, problem };
    return problem;
  };
  return {
    async problem() {
      const worst = Math.max(lastDelayMs, delay.max / 1e6);
      if (worst > maxDelayMs) return `the event loop was held up for ${Math.round(worst)} ms`;
      return storeProblem();
    },
    stop() {
      clearInterval(reader);
      delay.disable();
    },
  };
}
