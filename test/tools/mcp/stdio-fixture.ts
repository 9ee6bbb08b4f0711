/**
 * The stdio MCP fixture server (fixtures/mcp-stdio-server.mjs) as an `mcpServers` entry, bundled
 * once per content. Its own module, without the MCP SDK imports of helpers.ts, so a test that only
 * starts the fixture does not load the SDK into its worker.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The stdio fixture server's script. */
const STDIO_SERVER = fileURLToPath(new URL('./fixtures/mcp-stdio-server.mjs', import.meta.url));

/** The script that bundles a fixture (in a child process: esbuild plugins need its async API). */
const BUNDLER = fileURLToPath(new URL('./fixtures/bundle-fixture.mjs', import.meta.url));

/**
 * A fixture server script bundled into one CommonJS file (fixtures/bundle-fixture.mjs), made once
 * per content of the script (and of the fixture tools it may import, the bundler and the lazy
 * schema transform) and SDK version in the temp directory: Node starts it in about 40 % of the
 * CPU time of the script itself, which resolves and compiles the SDK's and zod's modules one by
 * one (the suite starts the stdio fixture some 30 times). Written under a temporary name and
 * renamed, so parallel workers never run a half-written file. `script`: an absolute path of a
 * `.mjs` fixture without top-level await; returns the bundle's absolute path.
 */
function bundledFixture(script: string): string {
  const inputs = [
    script,
    fileURLToPath(new URL('./fixtures/mcp-fixture-tools.mjs', import.meta.url)),
    BUNDLER,
    fileURLToPath(new URL('../../../scripts/lazy-schemas.mjs', import.meta.url)),
  ];
  const sources = inputs.map((file) => readFileSync(file, 'utf8'));
  const sdk = readFileSync(new URL('../../../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8');
  const hash = createHash('sha256')
    .update([script, ...sources, sdk].join('\0'))
    .digest('hex')
    .slice(0, 16);
  const bundle = join(tmpdir(), `openai-acp-mcp-fixture-${hash}.cjs`);
  if (!existsSync(bundle)) {
    const partial = `${bundle}.${process.pid}-${randomUUID()}.tmp`;
    execFileSync(process.execPath, [BUNDLER, script, partial], { stdio: ['ignore', 'ignore', 'inherit'] });
    renameSync(partial, bundle);
  }
  return bundle;
}
let bundled: string | undefined;

/** The stdio fixture server ({@link STDIO_SERVER}) bundled ({@link bundledFixture}), made on first use. */
function bundledStdioServer(): string {
  bundled ??= bundledFixture(STDIO_SERVER);
  return bundled;
}

/** A stdio `mcpServers` entry running the fixture (bundled: {@link bundledFixture}) with `node` in `mode`. */
export function stdioServer(name: string, mode?: string, env: { name: string; value: string }[] = []) {
  const script = bundledStdioServer();
  return { name, command: process.execPath, args: mode ? [script, mode] : [script], env };
}
