/**
 * What can be checked of the Docker image without a Docker engine: the base image is a Node.js LTS
 * line (the same in both stages, since the build trains a V8 code cache for that Node), the build
 * context leaves out what must not reach it (.dockerignore), and no source map is copied into the
 * runtime image unless `SOURCEMAPS=true` is passed; ripgrep is installed from Debian for search_files.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ignore from 'ignore';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SERVE_PORT } from '../../src/serve/serve-flags.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
/** Instructions with their continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));
const dockerignore = ignore().add(readFileSync(join(ROOT, '.dockerignore'), 'utf8'));

/**
 * Node.js release lines with LTS status and their end of life (https://github.com/nodejs/Release,
 * schedule.json). 20 is absent: it reached end of life on 2026-04-30.
 */
const LTS_LINES: Record<string, string> = { '22': '2027-04-30', '24': '2028-04-30', '26': '2029-04-30' };

describe('Dockerfile', () => {
  it('builds and runs on a Node.js LTS line, the same in both stages', () => {
    const arg = instructions.find((line) => /^ARG NODE_MAJOR=/.test(line));
    const major = arg?.split('=')[1];
    expect(Object.keys(LTS_LINES)).toContain(major);
    const froms = instructions.filter((line) => line.startsWith('FROM '));
    expect(froms).toHaveLength(2);
    for (const from of froms) expect(from).toMatch(/^FROM node:\$\{NODE_MAJOR\}-[a-z]+-slim\b/);
    // ARG before the first FROM is the only one a FROM line can use.
    expect(instructions.indexOf(arg!)).toBeLessThan(instructions.indexOf(froms[0]!));
  });

  it('copies into the build only what the build context keeps', () => {
    const sources = instructions.filter((line) => line.startsWith('COPY ') && !line.includes('--from=')).flatMap((line) => line.split(/\s+/).slice(1, -1));
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src', 'scripts']));
    for (const source of sources) {
      expect(existsSync(join(ROOT, source))).toBe(true);
      expect(dockerignore.ignores(source)).toBe(false);
    }
  });

  it('installs ripgrep from Debian in the runtime image, as root before USER node', () => {
    const runtime = instructions.findLastIndex((line) => line.startsWith('FROM '));
    const install = instructions.findIndex((line) =>
      /^RUN apt-get update && apt-get install -y (--no-install-recommends )?ripgrep\b/.test(line.replace(/\s+/g, ' ')),
    );
    expect(install).toBeGreaterThan(runtime);
    expect(install).toBeLessThan(instructions.indexOf('USER node'));
    expect(instructions[install]).toContain('rm -rf /var/lib/apt/lists/*');
  });

  it('runs as the non-root node user, serving ACP on stdio', () => {
    expect(instructions).toContain('USER node');
    expect(instructions.at(-2)).toBe('ENTRYPOINT ["node", "/app/dist/cli.js"]');
  });

  it('exposes the port of `serve` and has a /workspace the node user owns, as docs/docker.md runs it', () => {
    expect(instructions).toContain(`EXPOSE ${DEFAULT_SERVE_PORT}`);
    const workspace = instructions.indexOf('RUN mkdir -p /workspace && chown node:node /workspace');
    expect(workspace).toBeGreaterThan(-1);
    expect(workspace).toBeLessThan(instructions.indexOf('USER node'));
    const docs = readFileSync(join(ROOT, 'docs', 'docker.md'), 'utf8');
    expect(docs).toContain('openai-acp serve --host 0.0.0.0 --root /workspace');
    expect(docs).toContain('-v "$PWD:/workspace"');
  });
});

describe('.dockerignore', () => {
  it.each([
    'node_modules/zod/package.json',
    'dist/cli.js',
    'dist/bundle.js.map',
    '.dist-build-123/cli.js',
    '.env',
    '.env.local',
    '.git/HEAD',
    'test/fixtures/providers/README.md',
    'property-tests/sse/sse.property.test.ts',
    'bench/run.mjs',
    '.worktrees/tools/src/cli.ts',
    'wt-polish/src/cli.ts',
    'npm-debug.log',
  ])('keeps %s out of the build context', (path) => {
    expect(dockerignore.ignores(path)).toBe(true);
  });

  it.each(['package.json', 'package-lock.json', 'tsconfig.json', 'src/cli.ts', 'scripts/build.mjs', 'scripts/cli-loader.cjs'])('keeps %s in', (path) => {
    expect(dockerignore.ignores(path)).toBe(false);
  });
});

describe('source maps in the runtime image', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** Runs the build stage's source-map step (its RUN line, as /bin/sh would) on a fake dist/. */
  const runStep = (sourcemaps: string | undefined): string[] => {
    dir = mkdtempSync(join(tmpdir(), 'openai-acp-docker-'));
    mkdirSync(join(dir, 'dist'));
    for (const name of ['bundle.js', 'bundle.js.map', 'cli.js']) writeFileSync(join(dir, 'dist', name), '//');
    const step = instructions.find((line) => line.startsWith('RUN ') && line.includes('.map'));
    expect(step).toBeDefined();
    const fallback = instructions.find((line) => line.startsWith('ARG SOURCEMAPS='))?.split('=')[1];
    execFileSync('/bin/sh', ['-c', step!.slice(4)], { cwd: dir, env: { PATH: process.env.PATH ?? '', SOURCEMAPS: sourcemaps ?? fallback ?? '' } });
    return ['bundle.js', 'bundle.js.map', 'cli.js'].filter((name) => existsSync(join(dir!, 'dist', name)));
  };

  it('deletes them by default, before the runtime stage copies dist/', () => {
    expect(runStep(undefined)).toEqual(['bundle.js', 'cli.js']);
    const step = instructions.findIndex((line) => line.startsWith('RUN ') && line.includes('.map'));
    const copy = instructions.findIndex((line) => line.startsWith('COPY --from=build'));
    const runtime = instructions.findLastIndex((line) => line.startsWith('FROM '));
    expect(step).toBeLessThan(runtime);
    expect(copy).toBeGreaterThan(runtime);
  });

  it('keeps them with SOURCEMAPS=true', () => {
    expect(runStep('true')).toEqual(['bundle.js', 'bundle.js.map', 'cli.js']);
  });
});
