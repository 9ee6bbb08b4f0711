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
import { fileURLToPath } from 'node:url';
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
