// The README's list of tools, written from the registry (src/tools/builtin/registry.ts) between
// `<!-- tools -->` and `<!-- /tools -->`: a tool added to the registry is listed by the next build,
// with no count or name kept by hand. Run by `npm run build` and `npm test` after the bundle (a
// step of its own: the bundle, also built inside the Dockerfile where there is no README, writes
// only dist/); `node scripts/readme-tools.mjs` alone rewrites it too. test/readme.test.ts checks
// the list against the registry.
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The names of the registry, in offering order (built-ins, then the plan tool). */
async function toolNames() {
  const bundled = await build({
    entryPoints: [join(root, 'src/tools/builtin/registry.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
  });
  const url = `data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`;
  const { BUILTIN_TOOL_NAMES } = await import(url);
  return [...BUILTIN_TOOL_NAMES];
}

/** The README's text with its list of tools written from `names`. */
export function withToolList(readme, names) {
  return readme.replace(/(<!-- tools -->)[\s\S]*?(<!-- \/tools -->)/, (_, open, close) => `${open}${names.map((name) => `\`${name}\``).join(', ')}${close}`);
}

/** Rewrites README.md's list of tools when the registry changed; returns whether it did. */
export async function updateReadmeTools() {
  const path = join(root, 'README.md');
  const readme = readFileSync(path, 'utf8');
  const next = withToolList(readme, await toolNames());
  if (next === readme) return false;
  writeFileSync(path, next);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (await updateReadmeTools()) console.log('README.md: tool list written from the registry (commit the change)');
}
