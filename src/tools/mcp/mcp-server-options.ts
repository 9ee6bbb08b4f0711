/**
 * What one session's MCP servers are started with (`mcp-servers.ts`): the options a caller gives,
 * their defaults, and the saved tool list kept only for the servers configured now.
 */
import type { McpServer } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../../shared/log.js';
import type { AddressPolicy } from '../fetch/address-guard.js';
import type { ElicitationModes } from './mcp-elicitation.js';
import type { McpToolDescriptor } from './mcp-tools.js';

/**
 * Defaults when a caller gives no limits (the agent passes the config's, whose defaults are the
 * same: 10 s to start as codex, 60 s per call as the MCP SDK). Not imported from config.ts, so
 * this module stays light for the code that only needs MCP.
 */
const DEFAULT_STARTUP_MS = 10_000;
const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** Options of `startMcpServers`. Times in ms. */
export interface McpServersOptions {
  /** The session's working directory: where stdio servers run. */
  cwd: string;
  logger: Logger;
  /** How long `McpServers.ready` waits at most. @defaultValue 10_000 */
  startupMs?: number;
  /** The limit of one tool call. @defaultValue 60_000 */
  toolTimeoutMs?: number;
  /** After this a server still starting is abandoned (process killed). @defaultValue max(startupMs, 30_000) */
  connectTimeoutMs?: number;
  /** `clientInfo` sent to servers in `initialize`. @defaultValue {name: 'openai-acp', version: '0.0.0'} */
  clientInfo?: { name: string; version: string };
  /** Called when the tool list may have changed (a server became ready, changed its tools, or stopped). */
  onToolsChanged?: () => void;
  /** The elicitation modes the ACP client advertised: the servers are offered the same. @defaultValue none */
  elicitation?: ElicitationModes | undefined;
  /**
   * Which addresses HTTP and SSE servers may be reached at (`openai-acp serve`), checked on every
   * connection; absent: any address (servers the user's own editor names).
   */
  addresses?: AddressPolicy | undefined;
  /**
   * The MCP tools the session offered last (saved with it), in their order: offered before the
   * servers are ready, so the first request after a restart carries the same `tools`; a server
   * with saved tools is not waited for by `McpServers.ready`. @defaultValue none
   */
  saved?: readonly McpToolDescriptor[] | undefined;
}

/** {@link McpServersOptions} with every default filled in (`saved` kept apart: {@link savedFor}). */
export type ResolvedOptions = Required<Omit<McpServersOptions, 'onToolsChanged' | 'elicitation' | 'addresses' | 'saved'>> &
  Pick<McpServersOptions, 'onToolsChanged' | 'elicitation' | 'addresses'>;

/** `options` with the defaults of {@link McpServersOptions} filled in. */
export function resolveOptions(options: McpServersOptions): ResolvedOptions {
  const startupMs = options.startupMs ?? DEFAULT_STARTUP_MS;
  return {
    cwd: options.cwd,
    logger: options.logger,
    startupMs,
    toolTimeoutMs: options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    connectTimeoutMs: options.connectTimeoutMs ?? Math.max(startupMs, 30_000),
    clientInfo: options.clientInfo ?? { name: 'openai-acp', version: '0.0.0' },
    onToolsChanged: options.onToolsChanged,
    elicitation: options.elicitation,
    addresses: options.addresses,
  };
}

/** The saved tools whose server is among `servers` (by name), in their order: a server no longer configured is not offered. */
export function savedFor(saved: readonly McpToolDescriptor[] | undefined, servers: readonly McpServer[]): McpToolDescriptor[] {
  const names = new Set(servers.map((server) => server.name));
  return (saved ?? []).filter((tool) => names.has(tool.server));
}
