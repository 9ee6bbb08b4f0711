// `npm pack` / `npm publish` hooks. `prepack`: builds dist/ unless it is newer than every source
// it is built from (after `npm install`, whose `prepare` just built it, packing takes seconds
// instead of a second build), then writes the package.json to pack: the same without its
// `prepare` script. `prepare` builds dist/ in a clone (`npm ci`, `npm install`), but a tarball
// already holds the built dist/ and npm never runs a dependency's `prepare` from a tarball;
// npm 11 still lists it after every install ("1 package has install scripts not yet covered by
// allowScripts"), a warning nobody can answer. `postpack`: puts the original back (renamed, so
// its mtime is kept and the next pack does not count it as changed).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = join(root, 'package.json');
const kept = `${manifest}.unpacked`;

/** Newest mtime (ms) of the files under `path` (a file or a folder). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Whether dist/ is missing or older than a source, script or manifest it is built from. */
function distIsStale() {
  const built = join(root, 'dist', 'bundle.js');
  if (!existsSync(built)) return true;
  const sources = ['src', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'].map((name) => newest(join(root, name)));
  return Math.max(...sources) > statSync(built).mtimeMs;
}

const mode = process.argv[2];
if (mode === 'prepack') {
  if (distIsStale()) {
    const run = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
    if (run.status !== 0) process.exit(run.status ?? 1);
  } else {
    process.stderr.write('dist/ is newer than its sources: packed as built\n');
  }
  if (!existsSync(kept)) renameSync(manifest, kept);
  const pkg = JSON.parse(readFileSync(kept, 'utf8'));
  delete pkg.scripts.prepare;
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (mode === 'postpack') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  throw new Error('usage: node scripts/pack-manifest.mjs prepack|postpack');
}
