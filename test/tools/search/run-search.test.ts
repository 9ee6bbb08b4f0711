/**
 * search_files on a real tree, run by each engine: the JavaScript search in its worker thread
 * (`OPENAI_ACP_RIPGREP=off`) and ripgrep where `rg` is installed (skipped, named as such, where it
 * is not). Both must give the same answers: same matches, same skips, same refusals.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutLine, formatSearch, searchFiles, type SearchLimits, type SearchRequest } from '../../../src/tools/search/run-search.js';
import { findRipgrep } from '../../../src/tools/search/search-rg.js';
import { liveSearchWorkers } from '../../../src/tools/search/search-worker.js';

let base: string;
let ws: string;
const signal = new AbortController().signal;
const roots = () => ({ cwd: ws, extra: [] });
const rg = (await findRipgrep(undefined)).path;

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
  await put('.ignore', '*.skip\n');
  await put('.git/config', 'needle in git\n');
  await put('.git/info/exclude', 'excluded.txt\n');
  await put('excluded.txt', 'needle excluded\n');
  await put('x.skip', 'needle skipped by .ignore\n');
  await put('.hidden/h.txt', 'needle hidden\n');
  await put('.env', 'needle=hidden file\n');
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
  await put(
    'dialect/d.txt',
    ['fn main() {', 'digits 42 and ٣', 'café au lait', 'cafe x', 'line end\r', 'key: value', 'a_b c-d', 'Foo bar', 'tab\there', 'path/to/x'].join('\n') + '\n',
  );
  await symlink(path.join(base, 'outside'), path.join(ws, 'link-out'));
  await symlink(path.join(ws, 'src'), path.join(ws, 'link-in'));
  execFileSync('mkfifo', [path.join(ws, 'pipe')]);
});
afterAll(async () => rm(base, { recursive: true, force: true }));

const engines: [string, string][] = [['javascript', 'off'], ...(rg ? [['ripgrep', rg] as [string, string]] : [])];
if (!rg) it.skip('ripgrep engine: rg is not on the PATH, so only the JavaScript search is tested here (apt-get install ripgrep)', () => undefined);

describe.each(engines)('searchFiles with the %s engine', (engine, ripgrep) => {
  const run = async (pattern: string | undefined, extra: { path?: string; glob?: string } = {}, limits: Partial<SearchLimits> = {}) => {
    const request: SearchRequest = { pattern, path: extra.path ?? ws, glob: extra.glob };
    const result = await searchFiles(request, roots(), signal, { ripgrep, limits });
    // One file is always searched by the JavaScript search (rg would search a binary file it was named).
    expect(result.engine).toBe(statSync(request.path).isFile() ? 'javascript' : engine);
    return { result, text: formatSearch(result, request, ws) };
  };

  it('finds matches as path:line: text, skipping .git, hidden, ignored (.gitignore, .ignore, .git/info/exclude), binary files, symlinks and FIFOs', async () => {
    const { text } = await run('needle');
    expect(text.split('\n')).toEqual([
      'README.md:1: # needle',
      'keep.log:1: needle kept',
      'src/a.ts:1: const needle = 1;',
      'src/a.ts:3: needle again',
      'src/b.js:1: needle in js',
    ]);
  });

  it('filters by glob (a glob names files the ignore rules skip, as rg -g does), and takes (?i)', async () => {
    expect((await run('needle', { glob: '*.ts' })).text.split('\n')).toEqual(['src/a.ts:1: const needle = 1;', 'src/a.ts:3: needle again']);
    expect((await run('(?i)needle', { glob: 'src/**/*.ts' })).text).toContain('src/deep/c.ts:2: NEEDLE upper');
    expect((await run('needle', { glob: '*.log' })).text.split('\n')).toEqual(['debug.log:1: needle log', 'keep.log:1: needle kept']);
    expect((await run('needle', { glob: '!*.ts' })).text.split('\n')).toEqual(['README.md:1: # needle', 'keep.log:1: needle kept', 'src/b.js:1: needle in js']);
    expect((await run('needle', { glob: '*.py' })).text).toMatch(/^No matches for "needle" in \. \(glob \*\.py\)(; 0 files searched)?\.$/);
  });

  it('lists files by glob when there is no pattern, ignore rules applied, bounded', async () => {
    expect((await run(undefined, { glob: '*.ts' })).text.split('\n')).toEqual(['src/a.ts', 'src/deep/c.ts']);
    // A glob a directory matches overrides the ignore rules for it (src/generated), as rg -g does.
    expect((await run('', { glob: 'src/**' })).text.split('\n')).toEqual(['src/.gitignore', 'src/a.ts', 'src/b.js', 'src/deep/c.ts', 'src/generated/g.ts']);
    expect((await run(undefined, { glob: '!src' })).text.split('\n')).toEqual(['README.md', 'bin.dat', 'dialect/d.txt', 'keep.log']);
    const capped = await run(undefined, { glob: '*' }, { maxMatches: 2 });
    expect(capped.result.matches).toHaveLength(2);
    expect(capped.text).toContain('[more files not shown; narrow the glob or path');
    expect((await run(undefined, { glob: '*.nothing' })).text).toBe('No files in . match the glob "*.nothing".');
    await expect(run(undefined)).rejects.toThrow(/needs a pattern .* or a glob/);
  });

  it('searches one file or a subdirectory; a FIFO given by name is refused, never opened', async () => {
    expect((await run('needle', { path: path.join(ws, 'src', 'b.js') })).text).toBe('src/b.js:1: needle in js');
    expect((await run('needle', { path: path.join(ws, 'bin.dat') })).text).toBe('No matches for "needle" in bin.dat; 1 file searched.');
    expect((await run('needle', { path: path.join(ws, 'src') })).result.matches).toHaveLength(3);
    await expect(run('x', { path: path.join(ws, 'pipe') })).rejects.toThrow(/not a regular file or a directory; not searched/);
  });

  it('caps matches and skips files over the size limit, saying so', async () => {
    const capped = await run('needle', {}, { maxMatches: 2 });
    expect(capped.result.matches).toHaveLength(2);
    expect(capped.result.moreMatches).toBe(true);
    expect(capped.text).toContain('more matches not shown; narrow the pattern or path');
    const small = await run('needle', {}, { maxFileBytes: 12 });
    expect(small.result.matches.map((m) => path.basename(m.file))).toEqual(['README.md', 'keep.log']);
  });

  it('refuses paths outside the workspace, symlinks included, and stops when aborted', async () => {
    await expect(run('x', { path: path.join(base, 'outside') })).rejects.toThrow(/outside the workspace/);
    await expect(run('x', { path: path.join(ws, 'link-out') })).rejects.toThrow(/outside the workspace/);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(searchFiles({ pattern: 'x', path: ws }, roots(), controller.signal, { ripgrep })).rejects.toThrow('stop');
  });

  it('answers an invalid or unsupported pattern the same way, naming the problem', async () => {
    await expect(run('foo(')).rejects.toThrow(/^invalid regular expression "foo\(": Unterminated group\. Escape/);
    await expect(run('(?<=a)b')).rejects.toThrow(/look-around .* is not supported/);
    await expect(run('(\\w)\\1')).rejects.toThrow(/back-references \(\\1\) are not supported/);
  });

  it('gives the same matches for what models write (one dialect)', async () => {
    const dir = path.join(ws, 'dialect');
    const lines = async (pattern: string) => (await run(pattern, { path: dir })).result.matches.map((m) => m.line);
    expect(await lines('fn main() {')).toEqual([]); // () is an empty group in both
    expect(await lines('fn main\\(\\) {')).toEqual([1]);
    expect(await lines('fn main\\(\\) \\{$')).toEqual([1]);
    expect(await lines('\\d{2}')).toEqual([2]);
    expect(await lines('^[[:digit:]]|[[:digit:]]$')).toEqual([]);
    expect(await lines('\\bcaf\\b')).toEqual([3]); // ASCII \b in both: é is no word character
    expect(await lines('caf\\w\\b')).toEqual([4]);
    expect(await lines('end$')).toEqual([5]); // a CRLF line ends before its \r
    expect(await lines('key\\: \\w+')).toEqual([6]);
    expect(await lines('(?i)^foo\\s+BAR$')).toEqual([8]);
    expect(await lines('a_b|c-d')).toEqual([7]);
    expect(await lines('[^\\w\\s]')).toEqual([1, 2, 3, 6, 7, 10]);
    expect(await lines('(?P<word>tab)\\t')).toEqual([9]);
    expect(await lines('path\\/to')).toEqual([10]);
  });

  it('bounds a 10 KB pattern of 2,000 alternatives and a 10 KB glob like any other', async () => {
    const alternatives = Array.from({ length: 2000 }, (_, i) => `word${i}`).join('|');
    expect(alternatives.length).toBeGreaterThan(10_000);
    expect((await run(`${alternatives}|needle kept`)).text).toBe('keep.log:1: needle kept');
    const glob = `{${Array.from({ length: 1500 }, (_, i) => `f${i}.txt`).join(',')},README.md}`;
    expect(glob.length).toBeGreaterThan(10_000);
    expect((await run('needle', { glob })).text).toBe('README.md:1: # needle');
  });
});

describe('the JavaScript engine with a catastrophic pattern or glob', () => {
  const catastrophic = async () => {
    await put('redos/a.txt', `${'a'.repeat(36)}!\n`);
    await put(`redos/${'a'.repeat(200)}`, 'x\n');
  };

  it('stops at the time budget, tells how far it got, and the main thread kept running meanwhile', async () => {
    await catastrophic();
    let ticks = 0;
    const interval = setInterval(() => ticks++, 5);
    try {
      const request = { pattern: '^(a+)+$', path: path.join(ws, 'redos') };
      const result = await searchFiles(request, roots(), signal, { ripgrep: 'off', limits: { timeBudgetMs: 300 } });
      expect(result.timedOut).toBe(true);
      expect(formatSearch(result, request, ws)).toMatch(
        /^No matches for "\^\(a\+\)\+\$" in redos; \d+ files? searched\. \[stopped after 0\.3 s and \d+ files?; narrow the path or glob\]$/,
      );
      const glob = await searchFiles({ path: path.join(ws, 'redos'), glob: `${'*a'.repeat(14)}b` }, roots(), signal, {
        ripgrep: 'off',
        limits: { timeBudgetMs: 300 },
      });
      expect(glob.timedOut).toBe(true);
    } finally {
      clearInterval(interval);
    }
    expect(ticks).toBeGreaterThan(5);
  });

  it('a cancel rejects at once and the worker thread is gone', async () => {
    await catastrophic();
    for (let i = 0; i < 200 && liveSearchWorkers() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const controller = new AbortController();
    const pending = searchFiles({ pattern: '^(a+)+$', path: path.join(ws, 'redos') }, roots(), controller.signal, {
      ripgrep: 'off',
      limits: { timeBudgetMs: 600_000 },
    });
    for (let i = 0; i < 200 && liveSearchWorkers() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(liveSearchWorkers()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort(new Error('cancelled by the test'));
    await expect(pending).rejects.toThrow('cancelled by the test');
    for (let i = 0; i < 200 && liveSearchWorkers() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(liveSearchWorkers()).toBe(0);
  });
});

describe('formatSearch', () => {
  const result = {
    matches: [{ file: '/w/src/a.ts', line: 3, text: 'x' }],
    filesSearched: undefined,
    moreMatches: false,
    timedOut: true,
    engine: 'ripgrep' as const,
    budgetMs: 10_000,
  };
  it('says where the time ran out, with the files searched when known', () => {
    expect(formatSearch(result, { pattern: 'x', path: '/w' }, '/w')).toBe('src/a.ts:3: x\n[stopped after 10 s; narrow the path or glob]');
    expect(formatSearch({ ...result, matches: [], filesSearched: 31_000, engine: 'javascript' }, { pattern: 'x', path: '/w' }, '/w')).toBe(
      'No matches for "x" in .; 31,000 files searched. [stopped after 10 s and 31,000 files; narrow the path or glob]',
    );
  });
  it('lists files one a line when there is no pattern', () => {
    expect(
      formatSearch({ ...result, timedOut: false, moreMatches: true, matches: [{ file: '/w/a.ts', line: 0, text: '' }] }, { glob: '*.ts', path: '/w' }, '/w'),
    ).toBe('a.ts\n[more files not shown; narrow the glob or path (the first 1 are above)]');
  });
});

describe('cutLine', () => {
  it('cuts long lines, never inside a surrogate pair', () => {
    expect(cutLine(`  ${'x'.repeat(400)}  `, 300)).toBe(`${'x'.repeat(300)}…`);
    expect(cutLine(`${'x'.repeat(299)}😀😀`, 300)).toBe(`${'x'.repeat(299)}…`);
  });
});
