/**
 * A full garbage collection on demand, for the few moments when the agent has just let go of tens
 * of MB at once (a stdin line of a huge prompt, decoded and about to be parsed). V8 collects such
 * garbage only when its own heuristics say so, often after the next large allocation: the peak
 * memory of a 30 MB prompt then holds its bytes, its text and its parsed copy at once. Collecting
 * first keeps the peak at about twice the line (speed work, listed in ARCHITECTURE.md: peak RSS
 * with a 30 MB prompt 127 MiB with it, 155 MiB without).
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
