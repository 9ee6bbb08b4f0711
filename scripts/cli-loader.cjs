#!/usr/bin/env node
// openai-acp start-up loader (generated into dist/cli.js by scripts/build.mjs; edit it there).
//
// Runs dist/bundle.js, the whole CLI bundled by esbuild as one function expression, through
// `vm.Script` with a V8 code cache, so a start skips parsing and compiling ~250 KB of JavaScript.
// Measured on a 2-core machine: about 20 ms less from spawn to the `initialize` answer.
//
// The cache is produced by the build (a training run that serves initialize, session/new and one
// prompt). V8 rejects it when the Node.js version, V8 flags or bundle differ; the loader then
// compiles from source as usual and (when started without Node flags) writes a fresh cache at
// exit, into dist/ or, when dist/ is read-only, $XDG_CACHE_HOME/openai-acp (or
// ~/.cache/openai-acp). Any failure to read or write the cache is silent: it only saves time.
'use strict';
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { Script } = require('node:vm');

/** The bundle's content hash, written by the build: a cache is only used with its own bundle. */
const BUILD = '__BUILD_ID__';
const bundle = join(__dirname, 'bundle.js');
const cacheName = `bundle.${BUILD}.${process.arch}.v8-${process.versions.v8}.cache`;
const cacheHome = process.env.XDG_CACHE_HOME || (process.env.HOME ? join(process.env.HOME, '.cache') : undefined);
const cacheDirs = cacheHome ? [__dirname, join(cacheHome, 'openai-acp')] : [__dirname];

let cachedData;
for (const dir of cacheDirs) {
  try {
    cachedData = readFileSync(join(dir, cacheName));
    break;
  } catch {
    // Not there: try the next place, else compile without a cache.
  }
}

const script = new Script(readFileSync(bundle, 'utf8'), { filename: bundle, cachedData });
// Node flags change what V8 accepts; a cache written under them would be rejected by plain runs.
const plainNode = process.execArgv.length === 0 && !process.env.NODE_OPTIONS;
if ((cachedData === undefined || script.cachedDataRejected) && plainNode) {
  // After the run the cache also holds every function compiled along the way.
  process.once('exit', () => {
    let data;
    try {
      data = script.createCachedData();
    } catch {
      return;
    }
    for (const dir of cacheDirs) {
      try {
        mkdirSync(dir, { recursive: true });
        const temporary = join(dir, `${cacheName}.${process.pid}.tmp`);
        writeFileSync(temporary, data);
        renameSync(temporary, join(dir, cacheName));
        return;
      } catch {
        // Read-only or missing directory: try the next place.
      }
    }
  });
}

// The bundle is `(async function (require, __filename, __dirname, __importMetaUrl) { … })`; it
// has no `import()` of its own (code run by `vm.Script` has none on Node 20): built-ins are
// required, and everything else is inside the bundle.
// A rejection (a top-level failure of the CLI) becomes an uncaught exception, as an ES module's
// failed top-level await would: the error is printed and the exit code is 1.
script
  .runInThisContext()(require, bundle, __dirname, pathToFileURL(bundle).href)
  .catch((error) => process.nextTick(() => {
    throw error;
  }));
