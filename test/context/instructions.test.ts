import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  instructionBudgetBytes,
  INSTRUCTIONS_MAX_BYTES,
  loadInstructions,
  renderInstructions,
  repositoryRoot,
  unreadable,
} from '../../src/context/instructions.js';

let top: string;
beforeEach(() => {
  top = realpathSync(mkdtempSync(join(tmpdir(), 'instructions-')));
});
afterEach(() => rmSync(top, { recursive: true, force: true }));

/** Writes files (creating folders) under `top`. */
function files(tree: Record<string, string>): void {
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(join(top, path, '..'), { recursive: true });
    writeFileSync(join(top, path), text);
  }
}

describe('loadInstructions', () => {
  it('reads AGENTS.md from the repository root down to the cwd, CLAUDE.md where a folder has no AGENTS.md, the user file first', async () => {
    files({
      'AGENTS.md': 'above the repository: never read',
      'repo/.git/HEAD': 'ref: refs/heads/main',
      'repo/AGENTS.md': 'root rules',
      'repo/CLAUDE.md': 'not read: AGENTS.md is there',
      'repo/packages/CLAUDE.md': 'packages rules',
      'repo/packages/app/AGENTS.md': 'app rules',
      'config/AGENTS.md': 'my own rules',
    });
    const loaded = await loadInstructions({ cwd: join(top, 'repo/packages/app'), configDir: join(top, 'config') });
    expect(loaded.map((file) => [file.label, file.text])).toEqual([
      [join(top, 'config/AGENTS.md'), 'my own rules'],
      ['../../AGENTS.md', 'root rules'],
      ['../CLAUDE.md', 'packages rules'],
      ['AGENTS.md', 'app rules'],
    ]);
    const text = renderInstructions(loaded);
    expect(text.startsWith(`Instructions from ${join(top, 'config/AGENTS.md')}, ../../AGENTS.md, ../CLAUDE.md, AGENTS.md (most general first`)).toBe(true);
    expect(text.indexOf('root rules')).toBeLessThan(text.indexOf('packages rules'));
    expect(text.indexOf('packages rules')).toBeLessThan(text.indexOf('app rules'));
  });

  it('without a repository reads only the cwd; a .git file (worktree) marks a root too', async () => {
    files({ 'AGENTS.md': 'parent', 'dir/AGENTS.md': 'here', 'wt/.git': 'gitdir: /elsewhere', 'wt/AGENTS.md': 'worktree root', 'wt/sub/x': '' });
    if (await repositoryRoot(top)) return; // the temp dir sits in a repository: nothing to show
    expect((await loadInstructions({ cwd: join(top, 'dir') })).map((file) => file.text)).toEqual(['here']);
    expect(await repositoryRoot(join(top, 'wt/sub'))).toBe(join(top, 'wt'));
    expect((await loadInstructions({ cwd: join(top, 'wt/sub') })).map((file) => file.text)).toEqual(['worktree root']);
  });

  it('searches additionalDirectories only inside the same repository', async () => {
    files({ 'repo/.git/HEAD': '', 'repo/a/AGENTS.md': 'a rules', 'repo/b/AGENTS.md': 'b rules', 'other/AGENTS.md': 'other rules' });
    const loaded = await loadInstructions({ cwd: join(top, 'repo/a'), extra: [join(top, 'repo/b'), join(top, 'other')] });
    expect(loaded.map((file) => file.label)).toEqual(['../b/AGENTS.md', 'AGENTS.md']);
  });

  it('shares the byte budget nearest first: a parent is cut, then left out, each with a note', async () => {
    files({ 'repo/.git/HEAD': '', 'repo/AGENTS.md': 'r'.repeat(3000), 'repo/x/AGENTS.md': 'x'.repeat(1000), 'repo/x/y/AGENTS.md': 'y'.repeat(500) });
    const loaded = await loadInstructions({ cwd: join(top, 'repo/x/y'), maxBytes: 1200 });
    expect(loaded.map((file) => [file.label, file.text.length, file.notes])).toEqual([
      ['../../AGENTS.md', 0, ['left out: the instruction files already take their share of the context (3 KiB)']],
      ['../AGENTS.md', 700, ['cut to its first 700 bytes of 1000 bytes to fit the context']],
      ['AGENTS.md', 500, []],
    ]);
    expect(renderInstructions(loaded)).toContain('[../../AGENTS.md: left out: the instruction files already take their share');
  });

  it('reads a symlink out of the repository within the limits and says so; never splits a character', async () => {
    files({ 'repo/.git/HEAD': '', 'outside/rules.md': `x${'é'.repeat(100)}` });
    symlinkSync(join(top, 'outside/rules.md'), join(top, 'repo/AGENTS.md'));
    const [file] = await loadInstructions({ cwd: join(top, 'repo'), maxBytes: 50 });
    expect(file!.text).toBe(`x${'é'.repeat(24)}`);
    expect(file!.notes).toEqual([
      'cut to its first 49 bytes of 201 bytes to fit the context',
      `a symlink to ${join(top, 'outside/rules.md')}, outside the repository`,
    ]);
  });

  it('says nothing of a symlink when the cwd is reached through a symlinked folder (macOS /tmp, ~/code links)', async () => {
    files({ 'real/repo/.git/HEAD': '', 'real/repo/AGENTS.md': 'rules' });
    symlinkSync(join(top, 'real'), join(top, 'link'));
    const [file] = await loadInstructions({ cwd: join(top, 'link/repo') });
    expect(file!.text).toBe('rules');
    expect(file!.notes).toEqual([]);
  });

  it('names a file that is not text with a one-line note instead of its text', async () => {
    files({ 'repo/.git/HEAD': '', 'repo/AGENTS.md': 'rules', 'repo/a/AGENTS.md': '' });
    writeFileSync(join(top, 'repo/a/AGENTS.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    mkdirSync(join(top, 'repo/a/b'));
    writeFileSync(join(top, 'repo/a/b/AGENTS.md'), Buffer.from([0x61, 0xff, 0xfe, 0x62]));
    const loaded = await loadInstructions({ cwd: join(top, 'repo/a/b') });
    expect(loaded.map((file) => [file.label, file.text, file.notes])).toEqual([
      ['../../AGENTS.md', 'rules', []],
      ['../AGENTS.md', '', ['left out: it is not text (6 bytes of binary data)']],
      ['AGENTS.md', '', ['left out: it is not UTF-8 text']],
    ]);
    expect(renderInstructions(loaded)).toContain('[../AGENTS.md: left out: it is not text (6 bytes of binary data)]');
  });

  // Root reads a file whatever its mode: there the failure is checked through `unreadable` alone.
  it.skipIf(process.getuid?.() === 0)('names a file it cannot read with why, and reads the others', async () => {
    files({ 'repo/.git/HEAD': '', 'repo/AGENTS.md': 'root rules', 'repo/sub/AGENTS.md': 'secret' });
    chmodSync(join(top, 'repo/sub/AGENTS.md'), 0o000);
    const loaded = await loadInstructions({ cwd: join(top, 'repo/sub') });
    expect(loaded.map((file) => [file.label, file.text, file.notes])).toEqual([
      ['../AGENTS.md', 'root rules', []],
      ['AGENTS.md', '', ['left out: it cannot be read (EACCES)']],
    ]);
  });

  it('reads a failure to read as a note, and a file gone as no file', () => {
    expect(unreadable(Object.assign(new Error('denied'), { code: 'EACCES' }))).toEqual({ text: '', bytes: 0, notes: ['left out: it cannot be read (EACCES)'] });
    expect(unreadable(new Error('odd'))).toEqual({ text: '', bytes: 0, notes: ['left out: it cannot be read (odd)'] });
    for (const code of ['ENOENT', 'ENOTDIR', 'ELOOP']) expect(unreadable(Object.assign(new Error(code), { code }))).toBeUndefined();
  });

  it('skips folders named AGENTS.md and blank files', async () => {
    files({ 'repo/.git/HEAD': '', 'repo/AGENTS.md/x': '', 'repo/CLAUDE.md': 'claude', 'repo/sub/AGENTS.md': '  \n' });
    const loaded = await loadInstructions({ cwd: join(top, 'repo/sub') });
    expect(renderInstructions(loaded)).toBe('');
  });
});

describe('loadInstructions under a server root (serve --root)', () => {
  it('reads nothing above the root, even in the same repository', async () => {
    files({
      'repo/.git/HEAD': 'ref: refs/heads/main',
      'repo/AGENTS.md': 'above the server root',
      'repo/served/AGENTS.md': 'served rules',
      'repo/served/app/AGENTS.md': 'app rules',
    });
    const loaded = await loadInstructions({ cwd: join(top, 'repo/served/app'), root: join(top, 'repo/served') });
    expect(loaded.map((file) => file.text)).toEqual(['served rules', 'app rules']);
    // Without a root the repository's top file is read, as an editor on this machine expects.
    expect((await loadInstructions({ cwd: join(top, 'repo/served/app') })).map((file) => file.text)).toEqual([
      'above the server root',
      'served rules',
      'app rules',
    ]);
  });

  it('leaves out, unread, an AGENTS.md that leads outside the root; the user file must lie in the config directory', async () => {
    files({ 'outside/secret.md': 'outside secret', 'served/app/.keep': '', 'config/real.md': 'mine' });
    symlinkSync(join(top, 'outside/secret.md'), join(top, 'served/app/AGENTS.md'));
    symlinkSync(join(top, 'outside/secret.md'), join(top, 'config/AGENTS.md'));
    const loaded = await loadInstructions({ cwd: join(top, 'served/app'), root: join(top, 'served'), configDir: join(top, 'config') });
    expect(JSON.stringify(loaded)).not.toContain('outside secret');
    expect(loaded).toEqual([]);
  });
});

describe('instructionBudgetBytes', () => {
  it('is a quarter of a known window at 4 bytes a token, at most 64 KiB; 32 KiB when unknown', () => {
    expect([undefined, 0, 4096, 32_768, 1_000_000].map(instructionBudgetBytes)).toEqual([INSTRUCTIONS_MAX_BYTES, INSTRUCTIONS_MAX_BYTES, 4096, 32_768, 65_536]);
  });
});
