/**
 * `collectWhenQuiet`: what a burst of turns left is collected once, after the agent has been quiet
 * for the time given, never while work is under way, and not again until more work was done.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { collectWhenQuiet } from '../../src/shared/collect-garbage.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('collectWhenQuiet', () => {
  it('collects twice once quiet after work, not while busy, and not again without new work', () => {
    let busy = false;
    const collect = vi.fn();
    const quiet = collectWhenQuiet({ quietMs: 1_000, busy: () => busy, collect });
    vi.advanceTimersByTime(5_000);
    expect(collect).not.toHaveBeenCalled();
    quiet.worked();
    vi.advanceTimersByTime(500);
    expect(collect).not.toHaveBeenCalled();
    busy = true;
    vi.advanceTimersByTime(2_000);
    expect(collect).not.toHaveBeenCalled();
    busy = false;
    vi.advanceTimersByTime(500);
    expect(collect).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(2);
    quiet.worked();
    vi.advanceTimersByTime(1_500);
    expect(collect).toHaveBeenCalledTimes(4);
  });
});
