import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findRipgrep, parseRgJsonLine, rgArguments, runRipgrep } from '../../../src/tools/search/search-rg.js';

/** Real `rg --json` output (its provenance is the fixture's first line). */
const recorded = readFileSync(new URL('../../fixtures/ripgrep/json-output.ndjson', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1);

describe('parseRgJsonLine', () => {
  it('reads matches (text and base64 bytes) and the summary; skips begin and end', () => {
    expect(recorded.map(parseRgJsonLine)).toEqual([
      undefined,
      { kind: 'match', file: 'k.txt', line: 1, text: 'x\uFFFD\uFFFDy foo\n' },
      undefined,
      undefined,
      { kind: 'match', file: 'j.txt', line: 1, text: 'foo bar\n' },
      undefined,
      { kind: 'summary', filesSearched: 2 },
    ]);
  });

  it('takes a path given as bytes, and never throws on what it cannot read', () => {
    const bytes = Buffer.from('dir/é.txt').toString('base64');
    expect(parseRgJsonLine(JSON.stringify({ type: 'match', data: { path: { bytes }, lines: { text: 'a\n' }, line_number: 7 } }))).toEqual({
      kind: 'match',
      file: 'dir/é.txt',
      line: 7,
      text: 'a\n',
    });
    for (const line of [
      '',
      'not json',
      '{"type":"match"}',
      '{"type":"match","data":{"path":{},"lines":{"text":"x"},"line_number":1}}',
      '{"type":"match","data":{"path":{"text":"a"},"lines":{"text":"x"}}}',
      'null',
      '[1]',
      '{"type":"summary","data":{"stats":{}}}',
    ]) {
      expect(parseRgJsonLine(line)).toBeUndefined();
    }
  });
});

describe('rgArguments', () => {
  it('searches with --json, CRLF-aware, no user config, the size limit, the glob and the pattern as their own arguments', () => {
    expect(rgArguments({ pattern: '-e', path: '.', glob: ' *.ts ', maxFileBytes: 1024 })).toEqual([
      '--json',
      '--crlf',
      '--no-config',
      '--no-require-git',
      '--no-messages',
      '--max-filesize',
      '1024',
      '--glob',
      '*.ts',
      '--regexp',
      '-e',
      '--',
      '.',
    ]);
  });

  it('lists files with --files when there is no pattern', () => {
    expect(rgArguments({ pattern: undefined, path: 'a.txt', glob: '*.md', maxFileBytes: 1 })).toEqual([
      '--files',
      '--no-config',
      '--no-require-git',
      '--no-messages',
      '--glob',
      '*.md',
      '--',
      'a.txt',
    ]);
  });
});

describe('findRipgrep', () => {
  let dir: string | undefined;
  afterAll(async () => dir && rm(dir, { recursive: true, force: true }));

  it('looks rg up on the PATH, takes a configured path, and is off when told', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'oa-rg-'));
    const fake = path.join(dir, 'rg');
    await writeFile(fake, '#!/bin/sh\necho "ripgrep 99.0.0"\n');
    await chmod(fake, 0o755);
    await writeFile(path.join(dir, 'plain'), '');
    expect(await findRipgrep(undefined, `/nonexistent${path.delimiter}${dir}`)).toEqual({ path: fake, version: 'ripgrep 99.0.0' });
    expect(await findRipgrep('auto', dir)).toEqual({ path: fake, version: 'ripgrep 99.0.0' });
    expect(await findRipgrep(fake, '')).toEqual({ path: fake, version: 'ripgrep 99.0.0' });
    expect(await findRipgrep('off', dir)).toEqual({ path: undefined, why: 'OPENAI_ACP_RIPGREP=off' });
    expect(await findRipgrep(undefined, '/nonexistent')).toEqual({ path: undefined, why: 'rg is not on the PATH' });
    expect(await findRipgrep(path.join(dir, 'plain'), dir)).toEqual({
      path: undefined,
      why: `OPENAI_ACP_RIPGREP names ${path.join(dir, 'plain')}, which is not an executable file`,
    });
  });
});

describe.skipIf(process.platform === 'win32')('runRipgrep with a stand-in rg', () => {
  let dir: string;
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  const script = async (name: string, body: string) => {
    dir ??= await mkdtemp(path.join(os.tmpdir(), 'oa-rg-run-'));
    const file = path.join(dir, name);
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    await chmod(file, 0o755);
    return file;
  };
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return existsSync(`/proc/${pid}`) ? !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8')) : true;
    } catch {
      return false;
    }
  };
  /** The pid the stand-in wrote, once written (the file exists before `echo` has filled it: 0 would name our own group). */
  const pidOf = async (file: string) => {
    const written = () => (existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : 0);
    for (let i = 0; i < 300 && written() <= 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const pid = written();
    expect(pid).toBeGreaterThan(0);
    return pid;
  };
  const run = { pattern: 'x', maxFileBytes: 1024, maxMatches: 3, budgetMs: 60_000 };

  it('kills rg on cancel and rejects with the reason', async () => {
    const rg = await script('slow-rg', `echo $$ > "${'$'}{0}.pid"; exec sleep 30`);
    const controller = new AbortController();
    const pending = runRipgrep({ ...run, rg, path: dir }, controller.signal);
    const pid = await pidOf(`${rg}.pid`);
    expect(alive(pid)).toBe(true);
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
    for (let i = 0; i < 300 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(alive(pid)).toBe(false);
  });

  it('kills rg at the time budget, keeping what it found', async () => {
    const match = JSON.stringify({ type: 'match', data: { path: { text: 'a.txt' }, lines: { text: 'x\n' }, line_number: 1 } });
    const rg = await script('stuck-rg', `printf '%s\\n' '${match}'; exec sleep 30`);
    const outcome = await runRipgrep({ ...run, rg, path: dir, budgetMs: 1000 }, new AbortController().signal);
    expect(outcome).toEqual({ matches: [['a.txt', 1, 'x\n']], filesSearched: undefined, moreMatches: false, timedOut: true });
  });

  it('stops reading (and kills rg) one match past the cap: endless output stays bounded', async () => {
    const match = JSON.stringify({ type: 'match', data: { path: { text: 'a.txt' }, lines: { text: 'x\n' }, line_number: 1 } });
    const rg = await script('endless-rg', `exec yes '${match}'`);
    const outcome = await runRipgrep({ ...run, rg, path: dir }, new AbortController().signal);
    expect(outcome.matches).toHaveLength(3);
    expect(outcome.moreMatches).toBe(true);
    expect(outcome.timedOut).toBe(false);
  });

  it("answers rg's refusal with its words", async () => {
    const rg = await script('refusing-rg', `echo 'regex parse error:\n    x(\n     ^\nerror: unclosed group' >&2; exit 2`);
    await expect(runRipgrep({ ...run, rg, path: dir }, new AbortController().signal)).rejects.toThrow(
      'ripgrep refused the search: regex parse error: x( ^ error: unclosed group',
    );
  });
});
