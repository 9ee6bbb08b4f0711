/**
 * The build's lazy chunks (scripts/lazy-chunks.mjs): a `*.lazy.ts` module reached only through
 * `import()` is left out of the main bundle, built as `chunks/<name>.cjs`, and loaded when the
 * import runs: by the start-up loader (scripts/cli-loader.cjs, with V8 code caches), chunks
 * loading chunks included. One test checks the real dist/ (after `npm run build`, the `pretest`
 * script): no MCP SDK code in dist/bundle.js, and every chunk the bundle names exists.
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM build script without type declarations
import { chunkName, lazyChunks } from '../../scripts/lazy-chunks.mjs';
// @ts-expect-error -- plain ESM build script without type declarations
import { BUNDLE_WRAPPER, writeLoader } from '../../scripts/write-loader.mjs';
import { stdioServer } from '../tools/mcp/stdio-fixture.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));
/**
 * Banner of a plain CommonJS test bundle, required directly: a stand-in for the loader's
 * `__loadChunk` (Node's require of the chunk; chunks loaded this way cannot load chunks).
 */
const PLAIN_LOADER = { js: "const __loadChunk = (name) => require(require('node:path').join(__dirname, 'chunks', name));" };
let dir: string;
let written: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lazy-chunks-'));
  const chunks = lazyChunks();
  await build({
    entryPoints: [join(FIXTURES, 'lazy-entry.ts')],
    outfile: join(dir, 'bundle.js'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    plugins: [chunks.plugin()],
    banner: PLAIN_LOADER,
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
    expect(written).toEqual(['hello.lazy.cjs', 'nested.lazy.cjs']);
    expect(readdirSync(join(dir, 'chunks'))).toEqual(['hello.lazy.cjs', 'nested.lazy.cjs']);
    expect(readFileSync(join(dir, 'chunks', 'hello.lazy.cjs'), 'utf8')).toContain('lazy-chunk-marker-7f3a');
  });

  it('loads the chunk when the dynamic import runs, with import.meta.url pointing at it', async () => {
    const main = createRequire(import.meta.url)(join(dir, 'bundle.js')) as { loadLater(): Promise<string> };
    await expect(main.loadLater()).resolves.toBe('lazy-chunk-marker-7f3a hello chunk from hello.lazy.cjs');
  });

  it('runs through the start-up loader as dist/ does: chunks with code caches, a chunk loading a chunk', async () => {
    const loaderDir = mkdtempSync(join(tmpdir(), 'lazy-chunks-loader-'));
    try {
      const chunks = lazyChunks();
      // The main build as scripts/build.mjs makes it: an ES module body wrapped in the function the loader calls.
      await build({
        stdin: {
          contents: "import { loadLater, loadNested } from './lazy-entry.ts'; process.stdout.write(JSON.stringify([await loadLater(), await loadNested()]));",
          resolveDir: FIXTURES,
          loader: 'ts',
        },
        outfile: join(loaderDir, 'bundle.js'),
        bundle: true,
        format: 'esm',
        platform: 'node',
        plugins: [chunks.plugin()],
        define: { 'import.meta.url': '__importMetaUrl' },
        ...BUNDLE_WRAPPER,
        logLevel: 'silent',
      });
      await chunks.buildChunks(loaderDir, { logLevel: 'silent' });
      writeLoader(loaderDir);
      const run = () => JSON.parse(execFileSync(process.execPath, [join(loaderDir, 'cli.js')], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' }));
      const expected = ['lazy-chunk-marker-7f3a hello chunk from hello.lazy.cjs', 'nested: lazy-chunk-marker-7f3a hello a nested chunk from hello.lazy.cjs'];
      expect(run()).toEqual(expected);
      // The first run wrote a cache of each chunk it loaded (named after its contents); the next uses them.
      const caches = readdirSync(join(loaderDir, 'chunks')).filter((name) => name.endsWith('.cache'));
      expect(caches.map((name) => name.split('.')[0]).sort()).toEqual(['hello', 'nested']);
      expect(run()).toEqual(expected);
      // Contents of the same length (which V8's own check lets through) with their new loader: the old
      // cache is not used, so the new text is what runs.
      const hello = join(loaderDir, 'chunks', 'hello.lazy.cjs');
      writeFileSync(hello, readFileSync(hello, 'utf8').replace('lazy-chunk-marker-7f3a', 'lazy-chunk-marker-7f3b'));
      writeLoader(loaderDir);
      expect(run()[0]).toBe('lazy-chunk-marker-7f3b hello chunk from hello.lazy.cjs');
    } finally {
      rmSync(loaderDir, { recursive: true, force: true });
    }
  });

  it('dist/bundle.js holds no MCP SDK, ws or ACP network server code, and every chunk it names is in dist/chunks', () => {
    const bundlePath = join(ROOT, 'dist', 'bundle.js');
    if (!existsSync(bundlePath)) return; // not built (vitest run without the pretest build)
    const main = readFileSync(bundlePath, 'utf8');
    // String literals of the MCP SDK's client and transports: minification keeps them.
    for (const sdkText of ['notifications/tools/list_changed', 'StdioClientTransport already started', 'mcp-session-id']) {
      expect(main).not.toContain(sdkText);
    }
    // Nor the WebSocket library of the AgentConnect front door (its handshake's header name and GUID).
    for (const wsText of ['Sec-WebSocket-Accept', '258EAFA5-E914-47DA-95CA-C5AB0DC85B11']) expect(main).not.toContain(wsText);
    expect(readFileSync(join(ROOT, 'dist', 'chunks', 'front-door.lazy.cjs'), 'utf8')).toContain('258EAFA5-E914-47DA-95CA-C5AB0DC85B11');
    // Nor the ACP SDK's network server of `openai-acp serve` (its error texts), which is a chunk of its own.
    for (const serverText of ['Initialize not allowed on existing connection', 'Outbound stream already has an active receiver']) {
      expect(main).not.toContain(serverText);
      expect(readFileSync(join(ROOT, 'dist', 'chunks', 'network-server.lazy.cjs'), 'utf8')).toContain(serverText);
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
      banner: PLAIN_LOADER,
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
    const mcp = startMcpServers([stdioServer('fx')], { cwd: ROOT, logger: quiet });
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
