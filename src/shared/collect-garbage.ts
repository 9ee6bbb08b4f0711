/**
 * A full garbage collection on demand, for the few moments when the agent has just let go of tens
 * of MB at once (a stdin line of a huge prompt, decoded and about to be parsed). V8 collects such
 * garbage only when its own heuristics say so, often after the next large allocation: the peak
 * memory of a 30 MB prompt then holds its bytes, its text and its parsed copy at once. Collecting
 * first keeps the peak at about twice the line (speed work, listed in ARCHITECTURE.md: peak RSS
 * with a 30 MB prompt 127 MiB with it, 155 MiB without).
 *
 * And once the agent has gone quiet after a burst of turns ({@link collectWhenQuiet}): an idle
 * process allocates nothing, so V8 never collects what the burst left, nor gives its heap back to
 * the system (bench/soak.mjs: RSS once the load drained 149 MiB without, 82 MiB with).
 *
 * Node exposes `gc()` only under `--expose-gc`, which `node dist/cli.js` cannot pass. The flag is
 * set for the moment it takes to fetch the function, then cleared: V8 keys code caches by the
 * flags in force, and a cache written (at exit, by dist/cli.js) under a changed flag would be
 * rejected by every later start.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null | undefined;

/** The `gc` function, fetched once; null where it cannot be had (the flag refused). */
function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return (collect = exposed);
  try {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  } catch {
    collect = null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

/**
 * Runs a full, synchronous garbage collection (a few ms per 100 MB of heap). Does nothing where
 * `gc` cannot be had. Never throws. Call it only after letting go of large data, never per message.
 */
export function collectGarbage(): void {
  try {
    collector()?.();
  } catch {
    // Only a saving of memory.
  }
}

/**
 * Collects the garbage of a burst of work once the process has been quiet for `quietMs`: call
 * `worked()` as each piece of work (a turn) ends; `busy()` says whether work is under way. Two full
 * collections: the second lets V8 give the pages the first emptied back to the system. At most
 * once per burst; the check runs every `quietMs / 2` on a timer that never keeps the process alive.
 */
export function collectWhenQuiet(options: {
  quietMs: number;
  busy: () => boolean;
  /** What collects. @defaultValue {@link collectGarbage} */
  collect?: () => void;
}): { worked(): void } {
  const collect = options.collect ?? collectGarbage;
  let lastWork: number | undefined;
  const timer = setInterval(
    () => {
      if (lastWork === undefined || Date.now() - lastWork < options.quietMs || options.busy()) return;
      lastWork = undefined;
      collect();
      collect();
    },
    Math.max(1, Math.floor(options.quietMs / 2)),
  );
  timer.unref();
  return {
    worked: () => {
      lastWork = Date.now();
    },
  };
}
