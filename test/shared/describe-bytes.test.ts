import { describe, expect, it } from 'vitest';
import { describeBytes } from '../../src/shared/describe-bytes.js';

describe('describeBytes', () => {
  it('says a whole number of MiB in MiB', () => {
    expect(describeBytes(64 * 1024 * 1024)).toBe('64 MiB');
    expect(describeBytes(1024 * 1024)).toBe('1 MiB');
  });

  it('says any other size in bytes', () => {
    expect(describeBytes(1024 * 1024 + 1)).toBe('1048577 bytes');
    expect(describeBytes(4096)).toBe('4096 bytes');
  });
});
