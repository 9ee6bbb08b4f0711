// `npm pack` / `npm publish` hooks (prepack and postpack): the packed package.json carries no
// `prepare` script. `prepare` builds dist/ in a clone (`npm ci`, `npm install`), but a tarball
// already holds the built dist/ and npm never runs a dependency's `prepare` from a tarball;
// npm 11 still lists it after every install ("1 package has install scripts not yet covered by
// allowScripts"), a warning that cannot be answered. `strip` keeps the original beside it;
// `restore` puts it back.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const manifest = fileURLToPath(new URL('../package.json', import.meta.url));
const kept = `${manifest}.unpacked`;

const mode = process.argv[2];
if (mode === 'strip') {
  if (!existsSync(kept)) writeFileSync(kept, readFileSync(manifest));
  const pkg = JSON.parse(readFileSync(kept, 'utf8'));
  delete pkg.scripts.prepare;
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (mode === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  throw new Error('usage: node scripts/pack-manifest.mjs strip|restore');
}
