/**
 * The built start-up loader (dist/cli.js, from scripts/cli-loader.cjs): the V8 code cache the
 * build trained is used, a bad or missing cache never breaks a start, and a fresh one is written
 * at exit. Needs `npm run build` (the `pretest` script) first.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/clean-env.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let copy: string;

/** A copy of the package (package.json + dist) in a temporary directory. */
beforeEach(() => {
  copy = mkdtempSync(join(tmpdir(), 'openai-acp-cache-'));
  cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
});
afterEach(() => rmSync(copy, { recursive: true, force: true }));

const caches = () => readdirSync(join(copy, 'dist')).filter((name) => name.endsWith('.cache'));
const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
const run = () => execFileSync(process.execPath, [join(copy, 'dist', 'cli.js'), '--version'], { env: cleanEnv(copy), encoding: 'utf8' });

describe('dist/cli.js code cache', () => {
  it('ships one trained cache next to the bundle', () => {
    expect(caches()).toHaveLength(1);
    expect(readFileSync(join(copy, 'dist', caches()[0]!)).length).toBeGreaterThan(100_000);
    expect(JSON.parse(readFileSync(join(copy, 'dist', 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
  });

  it('starts with the cache and leaves it alone', () => {
    const file = join(copy, 'dist', caches()[0]!);
    const before = readFileSync(file);
    expect(run()).toBe(`${version}\n`);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('starts with a corrupt cache and replaces it at exit', () => {
    const file = join(copy, 'dist', caches()[0]!);
    writeFileSync(file, 'not a V8 code cache');
    expect(run()).toBe(`${version}\n`);
    expect(readFileSync(file).length).toBeGreaterThan(1000);
    expect(caches()).toHaveLength(1);
  });

  it('starts without a cache and writes one at exit', () => {
    for (const name of caches()) rmSync(join(copy, 'dist', name));
    expect(run()).toBe(`${version}\n`);
    expect(caches()).toHaveLength(1);
  });
});
