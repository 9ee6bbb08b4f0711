// Writes <outdir>/cli.js, the start-up loader (scripts/cli-loader.cjs), with the content hashes of
// <outdir>/bundle.js and of every <outdir>/chunks/*.cjs filled in: the loader names each V8 code
// cache after the hash of the file it was made from, so a cache is only ever used with its own
// file. Run after the bundle and the chunks are final (a changed file needs a new loader).
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TEMPLATE = fileURLToPath(new URL('./cli-loader.cjs', import.meta.url));

/**
 * The esbuild banner and footer that make bundle.js the function the loader calls: an ES module
 * body inside `(async function (require, __filename, __dirname, __importMetaUrl, __loadChunk) {…})`.
 * `__runtimeRequire` is Node's require, out of esbuild's sight (it would bundle `require('x')`);
 * `__loadChunk` loads a lazy chunk (scripts/lazy-chunks.mjs).
 */
export const BUNDLE_WRAPPER = {
  banner: { js: '(async function (require, __filename, __dirname, __importMetaUrl, __loadChunk) { const __runtimeRequire = require;' },
  footer: { js: '})' },
};

/** First 16 hex digits of the SHA-256 of a file's bytes. */
const contentId = (file) => createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16);

/**
 * Writes `<outdir>/cli.js` (mode 755) for the bundle and chunks now in `outdir`.
 * Returns the ids written: `{ bundle, chunks: { [fileName]: id } }`.
 * Throws when `<outdir>/bundle.js` cannot be read.
 */
export function writeLoader(outdir) {
  const bundle = contentId(join(outdir, 'bundle.js'));
  const chunksDir = join(outdir, 'chunks');
  const chunks = {};
  if (existsSync(chunksDir)) {
    for (const name of readdirSync(chunksDir)
      .filter((n) => n.endsWith('.cjs'))
      .sort())
      chunks[name] = contentId(join(chunksDir, name));
  }
  const loader = readFileSync(TEMPLATE, 'utf8').replace("'__BUNDLE_ID__'", JSON.stringify(bundle)).replace('__CHUNK_IDS__', JSON.stringify(chunks));
  const file = join(outdir, 'cli.js');
  writeFileSync(file, loader);
  chmodSync(file, 0o755);
  return { bundle, chunks };
}
