import fc from 'fast-check';
import { binaryUnit } from '../../test/helpers/binary-unit.js';
import { describe, expect, it } from 'vitest';
import { INITIAL_RETRY_DELAY_MS, MAX_RETRY_DELAY_MS, MAX_SERVER_DELAY_MS, retryDelayMs, serverRequestedDelayMs } from '../../src/openai/retry.js';

const NOW_MIN = Date.parse('2000-01-01T00:00:00Z');
const NOW_MAX = Date.parse('2100-01-01T00:00:00Z');

/** Header values as servers send them, plus garbage. */
const headerValue = fc.oneof(
  fc.string(),
  fc.string({ unit: binaryUnit }),
  fc.integer({ min: -1_000_000, max: 10_000_000 }).map(String),
  fc.double({ noNaN: false }).map(String),
  fc.constantFrom('', ' ', 'NaN', 'Infinity', '-Infinity', '1e400', '0x10', ' 5 ', 'soon', '-0'),
  fc.date({ min: new Date(NOW_MIN - 86_400_000), max: new Date(NOW_MAX + 86_400_000), noInvalidDate: true }).map((d) => d.toUTCString()),
);

/** A `{get}` over a plain record (Headers would reject some of the garbage values). */
const headers = fc.option(
  fc.record({ 'retry-after-ms': headerValue, 'retry-after': headerValue }, { requiredKeys: [] }).map((values) => ({
    get: (name: string) => (values as Record<string, string | undefined>)[name] ?? null,
  })),
  { nil: undefined },
);

const attempt = fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 2 ** 31 }), fc.double({ min: 0, max: 1e308, noNaN: true }));
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const now = fc.integer({ min: NOW_MIN, max: NOW_MAX });

describe('retryDelayMs (property)', () => {
  it('is always a finite delay within [0, MAX_SERVER_DELAY_MS]', () => {
    fc.assert(
      fc.property(attempt, headers, random, now, (a, h, r, n) => {
        const value = retryDelayMs(a, h, r, n);
        expect(Number.isFinite(value)).toBe(true);
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(MAX_SERVER_DELAY_MS);
      }),
      { numRuns: 2000 },
    );
  });

  it('is the server delay when one within the cap was asked for, else backoff in [0.75 * base, base]', () => {
    fc.assert(
      fc.property(attempt, headers, random, now, (a, h, r, n) => {
        const value = retryDelayMs(a, h, r, n);
        const requested = serverRequestedDelayMs(h, n);
        if (requested !== undefined && requested <= MAX_SERVER_DELAY_MS) {
          expect(value).toBe(requested);
        } else {
          const base = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** a, MAX_RETRY_DELAY_MS);
          expect(value).toBeGreaterThanOrEqual(0.75 * base);
          expect(value).toBeLessThanOrEqual(base);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('without headers, never exceeds MAX_RETRY_DELAY_MS and never shrinks with more attempts', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), random, (a, r) => {
        const value = retryDelayMs(a, undefined, r);
        expect(value).toBeLessThanOrEqual(MAX_RETRY_DELAY_MS);
        expect(value).toBeGreaterThanOrEqual(0.75 * INITIAL_RETRY_DELAY_MS);
        expect(retryDelayMs(a + 1, undefined, r)).toBeGreaterThanOrEqual(value);
      }),
    );
  });

  it('a server-requested delay is never negative nor NaN (it may be Infinity for "1e308" seconds)', () => {
    fc.assert(
      fc.property(headers, now, (h, n) => {
        const requested = serverRequestedDelayMs(h, n);
        if (requested !== undefined) {
          expect(Number.isNaN(requested)).toBe(false);
          expect(requested).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
