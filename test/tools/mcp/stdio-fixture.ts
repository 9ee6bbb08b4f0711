/**
 * The stdio MCP fixture server (fixtures/mcp-stdio-server.mjs) as an `mcpServers` entry, bundled
 * once per content ({@link bundledScript}). Its own module, without the MCP SDK imports of
 * helpers.ts, so a test that only starts the fixture does not load the SDK into its worker.
 */
import { fileURLToPath } from 'node:url';
import { bundledScript } from '../../helpers/bundled-script.js';

/** The stdio fixture server's script. */
const STDIO_SERVER = fileURLToPath(new URL('./fixtures/mcp-stdio-server.mjs', import.meta.url));

let bundled: string | undefined;

/** A stdio `mcpServers` entry running the fixture (bundled on first use) with `node` in `mode`. */
export function stdioServer(name: string, mode?: string, env: { name: string; value: string }[] = []) {
  bundled ??= bundledScript(STDIO_SERVER, [fileURLToPath(new URL('./fixtures/mcp-fixture-tools.mjs', import.meta.url))]);
  return { name, command: process.execPath, args: mode ? [bundled, mode] : [bundled], env };
}
