/**
 * The digest of what dist/ is built from (scripts/build-inputs.mjs), which lets `pretest` and
 * `prepack` skip a build: any change to a source, script, manifest, lockfile or build setting
 * changes it, and only such a change does.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildInputsDigest, builtFrom, DIGEST_FILE } from '../scripts/build-inputs.mjs';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'openai-acp-build-inputs-'));
  mkdirSync(join(root, 'src', 'tools'), { recursive: true });
  mkdirSync(join(root, 'scripts'));
  writeFileSync(join(root, 'src', 'cli.ts'), 'export {};\n');
  writeFileSync(join(root, 'src', 'tools', 'registry.ts'), 'export const names = [];\n');
  writeFileSync(join(root, 'scripts', 'build.mjs'), '// build\n');
  for (const name of ['package.json', 'package-lock.json', 'tsconfig.json']) writeFileSync(join(root, name), '{}\n');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('buildInputsDigest', () => {
  it('is the same for the same inputs, whatever their mtimes and files outside the inputs', () => {
    const before = buildInputsDigest(root);
    utimesSync(join(root, 'src', 'cli.ts'), new Date(2000, 0, 1), new Date(2000, 0, 1));
    writeFileSync(join(root, 'README.md'), 'docs\n');
    mkdirSync(join(root, 'test'));
    writeFileSync(join(root, 'test', 'a.test.ts'), 'test\n');
    expect(buildInputsDigest(root)).toBe(before);
  });

  it.each([
    ['a source edited', (dir: string) => writeFileSync(join(dir, 'src', 'cli.ts'), 'export const x = 1;\n')],
    ['a source added', (dir: string) => writeFileSync(join(dir, 'src', 'tools', 'new.ts'), '')],
    ['a source renamed', (dir: string) => renameSync(join(dir, 'src', 'tools', 'registry.ts'), join(dir, 'src', 'tools', 'names.ts'))],
    ['a source removed', (dir: string) => rmSync(join(dir, 'src', 'tools', 'registry.ts'))],
    ['a build script edited', (dir: string) => writeFileSync(join(dir, 'scripts', 'build.mjs'), '// build, changed\n')],
    ['the lockfile changed', (dir: string) => writeFileSync(join(dir, 'package-lock.json'), '{"lockfileVersion":3}\n')],
    ['the manifest changed', (dir: string) => writeFileSync(join(dir, 'package.json'), '{"version":"0.2.0"}\n')],
    ['the compiler settings changed', (dir: string) => writeFileSync(join(dir, 'tsconfig.json'), '{"strict":true}\n')],
  ])('changes when %s', (_what, change) => {
    const before = buildInputsDigest(root);
    change(root);
    expect(buildInputsDigest(root)).not.toBe(before);
  });

  it('changes with BUILD_NO_MINIFY (an unminified bundle is another build)', () => {
    const before = buildInputsDigest(root);
    vi.stubEnv('BUILD_NO_MINIFY', '1');
    expect(buildInputsDigest(root)).not.toBe(before);
  });
});

describe('builtFrom', () => {
  const dist = () => join(root, 'dist');
  const build = (digest: string) => {
    mkdirSync(dist(), { recursive: true });
    for (const name of ['cli.js', 'bundle.js', 'package.json']) writeFileSync(join(dist(), name), '');
    writeFileSync(join(dist(), DIGEST_FILE), `${digest}\n`);
  };

  it('holds for a whole dist/ built from inputs with this digest, and for no other', () => {
    const digest = buildInputsDigest(root);
    expect(builtFrom(dist(), digest)).toBe(false);
    build(digest);
    expect(builtFrom(dist(), digest)).toBe(true);
    expect(builtFrom(dist(), 'f'.repeat(64))).toBe(false);
  });

  it('is false when a part of the build is missing (the bundle, or the digest itself)', () => {
    const digest = buildInputsDigest(root);
    build(digest);
    rmSync(join(dist(), 'bundle.js'));
    expect(builtFrom(dist(), digest)).toBe(false);
    build(digest);
    rmSync(join(dist(), DIGEST_FILE));
    expect(builtFrom(dist(), digest)).toBe(false);
  });
});
