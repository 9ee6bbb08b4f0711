import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalBackend } from '../../../src/tools/backends/local-backend.js';
import { looksBinary } from '../../../src/tools/backends/text-decode.js';
import { ToolError } from '../../../src/tools/tool.js';

let base: string;
let ws: string;
let outside: string;
const signal = new AbortController().signal;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'oa-local-')));
  ws = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(ws);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'top secret\n');
});
afterEach(async () => rm(base, { recursive: true, force: true }));

const backend = (maxReadBytes?: number) => createLocalBackend({ cwd: ws, extra: [] }, maxReadBytes === undefined ? {} : { maxReadBytes });
async function toolError(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe('local readTextFile', () => {
  it('reads UTF-8 text, keeping a byte order mark', async () => {
    await writeFile(path.join(ws, 'a.txt'), 'héllo\nwörld\n');
    await writeFile(path.join(ws, 'bom.txt'), '\ufeffx');
    expect(await backend().readTextFile(path.join(ws, 'a.txt'), signal)).toBe('héllo\nwörld\n');
    expect(await backend().readTextFile(path.join(ws, 'bom.txt'), signal)).toBe('\ufeffx');
  });

  it('names missing files, directories, binary and too large files', async () => {
    expect(await toolError(backend().readTextFile(path.join(ws, 'nope.txt'), signal))).toMatchObject({
      code: 'not_found',
      message: `no such file: ${path.join(ws, 'nope.txt')}`,
    });
    await mkdir(path.join(ws, 'dir'));
    expect((await toolError(backend().readTextFile(path.join(ws, 'dir'), signal))).message).toContain('is a directory; use list_directory');
    await writeFile(path.join(ws, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, 3]));
    expect((await toolError(backend().readTextFile(path.join(ws, 'img.png'), signal))).message).toBe(
      `${path.join(ws, 'img.png')} is a binary file (9 bytes); not shown`,
    );
    await writeFile(path.join(ws, 'big.txt'), 'x'.repeat(2048));
    const big = await toolError(backend(1024).readTextFile(path.join(ws, 'big.txt'), signal));
    expect(big.code).toBe('too_large');
    expect(big.message).toContain('too large to read (2.0 KiB; the limit is 1.0 KiB)');
  });

  it('refuses paths outside the workspace before reading: .., absolute, symlinks to a file and to a directory', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'leak'));
    await symlink(outside, path.join(ws, 'leakdir'));
    for (const p of [
      path.join(ws, '..', 'outside', 'secret.txt'),
      path.join(outside, 'secret.txt'),
      path.join(ws, 'leak'),
      path.join(ws, 'leakdir', 'secret.txt'),
    ]) {
      const error = await toolError(backend().readTextFile(p, signal));
      expect(error.code).toBe('outside_workspace');
      expect(error.message).not.toContain('top secret');
    }
  });
});

describe('local writeTextFile', () => {
  it('creates parent directories and leaves no temp file', async () => {
    const file = path.join(ws, 'a', 'b', 'c.txt');
    await backend().writeTextFile(file, 'new\n', signal);
    expect(await readFile(file, 'utf8')).toBe('new\n');
    expect(await readdir(path.join(ws, 'a', 'b'))).toEqual(['c.txt']);
  });

  it('keeps the mode of an existing file', async () => {
    const file = path.join(ws, 'run.sh');
    await writeFile(file, 'echo 1\n');
    await chmod(file, 0o750);
    await backend().writeTextFile(file, 'echo 2\n', signal);
    expect((await stat(file)).mode & 0o777).toBe(0o750);
    expect(await readFile(file, 'utf8')).toBe('echo 2\n');
  });

  it('writes through a symlink inside the workspace, keeping the link', async () => {
    await writeFile(path.join(ws, 'real.txt'), 'old');
    await symlink(path.join(ws, 'real.txt'), path.join(ws, 'alias.txt'));
    await backend().writeTextFile(path.join(ws, 'alias.txt'), 'new', signal);
    expect(await readFile(path.join(ws, 'real.txt'), 'utf8')).toBe('new');
  });

  it('refuses writes outside, including through links and dangling links, creating nothing', async () => {
    await symlink(outside, path.join(ws, 'out'));
    await symlink(path.join(outside, 'made-by-link'), path.join(ws, 'dangling'));
    for (const p of [path.join(outside, 'x.txt'), path.join(ws, 'out', 'x.txt'), path.join(ws, 'dangling'), path.join(ws, '..', 'x.txt')]) {
      expect((await toolError(backend().writeTextFile(p, 'pwned', signal))).code).toBe('outside_workspace');
    }
    expect((await readdir(outside)).sort()).toEqual(['secret.txt']);
    expect((await readdir(base)).sort()).toEqual(['outside', 'ws']);
  });

  it('refuses writing a directory, and stops when aborted', async () => {
    await mkdir(path.join(ws, 'd'));
    expect((await toolError(backend().writeTextFile(path.join(ws, 'd'), 'x', signal))).code).toBe('is_directory');
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(backend().writeTextFile(path.join(ws, 'z.txt'), 'x', controller.signal)).rejects.toThrow('stop');
    await expect(stat(path.join(ws, 'z.txt'))).rejects.toThrow();
  });
});

describe('local runCommand', () => {
  it.skipIf(process.platform === 'win32')('runs in a confined cwd and release is a no-op', async () => {
    await mkdir(path.join(ws, 'sub'));
    const result = await backend().runCommand('pwd', { cwd: path.join(ws, 'sub'), timeoutMs: 5_000, outputByteLimit: 1000, signal });
    expect(result.output.trim()).toBe(path.join(ws, 'sub'));
    await expect(result.release()).resolves.toBeUndefined();
    await expect(backend().runCommand('pwd', { cwd: outside, timeoutMs: 5_000, outputByteLimit: 1000, signal })).rejects.toThrow(ToolError);
    await expect(backend().runCommand('pwd', { cwd: path.join(ws, 'missing'), timeoutMs: 5_000, outputByteLimit: 1000, signal })).rejects.toThrow(
      /not an existing directory/,
    );
  });
});

describe('looksBinary', () => {
  it('tells text from binary', () => {
    expect(looksBinary(Buffer.from('plain ascii\n'))).toBe(false);
    expect(looksBinary(Buffer.from('a\0b'))).toBe(true);
    expect(looksBinary(Buffer.from('caf\xe9 au lait, tr\xe8s bien', 'latin1'))).toBe(false);
    expect(looksBinary(Buffer.from(Array.from({ length: 200 }, (_, i) => 0x80 + (i % 64))))).toBe(true);
    // A multi-byte character cut by the 8 KiB sniff window is not binary.
    expect(looksBinary(Buffer.from('a'.repeat(8191) + '€'))).toBe(false);
  });
});

describe('fileExists and deleteFile', () => {
  it('tells a missing file from an existing one when the cwd is on this disk, and cannot tell when it is not', async () => {
    await writeFile(path.join(ws, 'here.txt'), 'x');
    expect(await backend().fileExists!(path.join(ws, 'here.txt'), signal)).toBe(true);
    expect(await backend().fileExists!(path.join(ws, 'gone.txt'), signal)).toBe(false);
    const elsewhere = createLocalBackend({ cwd: path.join(base, 'not-here'), extra: [] });
    expect(await elsewhere.fileExists!(path.join(base, 'not-here', 'a.txt'), signal)).toBeUndefined();
  });

  it('removes a file inside the workspace, ignores a missing one, refuses outside and directories', async () => {
    await writeFile(path.join(ws, 'made.txt'), 'x');
    await backend().deleteFile!(path.join(ws, 'made.txt'), signal);
    await backend().deleteFile!(path.join(ws, 'made.txt'), signal);
    expect(await readdir(ws)).toEqual([]);
    await expect(backend().deleteFile!(path.join(outside, 'secret.txt'), signal)).rejects.toBeInstanceOf(ToolError);
    await mkdir(path.join(ws, 'dir'));
    await expect(backend().deleteFile!(path.join(ws, 'dir'), signal)).rejects.toMatchObject({ code: 'is_directory' });
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });
});
