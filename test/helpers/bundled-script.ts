/**
 * A Node fixture script (an MCP server that imports the SDK) bundled into one CommonJS file, made
 * once per content in the temp directory: Node starts it in about 40 % of the CPU time of the
 * script itself, which resolves and compiles the SDK's and zod's modules one by one (the suite
 * starts MCP fixture servers some 40 times).
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The script that bundles a fixture (in a child process: esbuild plugins need its async API). */
const BUNDLER = fileURLToPath(new URL('../tools/mcp/fixtures/bundle-fixture.mjs', import.meta.url));

/** Files whose contents decide every bundle besides the script's own: the bundler and the build's lazy-schema transform. */
const TOOLING = [BUNDLER, fileURLToPath(new URL('../../scripts/lazy-schemas.mjs', import.meta.url))];

/** The lockfile, so a bundle is made again when a package it holds (the MCP SDK, zod, esbuild, typescript) changes. */
const LOCKFILE = new URL('../../package-lock.json', import.meta.url);

/**
 * The absolute path of `script` (an absolute `.mjs` path, without top-level await) bundled by
 * tools/mcp/fixtures/bundle-fixture.mjs (CommonJS, the SDK's schemas made lazy as dist/ has them,
 * unless `plainSchemas`: a script that imports an SDK schema needs them as they are),
 * named by a hash of the contents of `script`, of `local` (absolute paths of the local files it
 * imports), of the bundler and of the lockfile. Written under a temporary name and
 * renamed, so parallel workers never run a half-written file. Throws when the script does not bundle.
 */
export function bundledScript(script: string, local: string[] = [], plainSchemas = false): string {
  const hash = createHash('sha256')
    .update([script, String(plainSchemas), ...[script, ...local, ...TOOLING].map((file) => readFileSync(file, 'utf8'))].join('\0'))
    .update(readFileSync(LOCKFILE, 'utf8'))
    .digest('hex')
    .slice(0, 16);
  const bundle = join(tmpdir(), `openai-acp-fixture-${hash}.cjs`);
  if (!existsSync(bundle)) {
    const partial = `${bundle}.${process.pid}-${randomUUID()}.tmp`;
    try {
      execFileSync(process.execPath, [BUNDLER, script, partial, ...(plainSchemas ? ['plain'] : [])], { stdio: ['ignore', 'ignore', 'inherit'] });
      renameSync(partial, bundle);
    } finally {
      rmSync(partial, { force: true });
    }
  }
  return bundle;
}
