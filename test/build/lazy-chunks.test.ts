/**
 * The build's lazy chunks (scripts/lazy-chunks.mjs): a `*.lazy.ts` module reached only through
 * `import()` is left out of the main bundle, built as `chunks/<name>.cjs`, and required when the
 * import runs. The last test checks the real dist/ (after `npm run build`, the `pretest` script):
 * no MCP SDK code in dist/bundle.js, and every chunk the bundle names exists.
 */
import { build } from 'esbuild';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM build script without type declarations
import { chunkName, lazyChunks } from '../../scripts/lazy-chunks.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));
let dir: string;
let written: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lazy-chunks-'));
  const chunks = lazyChunks();
  // The main build as scripts/build.mjs makes it: a function receiving Node's require.
  await build({
    entryPoints: [join(FIXTURES, 'lazy-entry.ts')],
    outfile: join(dir, 'bundle.js'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    plugins: [chunks.plugin()],
    banner: { js: 'const __runtimeRequire = require;' },
    logLevel: 'silent',
  });
  written = await chunks.buildChunks(dir, { logLevel: 'silent' });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lazy chunks', () => {
  it('names a chunk after its source file', () => {
    expect(chunkName('/a/src/tools/mcp/mcp-connect.lazy.ts')).toBe('mcp-connect.lazy.cjs');
  });

  it('keeps the lazy module out of the main bundle and writes it as a chunk', () => {
    const main = readFileSync(join(dir, 'bundle.js'), 'utf8');
    expect(main).toContain('main-bundle-marker');
    expect(main).not.toContain('lazy-chunk-marker-7f3a');
    expect(written).toEqual(['hello.lazy.cjs']);
    expect(readdirSync(join(dir, 'chunks'))).toEqual(['hello.lazy.cjs']);
    expect(readFileSync(join(dir, 'chunks', 'hello.lazy.cjs'), 'utf8')).toContain('lazy-chunk-marker-7f3a');
  });

  it('loads the chunk when the dynamic import runs, with import.meta.url pointing at it', async () => {
    const main = createRequire(import.meta.url)(join(dir, 'bundle.js')) as { loadLater(): Promise<string> };
    await expect(main.loadLater()).resolves.toBe('lazy-chunk-marker-7f3a hello chunk from hello.lazy.cjs');
  });

  it('works in the form of dist/bundle.js: an ES module body wrapped in a function run by vm.Script', async () => {
    const esmDir = mkdtempSync(join(tmpdir(), 'lazy-chunks-esm-'));
    try {
      const chunks = lazyChunks();
      await build({
        stdin: { contents: "import { loadLater } from './lazy-entry.ts'; globalThis.__lazyChunkResult = loadLater();", resolveDir: FIXTURES, loader: 'ts' },
        outfile: join(esmDir, 'bundle.js'),
        bundle: true,
        format: 'esm',
        platform: 'node',
        plugins: [chunks.plugin()],
        define: { 'import.meta.url': '__importMetaUrl' },
        banner: { js: '(async function (require, __filename, __dirname, __importMetaUrl) { const __runtimeRequire = require;' },
        footer: { js: '})' },
        logLevel: 'silent',
      });
      await chunks.buildChunks(esmDir, { logLevel: 'silent' });
      const file = join(esmDir, 'bundle.js');
      const run = new Script(readFileSync(file, 'utf8'), { filename: file }).runInThisContext() as (...args: unknown[]) => Promise<void>;
      await run(createRequire(file), file, esmDir, pathToFileURL(file).href);
      const holder = globalThis as { __lazyChunkResult?: Promise<string> };
      await expect(holder.__lazyChunkResult).resolves.toBe('lazy-chunk-marker-7f3a hello chunk from hello.lazy.cjs');
      delete holder.__lazyChunkResult;
    } finally {
      rmSync(esmDir, { recursive: true, force: true });
    }
  });

  it('dist/bundle.js holds no MCP SDK code, and every chunk it names is in dist/chunks', () => {
    const bundlePath = join(ROOT, 'dist', 'bundle.js');
    if (!existsSync(bundlePath)) return; // not built (vitest run without the pretest build)
    const main = readFileSync(bundlePath, 'utf8');
    // String literals of the MCP SDK's client and transports: minification keeps them.
    for (const sdkText of ['notifications/tools/list_changed', 'StdioClientTransport already started', 'mcp-session-id']) {
      expect(main).not.toContain(sdkText);
    }
    const named = [...main.matchAll(/"([\w.-]+\.lazy\.cjs)"/g)].map((m) => m[1]!);
    for (const name of named) expect(existsSync(join(ROOT, 'dist', 'chunks', name)), name).toBe(true);
  });
});

describe('the MCP client as a lazy chunk', () => {
  let mcpDir: string;
  beforeAll(async () => {
    mcpDir = mkdtempSync(join(tmpdir(), 'lazy-chunks-mcp-'));
    const chunks = lazyChunks();
    await build({
      entryPoints: [join(ROOT, 'src', 'tools', 'mcp', 'mcp-servers.ts')],
      outfile: join(mcpDir, 'bundle.js'),
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      minify: true,
      plugins: [chunks.plugin()],
      banner: { js: 'const __runtimeRequire = require;' },
      logLevel: 'silent',
    });
    await chunks.buildChunks(mcpDir, { target: 'node20', minify: true, logLevel: 'silent' });
  }, 60_000);
  afterAll(() => rmSync(mcpDir, { recursive: true, force: true }));

  it('keeps the MCP SDK out of the bundle that imports mcp-servers.ts', () => {
    const main = readFileSync(join(mcpDir, 'bundle.js'), 'utf8');
    const chunk = readFileSync(join(mcpDir, 'chunks', 'mcp-connect.lazy.cjs'), 'utf8');
    for (const sdkText of ['notifications/tools/list_changed', 'StdioClientTransport already started']) {
      expect(main).not.toContain(sdkText);
      expect(chunk).toContain(sdkText);
    }
    expect(main.length).toBeLessThan(40_000);
  });

  it('runs a stdio MCP server through the built chunk', async () => {
    const { startMcpServers } = createRequire(import.meta.url)(join(mcpDir, 'bundle.js')) as typeof import('../../src/tools/mcp/mcp-servers.js');
    const quiet = { level: 'error' as const, error() {}, warn() {}, info() {}, debug() {} };
    const server = fileURLToPath(new URL('../tools/mcp/fixtures/mcp-stdio-server.mjs', import.meta.url));
    const mcp = startMcpServers([{ name: 'fx', command: process.execPath, args: [server], env: [] }], { cwd: ROOT, logger: quiet });
    try {
      await mcp.ready();
      expect(mcp.takeNotices()).toEqual([]);
      expect(mcp.tools(new Set(), { gemini: false }).map((t) => t.name)).toContain('fx__echo');
      await expect(mcp.call('fx__echo', { text: 'built' })).resolves.toMatchObject({ isError: false, text: 'echo: built' });
    } finally {
      await mcp.close();
    }
  });
});
