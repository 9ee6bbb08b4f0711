/**
 * Which tool results the context planner sends as stubs (`context-fit.ts`): ranges of their
 * indexes, counted over the live conversation's tool results oldest first (the earlier turns', then
 * this turn's steps'). Saved with each turn (`TurnRecord.context.stubbed`) so the next turn sends
 * the same stubs; a session file written before ranges holds a count `n`, which is `[[0, n]]`. Pure.
 */

/** Half-open `[from, to)` index ranges, ascending, apart (never touching). */
export type StubRanges = readonly (readonly [number, number])[];

/** No stubs. */
export const NO_STUBS: StubRanges = [];

/** `value` as ranges: a saved count `n` is the first `n` results; anything else that is not ranges is none. */
export function stubRanges(value: number | StubRanges | undefined): StubRanges {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? [[0, value]] : NO_STUBS;
  return isStubRanges(value) ? value : NO_STUBS;
}

/** Whether `value` is a list of `[from, to)` pairs of non-negative integers, ascending and apart. */
export function isStubRanges(value: unknown): value is StubRanges {
  if (!Array.isArray(value)) return false;
  let end = -1;
  for (const pair of value) {
    if (!Array.isArray(pair) || pair.length !== 2) return false;
    const [from, to] = pair as unknown[];
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || (from as number) <= end || (to as number) <= (from as number)) return false;
    end = to as number;
  }
  return true;
}

/** The flags of `count` results, true where `ranges` stubs one. */
export function stubFlags(ranges: StubRanges, count: number): boolean[] {
  const flags = new Array<boolean>(count).fill(false);
  for (const [from, to] of ranges) for (let i = from; i < Math.min(to, count); i++) flags[i] = true;
  return flags;
}

/** The ranges of the true flags. */
export function rangesOf(flags: readonly boolean[]): StubRanges {
  const ranges: [number, number][] = [];
  flags.forEach((flag, i) => {
    if (!flag) return;
    const last = ranges.at(-1);
    if (last && last[1] === i) last[1] = i + 1;
    else ranges.push([i, i + 1]);
  });
  return ranges;
}
