import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/tools/tool.js';
import { confine, isInside, realTarget, relativeForTitle, resolveToolPath } from '../../../src/tools/backends/workspace.js';

describe('lexical paths', () => {
  const roots = { cwd: '/work/proj', extra: ['/data/shared'] };
  it('resolves relative paths against the cwd and leaves ~ alone', () => {
    expect(resolveToolPath('src/a.ts', roots)).toBe('/work/proj/src/a.ts');
    expect(resolveToolPath('./b.ts', roots)).toBe('/work/proj/b.ts');
    expect(resolveToolPath('/etc/passwd', roots)).toBe('/etc/passwd');
    expect(resolveToolPath('~/x', roots)).toBe('/work/proj/~/x');
  });
  it('accepts the roots and what is below them, nothing else', () => {
    expect(isInside('/work/proj', roots)).toBe(true);
    expect(isInside('/work/proj/a/b', roots)).toBe(true);
    expect(isInside('/data/shared/x', roots)).toBe(true);
    expect(isInside('/work/proj2', roots)).toBe(false);
    expect(isInside('/work', roots)).toBe(false);
    expect(isInside('/work/proj/../other', roots)).toBe(false);
    expect(isInside('/work/proj/..foo', roots)).toBe(true);
  });
  it('titles paths relative to the cwd when inside it', () => {
    expect(relativeForTitle('/work/proj/src/a.ts', '/work/proj')).toBe('src/a.ts');
    expect(relativeForTitle('/work/proj', '/work/proj')).toBe('.');
    expect(relativeForTitle('/data/shared/x', '/work/proj')).toBe('/data/shared/x');
  });
});

describe('confine on disk', () => {
  let base: string;
  let ws: string;
  let outside: string;
  beforeAll(async () => {
    base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'oa-ws-')));
    ws = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    await mkdir(path.join(ws, 'src'), { recursive: true });
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
    await writeFile(path.join(ws, 'src', 'a.ts'), 'a');
    await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link-file'));
    await symlink(outside, path.join(ws, 'link-dir'));
    await symlink(path.join(outside, 'missing-dir'), path.join(ws, 'dangling'));
    await symlink(path.join(ws, 'src'), path.join(ws, 'inner-link'));
    await symlink(path.join(ws, 'loop-b'), path.join(ws, 'loop-a'));
    await symlink(path.join(ws, 'loop-a'), path.join(ws, 'loop-b'));
  });
  afterAll(async () => rm(base, { recursive: true, force: true }));
  const roots = () => ({ cwd: ws, extra: [] });

  it('lets paths inside through, existing or new', async () => {
    await expect(confine(path.join(ws, 'src/a.ts'), roots())).resolves.toBe(path.join(ws, 'src/a.ts'));
    await expect(confine(path.join(ws, 'new/dir/file.ts'), roots())).resolves.toBe(path.join(ws, 'new/dir/file.ts'));
    await expect(confine(path.join(ws, 'inner-link/a.ts'), roots())).resolves.toBe(path.join(ws, 'inner-link/a.ts'));
  });

  it('refuses .. and absolute paths elsewhere, naming the path and the roots', async () => {
    const error = await confine(resolveToolPath('../outside/secret.txt', roots()), roots()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('outside_workspace');
    expect((error as Error).message).toContain(path.join(outside, 'secret.txt'));
    expect((error as Error).message).toContain(`allowed: ${ws}`);
    await expect(confine('/etc/passwd', roots())).rejects.toThrow(ToolError);
  });

  it('refuses symlinks pointing out: to a file, to a directory, dangling, and new files under them', async () => {
    await expect(confine(path.join(ws, 'link-file'), roots())).rejects.toThrow(/resolves to .*outside/);
    await expect(confine(path.join(ws, 'link-dir'), roots())).rejects.toThrow(ToolError);
    await expect(confine(path.join(ws, 'link-dir/secret.txt'), roots())).rejects.toThrow(ToolError);
    await expect(confine(path.join(ws, 'link-dir/new.txt'), roots())).rejects.toThrow(ToolError);
    await expect(confine(path.join(ws, 'dangling'), roots())).rejects.toThrow(ToolError);
    await expect(confine(path.join(ws, 'dangling/new.txt'), roots())).rejects.toThrow(ToolError);
  });

  it('allows extra directories, and a cwd given through a symlink', async () => {
    await expect(confine(path.join(outside, 'secret.txt'), { cwd: ws, extra: [outside] })).resolves.toBeDefined();
    const linkedCwd = path.join(base, 'ws-link');
    await symlink(ws, linkedCwd);
    await expect(confine(path.join(linkedCwd, 'src/a.ts'), { cwd: linkedCwd, extra: [] })).resolves.toBe(path.join(linkedCwd, 'src/a.ts'));
    await expect(confine(path.join(linkedCwd, 'link-file'), { cwd: linkedCwd, extra: [] })).rejects.toThrow(ToolError);
  });

  it('refuses a NUL character as a ToolError, not a crash', async () => {
    await expect(confine(path.join(ws, 'a\0b'), roots())).rejects.toThrow(/NUL/);
  });

  it('reports symlink loops as a ToolError', async () => {
    await expect(realTarget(path.join(ws, 'loop-a'))).rejects.toThrow(/symbolic links/);
    await expect(confine(path.join(ws, 'loop-a/x'), roots())).rejects.toThrow(ToolError);
  });
});
