// What dist/ is built from, as one digest: `scripts/build.mjs --if-changed` (the `pretest` step)
// and `prepack` skip the build when dist/ was built from the same inputs, so `npm test` after
// `npm ci` (whose `prepare` just built) or after a test-only change starts the tests ~4.5 s
// sooner. Content, not mtimes: a checkout or copy that changes mtimes alone builds nothing, and
// an edit always rebuilds.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the digest of the inputs dist/ was built from is kept (left out of the package by `files`). */
export const DIGEST_FILE = 'build-inputs.sha256';

/**
 * The folders and files a build reads: the sources, the build scripts, the manifest (its
 * version is in the bundle), the lockfile (the bundled dependencies) and the compiler settings.
 */
const INPUTS = ['src', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'];

/** Every file under `path` (a file or a folder), sorted, as paths relative to `root`. */
function filesUnder(root, path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [relative(root, path)];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(root, join(path, name)));
}

/**
 * The sha256 (hex) of every input's path and content under `root` (default: this checkout), with
 * what else changes the output: Node's version and architecture (the V8 code cache is made for
 * them) and `BUILD_NO_MINIFY`.
 */
export function buildInputsDigest(root = ROOT) {
  const hash = createHash('sha256');
  hash.update(`${process.version} ${process.arch} minify=${!process.env.BUILD_NO_MINIFY}\n`);
  for (const file of INPUTS.flatMap((name) => filesUnder(root, join(root, name)))) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Whether `dist` holds a whole build (loader, bundle, manifest) made from inputs with this digest. */
export function builtFrom(dist, digest) {
  const whole = ['cli.js', 'bundle.js', 'package.json'].every((name) => existsSync(join(dist, name)));
  const file = join(dist, DIGEST_FILE);
  return whole && existsSync(file) && readFileSync(file, 'utf8').trim() === digest;
}
