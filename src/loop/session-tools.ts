/**
 * What a session's tools work with: its workspace roots (`cwd` and `additionalDirectories`) and its
 * MCP servers, started when the session is created, loaded or resumed, and closed with it (a
 * session loaded again with another server list gets new ones). The state is a value the session's
 * live session owns (`app/live-session.ts`); {@link SessionTools} makes and closes it.
 *
 * Sources: ACP `session/new` `mcpServers` and `additionalDirectories`
 * (https://agentclientprotocol.com/protocol/v1/session-setup); MCP start-up bounded, visible and
 * non-fatal, as Claude Code and codex start theirs.
 */
import type { McpServer } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../shared/log.js';
import {
  type AddressPolicy,
  closeAllMcp,
  type ElicitationModes,
  type McpServers,
  pinWorkspaceRoots,
  startMcpServers,
  type WorkspaceRoots,
} from '../tools/index.js';
import { AGENT_NAME, VERSION } from '../shared/version.js';

/** One session's tool state. */
export interface SessionToolState {
  roots: WorkspaceRoots;
  /** The session's MCP servers; absent when it has none. */
  mcp?: McpServers | undefined;
  /** The server list they were started from (JSON), to tell a changed list on a later load. */
  mcpList: string;
}

/** Options of the MCP start. */
export interface McpLimits {
  /** Longest wait for the servers in total, in ms. */
  startupMs: number;
  /** Limit of one tool call, in ms. */
  toolTimeoutMs: number;
  /** Which private addresses HTTP MCP servers may be reached at; absent: any address (the user's own editor). */
  addresses?: AddressPolicy | undefined;
}

/** Makes and closes sessions' tool states, with the agent's MCP limits; one per agent. */
export class SessionTools {
  constructor(
    private readonly logger: Logger,
    private readonly limits: () => McpLimits,
  ) {}

  /**
   * Sets up the session's roots and starts its MCP servers (all at once), waiting for them at most
   * `startupMs` in total: a server still starting joins later, a failing one is reported through
   * the servers' notices, never thrown. `held`: the session's state of an earlier open, whose
   * servers are kept when the list is the same (else closed). Returns the session's state now.
   */
  async open(
    held: SessionToolState | undefined,
    cwd: string,
    options: {
      additionalDirectories?: readonly string[] | null | undefined;
      mcpServers?: readonly McpServer[] | null | undefined;
      /** The elicitation modes the ACP client that opened the session advertised, declared to the MCP servers. @defaultValue none */
      elicitation?: ElicitationModes | undefined;
    },
  ): Promise<SessionToolState> {
    const servers = [...(options.mcpServers ?? [])];
    const mcpList = JSON.stringify(servers);
    // Where the roots really are is fixed now: a folder swapped for a symlink later is not followed.
    const roots: WorkspaceRoots = pinWorkspaceRoots({
      cwd,
      extra: [...(options.additionalDirectories ?? [])].filter((dir) => typeof dir === 'string' && dir.startsWith('/')),
    });
    if (held && held.mcpList === mcpList) {
      held.roots = roots;
      return held;
    }
    if (held?.mcp) await held.mcp.close();
    const state: SessionToolState = { roots, mcpList };
    if (servers.length > 0) {
      const { startupMs, toolTimeoutMs, addresses } = this.limits();
      state.mcp = startMcpServers(servers, {
        cwd,
        addresses,
        logger: this.logger,
        startupMs,
        toolTimeoutMs,
        elicitation: options.elicitation,
        clientInfo: { name: AGENT_NAME, version: VERSION },
      });
      await state.mcp.ready();
    }
    return state;
  }

  /** Closes every session's servers (exit). Never rejects. */
  async closeAll(): Promise<void> {
    await closeAllMcp();
  }
}
