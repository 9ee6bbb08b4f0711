import { describe, expect, it } from 'vitest';
import { loadOnce } from '../../src/shared/load-once.js';

describe('loadOnce', () => {
  it('loads once for any number of callers, waiting at once or later', async () => {
    let loads = 0;
    const load = loadOnce(async () => ({ n: ++loads }));
    const [a, b] = await Promise.all([load(), load()]);
    expect(a).toBe(b);
    expect(await load()).toBe(a);
    expect(loads).toBe(1);
  });

  it('forgets a failed load, so the next call tries again', async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      loads += 1;
      if (loads === 1) throw new Error('chunk missing');
      return 'module';
    });
    await expect(load()).rejects.toThrow('chunk missing');
    expect(await load()).toBe('module');
    expect(loads).toBe(2);
  });
});
