import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync, linkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openInside, OutsideError, readFileInside } from '../../src/shared/open-inside.js';
import { isWithin as isInsideDir } from '../../src/shared/path-within.js';

let top: string;
beforeEach(() => {
  top = realpathSync(mkdtempSync(join(tmpdir(), 'open-inside-')));
  mkdirSync(join(top, 'in'));
  mkdirSync(join(top, 'out'));
  writeFileSync(join(top, 'in/a.txt'), 'inside');
  writeFileSync(join(top, 'out/secret.txt'), 'outside');
});
afterEach(() => rmSync(top, { recursive: true, force: true }));

describe('openInside', () => {
  it('opens a file inside and tells where it really is', async () => {
    const { handle, real } = await openInside(join(top, 'in/a.txt'), [join(top, 'in')]);
    expect(real).toBe(join(top, 'in/a.txt'));
    expect((await handle.readFile()).toString()).toBe('inside');
    await handle.close();
  });

  it('refuses a symlink leading out, and a folder swapped for one, naming where the opened file is', async () => {
    symlinkSync(join(top, 'out/secret.txt'), join(top, 'in/link.txt'));
    symlinkSync(join(top, 'out'), join(top, 'in/dir'));
    await expect(openInside(join(top, 'in/link.txt'), [join(top, 'in')])).rejects.toThrow(OutsideError);
    const error = await openInside(join(top, 'in/dir/secret.txt'), [join(top, 'in')]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EOUTSIDE', real: join(top, 'out/secret.txt') });
  });

  it('passes a hard link to an outside file placed inside (the known limit: it is the same file under an inside name)', async () => {
    linkSync(join(top, 'out/secret.txt'), join(top, 'in/hard.txt'));
    expect((await readFileInside(join(top, 'in/hard.txt'), [join(top, 'in')])).toString()).toBe('outside');
  });

  it('readFileInside resolves the allowed folders itself and refuses what is not a regular file', async () => {
    symlinkSync(join(top, 'in'), join(top, 'in-link'));
    expect((await readFileInside(join(top, 'in-link/a.txt'), [join(top, 'in-link')])).toString()).toBe('inside');
    await expect(readFileInside(join(top, 'in'), [top])).rejects.toThrow(/not a regular file/);
  });

  it('isInsideDir compares whole path segments', () => {
    expect(isInsideDir('/a/b', '/a')).toBe(true);
    expect(isInsideDir('/ab', '/a')).toBe(false);
    expect(isInsideDir('/a', '/a')).toBe(true);
    expect(isInsideDir('/x', '/')).toBe(true);
  });
});
