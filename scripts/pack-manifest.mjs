// `npm pack` / `npm publish` hooks. `prepack`: builds dist/ unless it was built from the same
// inputs (scripts/build-inputs.mjs: after `npm install`, whose `prepare` just built it, packing
// takes seconds instead of a second build), then writes the package.json to pack: the same
// without its `prepare` script. `prepare` builds dist/ in a clone (`npm ci`, `npm install`), but a tarball
// already holds the built dist/ and npm never runs a dependency's `prepare` from a tarball;
// npm 11 still lists it after every install ("1 package has install scripts not yet covered by
// allowScripts"), a warning nobody can answer. `postpack`: puts the original back (renamed, so
// the file is byte for byte the one the build's digest was made from).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInputsDigest, builtFrom } from './build-inputs.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = join(root, 'package.json');
const kept = `${manifest}.unpacked`;

const mode = process.argv[2];
if (mode === 'prepack') {
  if (!builtFrom(join(root, 'dist'), buildInputsDigest())) {
    const run = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
    if (run.status !== 0) process.exit(run.status ?? 1);
  } else {
    process.stderr.write('dist/ is up to date with its sources: packed as built\n');
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
