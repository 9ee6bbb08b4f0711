import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findRipgrep, parseRgJsonLine, rgArguments } from '../../../src/tools/local/search-rg.js';

/** Real `rg --json` output (its provenance is the fixture's first line). */
const recorded = readFileSync(new URL('../../fixtures/ripgrep/json-output.ndjson', import.meta.url), 'utf8').trim().split('\n').slice(1);

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
    expect(parseRgJsonLine(JSON.stringify({ type: 'match', data: { path: { bytes }, lines: { text: 'a\n' }, line_number: 7 } }))).toEqual({ kind: 'match', file: 'dir/é.txt', line: 7, text: 'a\n' });
    for (const line of ['', 'not json', '{"type":"match"}', '{"type":"match","data":{"path":{},"lines":{"text":"x"},"line_number":1}}', '{"type":"match","data":{"path":{"text":"a"},"lines":{"text":"x"}}}', 'null', '[1]', '{"type":"summary","data":{"stats":{}}}']) {
      expect(parseRgJsonLine(line)).toBeUndefined();
    }
  });
});

describe('rgArguments', () => {
  it('searches with --json, CRLF-aware, no user config, the size limit, the glob and the pattern as their own arguments', () => {
    expect(rgArguments({ pattern: '-e', path: '.', glob: ' *.ts ', maxFileBytes: 1024 })).toEqual([
      '--json', '--crlf', '--no-config', '--no-require-git', '--no-messages', '--max-filesize', '1024', '--glob', '*.ts', '--regexp', '-e', '--', '.',
    ]);
  });

  it('lists files with --files when there is no pattern', () => {
    expect(rgArguments({ pattern: undefined, path: 'a.txt', glob: '*.md', maxFileBytes: 1 })).toEqual(['--files', '--no-config', '--no-require-git', '--no-messages', '--glob', '*.md', '--', 'a.txt']);
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
    expect(await findRipgrep(path.join(dir, 'plain'), dir)).toEqual({ path: undefined, why: `OPENAI_ACP_RIPGREP names ${path.join(dir, 'plain')}, which is not an executable file` });
  });
});
