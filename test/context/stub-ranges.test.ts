/**
 * The stub ranges the context planner saves with each turn: a count from an older session file
 * read as the first results, ranges checked as ascending and apart, and flags to ranges and back.
 */
import { describe, expect, it } from 'vitest';
import { isStubRanges, rangesOf, stubFlags, stubRanges } from '../../src/context/stub-ranges.js';

describe('stub ranges', () => {
  it('reads a saved count as the first results, and nonsense as none', () => {
    expect(stubRanges(3)).toEqual([[0, 3]]);
    expect(stubRanges(0)).toEqual([]);
    expect(stubRanges(-2)).toEqual([]);
    expect(stubRanges(1.5)).toEqual([]);
    expect(stubRanges(undefined)).toEqual([]);
    expect(stubRanges([[1, 2]])).toEqual([[1, 2]]);
  });

  it('accepts only ascending, apart, non-empty ranges of integers', () => {
    expect(isStubRanges([])).toBe(true);
    expect(
      isStubRanges([
        [0, 2],
        [4, 9],
      ]),
    ).toBe(true);
    for (const bad of [
      [
        [0, 2],
        [2, 3],
      ],
      [
        [3, 4],
        [0, 1],
      ],
      [[2, 2]],
      [[0.5, 2]],
      [[1]],
      'x',
      [[0, '2']],
    ])
      expect(isStubRanges(bad)).toBe(false);
  });

  it('turns flags into ranges and back', () => {
    const flags = [false, true, true, false, true, false];
    expect(rangesOf(flags)).toEqual([
      [1, 3],
      [4, 5],
    ]);
    expect(stubFlags(rangesOf(flags), flags.length)).toEqual(flags);
    // Ranges past the results there are now are clipped.
    expect(stubFlags([[1, 10]], 3)).toEqual([false, true, true]);
  });
});
