import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchLine } from '../../src/commands/doctor-search.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'oa-doctor-search-'));
  await writeFile(path.join(dir, 'rg'), '#!/bin/sh\necho "ripgrep 99.1.0"\necho "-SIMD -AVX"\n');
  await chmod(path.join(dir, 'rg'), 0o755);
  await writeFile(path.join(dir, 'not-rg'), '#!/bin/sh\nexit 3\n');
  await chmod(path.join(dir, 'not-rg'), 0o755);
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('doctor search line', () => {
  it('names ripgrep with its version and path when found on the PATH or configured', async () => {
    expect(await searchLine(undefined, dir)).toBe(`  search            ripgrep 99.1.0 (${path.join(dir, 'rg')})`);
    expect(await searchLine(path.join(dir, 'rg'), '/nonexistent')).toBe(`  search            ripgrep 99.1.0 (${path.join(dir, 'rg')})`);
  });

  it('names the built-in search and why, with the fix when rg is missing', async () => {
    expect(await searchLine(undefined, '/nonexistent')).toBe(
      '  search            built-in JavaScript search (rg is not on the PATH; install ripgrep (apt-get install ' +
        'ripgrep, brew install ripgrep) for faster search on big trees)',
    );
    expect(await searchLine('off', dir)).toBe('  search            built-in JavaScript search (OPENAI_ACP_RIPGREP=off)');
    expect(await searchLine(path.join(dir, 'not-rg'), dir)).toBe(
      `  search            built-in JavaScript search (${path.join(dir, 'not-rg')} did not answer --version as ` +
        'ripgrep does; install ripgrep (apt-get install ripgrep, brew install ripgrep) for faster search on big trees)',
    );
  });
});
