/**
 * One MCP server of a session as `mcp-servers.ts` holds it: its configuration, where it stands
 * (starting, ready, failed, closed), its connection and process, the tool call it runs; and how
 * it is brought up and kept track of when it stops.
 */
import type { McpServer } from '@agentclientprotocol/sdk/unstable';
import { elicitThroughCall, type RunningCall } from './mcp-call.js';
import type { McpConnection, McpTransportKind } from './mcp-connection.js';
import { startFailureNotice, stoppedNotice } from './mcp-messages.js';
import { type StartOptions, startServer } from './mcp-start.js';

/** Where one server stands. */
export interface McpServerStatus {
  server: string;
  state: 'starting' | 'ready' | 'failed' | 'closed';
  /** The transport of a ready server. */
  transport?: McpTransportKind;
  /** Why it failed, in plain words. */
  reason?: string;
  /** Tools it offers now (0 unless ready). */
  tools: number;
}

/** One server of a session. */
export interface ServerEntry {
  name: string;
  config: McpServer;
  status: McpServerStatus;
  connection?: McpConnection;
  abort: AbortController;
  pid?: number;
  /** The tool call of this server running now (`mcp-call.ts`). */
  active?: RunningCall | undefined;
}

/** A server entry before its start. */
export function newEntry(config: McpServer): ServerEntry {
  return { name: config.name, config, status: { server: config.name, state: 'starting', tools: 0 }, abort: new AbortController() };
}

/** What {@link startEntry} starts with (times in ms); `onToolsChanged` is called when the server's tools may have changed. */
type EntryStartOptions = Pick<StartOptions, 'cwd' | 'logger' | 'connectTimeoutMs' | 'clientInfo' | 'elicitation' | 'addresses'> & {
  clientInfo: { name: string; version: string };
  onToolsChanged?: (() => void) | undefined;
};

/** Where {@link startEntry} reports: notices for the user, and what must settle before the session is closed. */
interface EntryHooks {
  notice: (text: string) => void;
  cleanup: (done: Promise<unknown>) => void;
}

/**
 * Starts the server of `entry`, keeping its status: `ready` with its connection, `failed` with
 * the reason told through `hooks.notice` (also when it stops later), or left `closed` when the
 * session closed meanwhile, whatever is still running handed to `hooks.cleanup`. Settles when
 * it is ready, has failed, or was abandoned. Never rejects.
 */
export async function startEntry(entry: ServerEntry, options: EntryStartOptions, hooks: EntryHooks): Promise<void> {
  const { cwd, logger, connectTimeoutMs, clientInfo, onToolsChanged, elicitation, addresses } = options;
  const began = Date.now();
  const result = await startServer(entry.config, {
    cwd,
    logger,
    connectTimeoutMs,
    clientInfo,
    signal: entry.abort.signal,
    onSpawn: (pid) => (entry.pid = pid),
    elicitation,
    addresses,
    onElicit: (params, signal) => elicitThroughCall(entry, params, signal, logger),
    onToolsChanged: () => onToolsChanged?.(),
    onClosed: () => {
      if (entry.status.state !== 'ready') return;
      entry.status = { server: entry.name, state: 'failed', reason: 'it stopped', tools: 0 };
      hooks.notice(stoppedNotice(entry.name));
      onToolsChanged?.();
    },
  });
  if (!result.ok) {
    hooks.cleanup(result.cleanup);
    if (entry.status.state === 'closed') return;
    entry.status = { server: entry.name, state: 'failed', reason: result.reason, tools: 0 };
    hooks.notice(startFailureNotice(entry.name, result.reason));
    return;
  }
  const { connection } = result;
  if (entry.status.state === 'closed') {
    hooks.cleanup(connection.close());
    return;
  }
  entry.connection = connection;
  entry.status = { server: entry.name, state: 'ready', transport: connection.transport, tools: 0 };
  logger.info(`MCP server "${entry.name}" is ready`, {
    server: entry.name,
    transport: connection.transport,
    tools: connection.tools().length,
    ms: Date.now() - began,
  });
  onToolsChanged?.();
}
