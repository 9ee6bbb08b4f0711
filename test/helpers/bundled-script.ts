/**
 * A Node script bundled into one file with esbuild, made once per content in the temp directory:
 * a fixture server that imports the MCP SDK starts in about half the CPU time bundled (Node
 * otherwise resolves and compiles the SDK's and zod's modules one by one, ~0.3 s per start).
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

/** The MCP SDK's `package.json`, so a bundle is made again when the SDK changes. */
const SDK_PACKAGE = new URL('../../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);

/**
 * The path of `entry` (an absolute `.mjs` path) bundled for Node as ESM, named by a hash of the
 * contents of `entry`, of `local` (the absolute paths of the local files it imports) and of the MCP
 * SDK's `package.json`. Written under a temporary name and renamed, so parallel workers never run
 * a half-written file. Throws esbuild's error when the script does not bundle.
 */
export function bundledScript(entry: string, local: string[] = []): string {
  const hash = createHash('sha256')
    .update([entry, ...local].map((file) => readFileSync(file, 'utf8')).join('\0'))
    .update(readFileSync(SDK_PACKAGE, 'utf8'))
    .digest('hex')
    .slice(0, 16);
  const bundle = join(tmpdir(), `openai-acp-fixture-${hash}.mjs`);
  if (!existsSync(bundle)) {
    const partial = `${bundle}.${process.pid}-${randomUUID()}.tmp`;
    buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: partial, logLevel: 'warning' });
    renameSync(partial, bundle);
  }
  return bundle;
}
