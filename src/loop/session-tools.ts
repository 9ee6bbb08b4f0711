/**
 * What a session's tools work with: its workspace roots (`cwd` and `additionalDirectories`) and its
 * MCP servers, started when the session is created, loaded or resumed, and closed with it (a
 * session loaded again with another server list gets new ones); the MCP tools a loaded session
 * offered last offered again before its servers are ready, and the list offered saved with the
 * session when it changed ({@link mcpToolsToSave}). The state is a value the session's live session
 * owns (`app/live-session.ts`); {@link SessionTools} makes and closes it.
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
  type McpToolDescriptor,
  pinWorkspaceRoots,
  startMcpServers,
  type WorkspaceRoots,
} from '../tools/index.js';
import { AGENT_NAME, VERSION } from '../shared/version.js';
import type { SavedMcpTool } from '../sessions/session-records.js';

/** One session's tool state. */
export interface SessionToolState {
  roots: WorkspaceRoots;
  /** The session's MCP servers; absent when it has none. */
  mcp?: McpServers | undefined;
  /** The server list they were started from (JSON), to tell a changed list on a later load. */
  mcpList: string;
  /** The MCP tool list saved with the session last, or read back from it (JSON). @defaultValue `[]` (none) */
  mcpSaved?: string | undefined;
  /** The list last compared with {@link mcpSaved} (by identity: the servers give the same array while nothing changed). */
  mcpCompared?: readonly McpToolDescriptor[] | undefined;
}

/**
 * The MCP tools to save with the session: `offered` (the list its latest request offers) when its
 * JSON differs from the list saved last, which it then becomes; `undefined` when it is the same,
 * or the session has no MCP servers (nothing is ever saved for those).
 */
export function mcpToolsToSave(state: SessionToolState, offered: readonly McpToolDescriptor[]): McpToolDescriptor[] | undefined {
  if (!state.mcp || offered === state.mcpCompared) return undefined;
  state.mcpCompared = offered;
  const json = JSON.stringify(offered);
  if (json === (state.mcpSaved ?? '[]')) return undefined;
  state.mcpSaved = json;
  return [...offered];
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
   * the servers' notices, never thrown. The tools of `savedMcpTools` (a loaded session's) are
   * offered until their servers are ready, which are then not waited for. `held`: the session's
   * state of an earlier open, whose servers are kept when the list is the same (else closed).
   * Returns the session's state now.
   */
  async open(
    held: SessionToolState | undefined,
    cwd: string,
    options: {
      additionalDirectories?: readonly string[] | null | undefined;
      mcpServers?: readonly McpServer[] | null | undefined;
      /** The elicitation modes the ACP client that opened the session advertised, declared to the MCP servers. @defaultValue none */
      elicitation?: ElicitationModes | undefined;
      /** The MCP tools the session offered last, as saved with it (`session/load`, `session/resume`). @defaultValue none */
      savedMcpTools?: readonly SavedMcpTool[] | undefined;
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
    const state: SessionToolState = { roots, mcpList, mcpSaved: JSON.stringify(options.savedMcpTools ?? []) };
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
        saved: options.savedMcpTools,
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
