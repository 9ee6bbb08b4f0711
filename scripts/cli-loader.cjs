#!/usr/bin/env node
// openai-acp start-up loader (generated into dist/cli.js by scripts/write-loader.mjs; edit it here).
//
// Runs dist/bundle.js, the whole CLI bundled by esbuild as one function expression, through
// `vm.Script` with a V8 code cache, so a start skips parsing and compiling ~250 KB of JavaScript.
// Speed work: its measured gain is listed in ARCHITECTURE.md ("Speed work").
//
// Lazy chunks (dist/chunks/*.cjs, scripts/lazy-chunks.mjs) are loaded by `loadChunk`, which the
// bundle receives as `__loadChunk` (and each chunk too, for chunks that load other chunks): the
// same compile with a code cache, of the chunk wrapped as a CommonJS function. For the MCP client
// chunk that took its load (compile and run) from ~57 ms to ~34 ms.
//
// The caches are produced by the build (a training run that serves initialize, session/new with
// one stdio MCP server, one prompt with an MCP tool call). Each cache is named after the content
// hash of its own file (written below by the build), the CPU architecture and the V8 version:
// V8's own check of the source is weak (it compares lengths), so a cache is never offered to
// other contents. V8 still rejects it when the Node.js version or V8 flags differ; the loader then
// compiles from source as usual and (when started without Node flags) writes a fresh cache at
// exit, next to the file (dist/, dist/chunks/) or, when that is read-only,
// $XDG_CACHE_HOME/openai-acp (or ~/.cache/openai-acp). Any failure to read or write a cache is
// silent: it only saves time.
'use strict';
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { Script } = require('node:vm');

/** Content hashes written by the build: of bundle.js, and of each chunk by its file name. */
const BUNDLE_ID = '__BUNDLE_ID__';
const CHUNK_IDS = __CHUNK_IDS__;
const cacheHome = process.env.XDG_CACHE_HOME || (process.env.HOME ? join(process.env.HOME, '.cache') : undefined);
const fallbackDir = cacheHome ? join(cacheHome, 'openai-acp') : undefined;
// Node flags change what V8 accepts; a cache written under them would be rejected by plain runs.
const plainNode = process.execArgv.length === 0 && !process.env.NODE_OPTIONS;

/**
 * Compiles `source` (the contents of `file`, possibly wrapped) with the code cache
 * `<stem>.<id>.<arch>.v8-<version>.cache` from `dir` or the fallback directory, and runs it.
 * Without an `id` (a file the build did not hash) no cache is used or written.
 * Returns the script's completion value; throws what compiling or running throws.
 */
function runCached(file, source, dir, stem, id, lineOffset = 0) {
  const cacheName = `${stem}.${id}.${process.arch}.v8-${process.versions.v8}.cache`;
  const cacheDirs = fallbackDir ? [dir, fallbackDir] : [dir];
  let cachedData;
  for (const cacheDir of id ? cacheDirs : []) {
    try {
      cachedData = readFileSync(join(cacheDir, cacheName));
      break;
    } catch {
      // Not there: try the next place, else compile without a cache.
    }
  }
  const script = new Script(source, { filename: file, lineOffset, cachedData });
  if (id && (cachedData === undefined || script.cachedDataRejected) && plainNode) {
    // After the run the cache also holds every function compiled along the way.
    process.once('exit', () => {
      let data;
      try {
        data = script.createCachedData();
      } catch {
        return;
      }
      for (const cacheDir of cacheDirs) {
        try {
          mkdirSync(cacheDir, { recursive: true });
          const temporary = join(cacheDir, `${cacheName}.${process.pid}.tmp`);
          writeFileSync(temporary, data);
          renameSync(temporary, join(cacheDir, cacheName));
          return;
        } catch {
          // Read-only or missing directory: try the next place.
        }
      }
    });
  }
  return script.runInThisContext();
}

const chunksDir = join(__dirname, 'chunks');
/** Loaded chunks by file name, as Node's require keeps modules: each runs once. */
const chunks = new Map();

/**
 * The `module.exports` of the lazy chunk `dist/chunks/<name>` (e.g. `mcp-connect.lazy.cjs`),
 * loaded on first use. Throws when the chunk is missing (ENOENT) or throws while loading; a
 * failed load is not kept, so a later call tries again.
 */
function loadChunk(name) {
  const loaded = chunks.get(name);
  if (loaded !== undefined) return loaded.exports;
  const file = join(chunksDir, name);
  // The wrapper on a line of its own (lineOffset -1) keeps the chunk's lines and columns, which its source map needs.
  const source = `(function (exports, require, module, __filename, __dirname, __loadChunk) {\n${readFileSync(file, 'utf8')}\n})`;
  const module = { exports: {}, filename: file };
  chunks.set(name, module);
  try {
    const wrapper = runCached(file, source, chunksDir, name.replace(/\.cjs$/, ''), CHUNK_IDS[name], -1);
    wrapper.call(module.exports, module.exports, createRequire(file), module, file, chunksDir, loadChunk);
  } catch (error) {
    chunks.delete(name);
    throw error;
  }
  return module.exports;
}

// The bundle is `(async function (require, __filename, __dirname, __importMetaUrl, __loadChunk) { … })`;
// it has no `import()` of its own (code run by `vm.Script` has none on Node 20): built-ins are
// required, lazy chunks loaded by `loadChunk`, and everything else is inside the bundle.
// A rejection (a top-level failure of the CLI) becomes an uncaught exception, as an ES module's
// failed top-level await would: the error is printed and the exit code is 1.
const bundle = join(__dirname, 'bundle.js');
runCached(bundle, readFileSync(bundle, 'utf8'), __dirname, 'bundle', BUNDLE_ID)(require, bundle, __dirname, pathToFileURL(bundle).href, loadChunk).catch(
  (error) =>
    process.nextTick(() => {
      throw error;
    }),
);
