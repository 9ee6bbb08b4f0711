// Lazy chunks: code that most runs never need stays out of dist/bundle.js (and out of its V8 code
// cache), so it costs nothing at start-up.
//
// The convention: a source module whose file name ends in `.lazy.ts`, imported only through a
// dynamic `import('./x.lazy.js')`, is built as its own CommonJS bundle `dist/chunks/x.lazy.cjs`,
// and that dynamic import (in the main bundle or in another chunk) becomes a run-time call
// `__loadChunk('x.lazy.cjs')`. `__loadChunk` is the start-up loader's (scripts/cli-loader.cjs):
// it compiles the chunk with a V8 code cache, as it does the bundle, and passes itself to each
// chunk. Used for the MCP SDK (src/tools/mcp/mcp-connect.lazy.ts), which only sessions with MCP
// servers load, and the AWS and Azure SDKs.
//
// A static `import` of a `.lazy.ts` module is bundled as usual (no chunk): only `import()` splits.
// In vitest and tsc the dynamic import simply loads the TypeScript source.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const LAZY = /\.lazy\.js$/;

/** The chunk file name of a lazy module: `src/a/x.lazy.ts` → `x.lazy.cjs`. */
export function chunkName(sourcePath) {
  return `${basename(sourcePath).replace(/\.(ts|js)$/, '')}.cjs`;
}

/**
 * The plugin and the second build. `plugin()` goes into every build that may hold lazy imports
 * (the main one and the chunk builds); it records each lazy module it replaces. `buildChunks`
 * then bundles the recorded modules into `<outdir>/chunks/*.cjs`, repeating while a chunk
 * itself lazily imports a module not built yet.
 *
 * Chunk names must be unique by file name; two lazy modules with the same base name throw.
 */
export function lazyChunks() {
  /** Absolute source path → chunk file name. */
  const found = new Map();
  const built = new Set();

  function plugin() {
    return {
      name: 'lazy-chunks',
      setup(b) {
        b.onResolve({ filter: LAZY }, (args) => {
          if (args.kind !== 'dynamic-import') return undefined;
          const source = resolve(args.resolveDir, args.path.replace(LAZY, '.lazy.ts'));
          if (!existsSync(source)) return { errors: [{ text: `lazy module not found: ${source}` }] };
          const name = chunkName(source);
          for (const [other, otherName] of found) {
            if (otherName === name && other !== source) return { errors: [{ text: `two lazy modules named ${name}: ${other} and ${source}` }] };
          }
          found.set(source, name);
          return { path: name, namespace: 'lazy-chunk' };
        });
        // `__loadChunk(name)` is in scope of every build that uses this plugin: a parameter of the
        // main bundle's function and of each chunk's wrapper (both passed by the loader).
        b.onLoad({ filter: /.*/, namespace: 'lazy-chunk' }, (args) => ({
          contents: `module.exports = __loadChunk(${JSON.stringify(args.path)});`,
          loader: 'js',
        }));
      },
    };
  }

  /**
   * Bundles every lazy module found so far into `<outdir>/chunks/`, as CommonJS for Node.
   * `options` are shared esbuild options (minify, target, sourcemap, plugins such as the zod one).
   * Returns the chunk file names written.
   */
  async function buildChunks(outdir, options = {}) {
    const { plugins = [], ...rest } = options;
    for (;;) {
      const pending = [...found.keys()].filter((source) => !built.has(source));
      if (pending.length === 0) return [...built].map(chunkName);
      for (const source of pending) {
        built.add(source);
        await build({
          ...rest,
          entryPoints: [source],
          outfile: join(outdir, 'chunks', chunkName(source)),
          bundle: true,
          format: 'cjs',
          platform: 'node',
          plugins: [...plugins, plugin()],
          // The loader runs a chunk as a CommonJS module (`require`, `module`, `__filename`, … and
          // `__loadChunk`); `import.meta.url` keeps its meaning.
          define: { 'import.meta.url': '__importMetaUrl' },
          banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
          logLevel: rest.logLevel ?? 'warning',
        });
      }
    }
  }

  return { plugin, buildChunks };
}
