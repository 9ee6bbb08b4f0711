/** The expiring-value cache behind AWS credentials and Entra ID tokens, on a fake clock. */
import { describe, expect, it, vi } from 'vitest';
import { refreshingValue } from '../../src/endpoints/refreshing-value.js';

describe('refreshingValue', () => {
  it('keeps a value without expiry for good', async () => {
    const fetch = vi.fn(async () => 'forever');
    const get = refreshingValue({ fetch, expiresAt: () => undefined, marginMs: 10, now: () => 1e15 });
    await get();
    await get();
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('fetches again once now reaches expiry minus the margin, saying it is a refresh', async () => {
    let now = 0;
    const fetch = vi.fn(async (_force: boolean) => ({ n: fetch.mock.calls.length, expires: now + 100 }));
    const get = refreshingValue({ fetch, expiresAt: (v) => v.expires, marginMs: 30, now: () => now });
    expect((await get()).n).toBe(1);
    now = 69;
    expect((await get()).n).toBe(1);
    now = 70;
    expect((await get()).n).toBe(2);
    expect(fetch.mock.calls.map((c) => c[0])).toEqual([false, true]);
  });

  it('does not cache a failure', async () => {
    const fetch = vi.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValueOnce('up');
    const get = refreshingValue<string>({ fetch, expiresAt: () => undefined, marginMs: 0 });
    await expect(get()).rejects.toThrow('down');
    await expect(get()).resolves.toBe('up');
  });
});
