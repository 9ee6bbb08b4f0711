/**
 * The window to assume after an answer saying the prompt was over the context window, and how
 * many such answers a turn retries after. Pure.
 */
import { answerRoom, positive } from './token-estimate.js';

/** Retries after answers saying the prompt was over the window, per turn. */
export const OVERFLOW_RETRIES = 3;
/**
 * The window is multiplied by this after an overflow answer that names no window.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const OVERFLOW_SHRINK = 0.7;

/**
 * The window after an overflow answer, in tokens: `named` (the window the server named) when it
 * is smaller than `window` (the one assumed, `undefined`: unknown), else {@link OVERFLOW_SHRINK}
 * times the smaller of `window` and `sentTokens` (the rejected request's size, calibrated) plus
 * the answer's room (`answerRoom` of `window` and `maxTokens`); at least 1.
 */
export function windowAfterOverflow(window: number | undefined, sentTokens: number, maxTokens: number | undefined, named?: number): number {
  if (positive(named) && named < (window ?? Infinity)) return named;
  // The rejected request was smaller than the window assumed: the real one is below its size plus the answer's room.
  const current = Math.min(window ?? Infinity, sentTokens + (window !== undefined ? answerRoom(window, maxTokens) : 0));
  return Math.max(1, Math.floor(current * OVERFLOW_SHRINK));
}
