/**
 * Repeated log lines summarised (pure bookkeeping, time passed in): the first line of a kind
 * (e.g. one refusal reason from one address) is written, then one line per `every` repeats, and
 * one when a quiet minute ends a run, carrying how many were not written. One client sending junk
 * frames as fast as it can writes a few lines, not one per frame.
 */

interface Run {
  /** Repeats since the last line written. */
  unwritten: number;
  lastSeen: number;
}

/** Which of a stream of like lines to write. */
export class RepeatSummary {
  private readonly runs = new Map<string, Run>();

  /**
   * @param every - one line written per this many repeats. @defaultValue 100
   * @param quietMs - after this long without the kind, its next line is written again (with the count). @defaultValue 60_000
   * @param maxKinds - most kinds remembered (the oldest forgotten). @defaultValue 1_000
   */
  constructor(
    private readonly every = 100,
    private readonly quietMs = 60_000,
    private readonly maxKinds = 1_000,
  ) {}

  /**
   * One more line of `kind` at `now`: `undefined` when it is not to be written, else the number
   * of lines of that kind left unwritten before it (0 for the first).
   */
  take(kind: string, now: number): number | undefined {
    const run = this.runs.get(kind);
    if (!run || now - run.lastSeen >= this.quietMs) {
      this.runs.delete(kind);
      if (this.runs.size >= this.maxKinds) this.runs.delete(this.runs.keys().next().value as string);
      this.runs.set(kind, { unwritten: 0, lastSeen: now });
      return run?.unwritten ?? 0;
    }
    run.lastSeen = now;
    if (++run.unwritten < this.every) return undefined;
    const skipped = run.unwritten - 1;
    run.unwritten = 0;
    return skipped;
  }
}
