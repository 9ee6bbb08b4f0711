/**
 * What the operator of `openai-acp serve` lets a remote client point the agent at: which stdio
 * MCP server commands a client may name in `session/new` (a client-supplied command is code
 * execution on this machine, so none by default), and which private addresses HTTP MCP servers
 * and `fetch_url` may reach (`address-guard.ts`). The user's own editor (stdio) has no such
 * limits: it names its own servers. Pure.
 *
 * Source: MCP "Security Best Practices" (https://modelcontextprotocol.io/specification/draft/basic/security_best_practices):
 * a client-supplied local server command runs code and needs consent.
 */
import type { McpServer } from '@agentclientprotocol/sdk/unstable';
import type { AddressPolicy } from '../fetch/address-guard.js';

/** What the operator allows remote clients. */
export interface OperatorAllowances {
  /**
   * The stdio MCP server commands a client may name, each matched exactly against the server's
   * `command` (a bare name as the client gives it, e.g. `npx`, or an absolute path); `*` allows
   * any. @defaultValue none
   */
  mcpCommands: readonly string[];
  /** Which private addresses HTTP MCP servers and `fetch_url` may reach. */
  addresses: AddressPolicy;
}

/** A stdio server of a client's list that the operator did not allow. */
export interface RefusedMcpServer {
  /** Its place in `mcpServers`. */
  index: number;
  name: string;
  command: string;
}

/** Whether `server` is a stdio one (no `type`, or `type: "stdio"`): the one test, for the allow check and the connection alike. */
export const isStdio = (server: McpServer): server is McpServer & { command: string } => {
  const type = (server as { type?: unknown }).type;
  return type === undefined || type === 'stdio';
};

/** The first stdio server of `servers` whose command `allowances` does not allow, or `undefined`. */
export function refusedMcpServer(servers: readonly McpServer[] | null | undefined, allowances: OperatorAllowances): RefusedMcpServer | undefined {
  const allowed = new Set(allowances.mcpCommands);
  if (allowed.has('*')) return undefined;
  for (const [index, server] of (servers ?? []).entries()) {
    if (!isStdio(server)) continue;
    const command = String(server.command ?? '');
    if (!allowed.has(command)) return { index, name: String(server.name ?? ''), command };
  }
  return undefined;
}
