import { describe, expect, it } from 'vitest';
import { INITIAL_RETRY_DELAY_MS, MAX_RETRY_DELAY_MS, MAX_SERVER_DELAY_MS, delay, retryDelayMs, serverRequestedDelayMs } from '../../src/openai/retry.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');
const h = (values: Record<string, string>) => new Headers(values);

describe('serverRequestedDelayMs', () => {
  it('reads retry-after-ms first', () => {
    expect(serverRequestedDelayMs(h({ 'retry-after-ms': '250', 'retry-after': '9' }), NOW)).toBe(250);
  });
  it('reads retry-after as seconds (fractions allowed)', () => {
    expect(serverRequestedDelayMs(h({ 'retry-after': '3' }), NOW)).toBe(3000);
    expect(serverRequestedDelayMs(h({ 'retry-after': '0.5' }), NOW)).toBe(500);
  });
  it('reads retry-after as an HTTP date relative to now', () => {
    const date = new Date(NOW + 7000).toUTCString();
    expect(serverRequestedDelayMs(h({ 'retry-after': date }), NOW)).toBe(7000);
    const past = new Date(NOW - 7000).toUTCString();
    expect(serverRequestedDelayMs(h({ 'retry-after': past }), NOW)).toBe(0);
  });
  it('falls back to retry-after when retry-after-ms is garbage', () => {
    expect(serverRequestedDelayMs(h({ 'retry-after-ms': 'soon', 'retry-after': '2' }), NOW)).toBe(2000);
  });
  it('is undefined without headers or with garbage', () => {
    expect(serverRequestedDelayMs(undefined, NOW)).toBeUndefined();
    expect(serverRequestedDelayMs(h({}), NOW)).toBeUndefined();
    expect(serverRequestedDelayMs(h({ 'retry-after': 'later please' }), NOW)).toBeUndefined();
    expect(serverRequestedDelayMs(h({ 'retry-after-ms': '  ' }), NOW)).toBeUndefined();
  });
  it('clamps negative values to 0', () => {
    expect(serverRequestedDelayMs(h({ 'retry-after-ms': '-5' }), NOW)).toBe(0);
  });
});

describe('retryDelayMs', () => {
  it('honours the server-requested delay', () => {
    expect(retryDelayMs(0, h({ 'retry-after-ms': '123' }), 0.5, NOW)).toBe(123);
    expect(retryDelayMs(3, h({ 'retry-after': '20' }), 0.5, NOW)).toBe(20_000);
    expect(retryDelayMs(0, h({ 'retry-after': new Date(NOW + 4000).toUTCString() }), 0.5, NOW)).toBe(4000);
    expect(retryDelayMs(0, h({ 'retry-after': String(MAX_SERVER_DELAY_MS / 1000) }), 0.5, NOW)).toBe(MAX_SERVER_DELAY_MS);
  });

  it('ignores a server delay that is too large and uses backoff', () => {
    expect(retryDelayMs(0, h({ 'retry-after': '3600' }), 0, NOW)).toBe(INITIAL_RETRY_DELAY_MS);
    expect(retryDelayMs(1, h({ 'retry-after-ms': String(MAX_SERVER_DELAY_MS + 1) }), 0, NOW)).toBe(2 * INITIAL_RETRY_DELAY_MS);
    expect(retryDelayMs(0, h({ 'retry-after': '1e308' }), 0, NOW)).toBe(INITIAL_RETRY_DELAY_MS);
    expect(retryDelayMs(0, h({ 'retry-after': new Date(NOW + 3_600_000).toUTCString() }), 0, NOW)).toBe(INITIAL_RETRY_DELAY_MS);
  });

  it('doubles per attempt and caps at MAX_RETRY_DELAY_MS', () => {
    const delays = [0, 1, 2, 3, 4, 5, 10, 100, 2000].map((attempt) => retryDelayMs(attempt, undefined, 0, NOW));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000, 8000, 8000]);
    expect(MAX_RETRY_DELAY_MS).toBe(8000);
  });

  it('jitter takes off at most 25 %', () => {
    expect(retryDelayMs(0, undefined, 0, NOW)).toBe(500);
    expect(retryDelayMs(0, undefined, 0.5, NOW)).toBe(437.5);
    const nearlyOne = retryDelayMs(0, undefined, 0.999999, NOW);
    expect(nearlyOne).toBeGreaterThanOrEqual(375);
    expect(nearlyOne).toBeLessThan(376);
    for (let i = 0; i < 200; i++) {
      const value = retryDelayMs(2, undefined, Math.random(), NOW);
      expect(value).toBeGreaterThanOrEqual(0.75 * 2000);
      expect(value).toBeLessThanOrEqual(2000);
    }
  });

  it('clamps out-of-range random and negative attempts', () => {
    expect(retryDelayMs(0, undefined, -3, NOW)).toBe(500);
    expect(retryDelayMs(0, undefined, 7, NOW)).toBe(375);
    expect(retryDelayMs(-2, undefined, 0, NOW)).toBe(500);
  });
});

describe('delay', () => {
  it('resolves after about the given time', async () => {
    const started = performance.now();
    await expect(delay(30)).resolves.toBeUndefined();
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('resolves with a signal that never aborts', async () => {
    await expect(delay(5, new AbortController().signal)).resolves.toBeUndefined();
  });

  // A 60 s delay that only the abort can end within the test's time.
  it('rejects with the reason when the signal aborts', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const waiting = delay(60_000, controller.signal);
    setTimeout(() => controller.abort(reason), 10);
    await expect(waiting).rejects.toBe(reason);
  });

  it('rejects with an AbortError by default', async () => {
    const controller = new AbortController();
    const waiting = delay(60_000, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects at once for an already-aborted signal', async () => {
    const reason = new Error('already');
    await expect(delay(60_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});
