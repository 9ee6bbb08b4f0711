import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatListing, listDirectory } from '../../../src/tools/search/list-entries.js';
import { ToolError } from '../../../src/tools/tool.js';

let base: string;
let ws: string;
const signal = new AbortController().signal;
const roots = () => ({ cwd: ws, extra: [] });

async function put(rel: string, text: string | Buffer): Promise<void> {
  await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
  await writeFile(path.join(ws, rel), text);
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'oa-search-')));
  ws = path.join(base, 'ws');
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(base, 'outside', 'o.txt'), 'needle outside\n');
  await put('.gitignore', 'dist/\n*.log\n!keep.log\n');
  await put('.git/config', 'needle in git\n');
  await put('src/a.ts', 'const needle = 1;\nother\n  needle again  \n');
  await put('src/b.js', 'needle in js\n');
  await put('src/deep/c.ts', 'no match\nNEEDLE upper\n');
  await put('src/.gitignore', 'generated/\n');
  await put('src/generated/g.ts', 'needle generated\n');
  await put('dist/out.js', 'needle built\n');
  await put('debug.log', 'needle log\n');
  await put('keep.log', 'needle kept\n');
  await put('bin.dat', Buffer.from('needle\0binary'));
  await put('README.md', '# needle\n');
  await symlink(path.join(base, 'outside'), path.join(ws, 'link-out'));
});
afterAll(async () => rm(base, { recursive: true, force: true }));

describe('listDirectory', () => {
  it('lists sorted entries, directories marked, .git and ignored ones left out', async () => {
    const listing = await listDirectory(ws, roots(), signal);
    expect(listing.entries.map((e) => e.name + (e.directory ? '/' : ''))).toEqual(['.gitignore', 'README.md', 'bin.dat', 'keep.log', 'link-out/', 'src/']);
    expect(listing.ignored).toBe(2);
    expect(formatListing(listing, ws)).toBe('./\n.gitignore\nREADME.md\nbin.dat\nkeep.log\nlink-out/\nsrc/\n(2 entries ignored by .gitignore not shown)');
  });

  it('honours nested .gitignore files and the ones above the listed directory', async () => {
    const listing = await listDirectory(path.join(ws, 'src'), roots(), signal);
    expect(listing.entries.map((e) => e.name)).toEqual(['.gitignore', 'a.ts', 'b.js', 'deep']);
    expect(formatListing(listing, ws).split('\n')[0]).toBe('src/');
  });

  it('applies the root rules deep down, and lets a deeper !rule re-include', async () => {
    await put('src/deep/dist/x.js', 'x');
    await put('src/deep/trace.log', 'x');
    await put('src/deep/z.keep', 'x');
    await put('src/deep/y.keep', 'x');
    await put('src/deep/.gitignore', '*.keep\n!z.keep\n');
    const listing = await listDirectory(path.join(ws, 'src', 'deep'), roots(), signal);
    expect(listing.entries.map((e) => e.name)).toEqual(['.gitignore', 'c.ts', 'z.keep']);
    expect(listing.ignored).toBe(3);
    await rm(path.join(ws, 'src', 'deep', 'dist'), { recursive: true });
    for (const f of ['trace.log', 'z.keep', 'y.keep', '.gitignore']) await rm(path.join(ws, 'src', 'deep', f));
  });

  it('reads .ignore and .git/info/exclude too, and never waits on a FIFO by such a name', async () => {
    await put('rules/.git/info/exclude', 'excluded.txt\n');
    await put('rules/.ignore', '*.skip\n');
    for (const name of ['excluded.txt', 'x.skip', 'kept.txt']) await put(`rules/${name}`, 'x');
    await mkdir(path.join(ws, 'rules', 'fifo'));
    execFileSync('mkfifo', [path.join(ws, 'rules', 'fifo', '.gitignore')]);
    await put('rules/fifo/a.txt', 'x');
    const listing = await listDirectory(path.join(ws, 'rules'), roots(), signal);
    expect(listing.entries.map((e) => e.name)).toEqual(['.ignore', 'fifo', 'kept.txt']);
    expect((await listDirectory(path.join(ws, 'rules', 'fifo'), roots(), signal)).entries.map((e) => e.name)).toEqual(['.gitignore', 'a.txt']);
    await rm(path.join(ws, 'rules'), { recursive: true });
  });

  it('caps the entries', async () => {
    const listing = await listDirectory(ws, roots(), signal, 2);
    expect(listing.entries).toHaveLength(2);
    expect(listing.more).toBe(4);
    expect(formatListing(listing, ws)).toContain('[... 4 more entries not shown]');
  });

  it('refuses files, missing directories and paths outside', async () => {
    await expect(listDirectory(path.join(ws, 'README.md'), roots(), signal)).rejects.toThrow(/is a file, not a directory; use read_file/);
    await expect(listDirectory(path.join(ws, 'nope'), roots(), signal)).rejects.toThrow(/no such directory/);
    await expect(listDirectory(path.join(ws, '..'), roots(), signal)).rejects.toThrow(ToolError);
    await expect(listDirectory(path.join(ws, 'link-out'), roots(), signal)).rejects.toThrow(/outside the workspace/);
  });
});
