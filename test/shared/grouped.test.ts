import { describe, expect, it } from 'vitest';
import { grouped } from '../../src/shared/grouped.js';

describe('grouped', () => {
  it('separates thousands with commas, as en-US does, whatever the locale', () => {
    expect(grouped(0)).toBe('0');
    expect(grouped(999)).toBe('999');
    expect(grouped(1000)).toBe('1,000');
    expect(grouped(128000)).toBe('128,000');
    expect(grouped(1234567890)).toBe('1,234,567,890');
    expect(grouped(-4096)).toBe('-4,096');
  });

  it('rounds to a whole number first (no separators in a fraction)', () => {
    expect(grouped(1234.6)).toBe('1,235');
    expect(grouped(1234.5678)).toBe('1,235');
  });

  it('writes every integer as toLocaleString("en-US") does', () => {
    for (const n of [1, 12, 123, 1234, 12345, 123456, 1234567, 2 ** 31, Number.MAX_SAFE_INTEGER]) expect(grouped(n)).toBe(n.toLocaleString('en-US'));
  });
});
