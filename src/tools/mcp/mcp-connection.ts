/**
 * The shapes of a connection to one MCP server, shared by the lazy chunk that makes it
 * (`mcp-connect.lazy.ts`) and the main bundle that uses it (types only: nothing here is loaded).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../shared/log.js';
import type { AddressPolicy } from '../fetch/address-guard.js';
import type { McpPromptInfo, McpPromptMessage } from './mcp-prompts.js';
import type { McpToolInfo } from './mcp-tools.js';
import type { ElicitationModes, McpElicitAnswer, McpElicitParams } from './mcp-elicitation.js';

/** Which transport a connection uses. */
export type McpTransportKind = 'stdio' | 'streamable-http' | 'sse';

/** A live connection to one server. */
export interface McpConnection {
  readonly transport: McpTransportKind;
  /** The stdio server's process id; undefined for http/sse. */
  readonly pid: number | undefined;
  /** The server's tools as last listed (refreshed on `notifications/tools/list_changed`). */
  tools(): readonly McpToolInfo[];
  /**
   * `tools/call`. Rejects on timeout (`timeoutMs`), abort (`signal`, with its reason), a closed
   * connection or an output-schema mismatch; the caller turns that into words.
   */
  callTool(
    tool: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult | { toolResult: unknown }>;
  /** The server's prompts as last listed (refreshed on `notifications/prompts/list_changed`); empty without the prompts capability. */
  prompts(): readonly McpPromptInfo[];
  /** `prompts/get`: the prompt's messages. Rejects as {@link callTool} does. */
  getPrompt(name: string, args: Record<string, string>, options: { signal?: AbortSignal; timeoutMs: number }): Promise<McpPromptMessage[]>;
  /** Closes the client and transport; for stdio also makes sure the process is gone. Never rejects. */
  close(): Promise<void>;
}

/** Options of `connectMcpServer` (`mcp-connect.lazy.ts`). */
export interface ConnectOptions {
  /** Working directory of a stdio server: the session cwd. */
  cwd: string;
  logger: Logger;
  /** Aborting abandons the start: the transport is closed and a stdio process killed. */
  signal: AbortSignal;
  /** The SDK's limit for `initialize` and the first `tools/list`, in ms. */
  timeoutMs: number;
  /** `clientInfo` sent in `initialize`. */
  clientInfo: { name: string; version: string };
  /** Called after the tool list changed (the server sent `list_changed` and it was re-listed). */
  onToolsChanged?: () => void;
  /** Called with the process id as soon as a stdio server is spawned. */
  onSpawn?: (pid: number) => void;
  /** Called once if the connection closes after a successful start (crash, dropped connection). */
  onClosed?: () => void;
  /**
   * The elicitation modes to declare in `initialize` (the ACP client's): with `form`, the client
   * declares `elicitation` (`form`, and `url` too when given) and hands each question to
   * {@link onElicit}; without, it declares none and answers a server that asks anyway `decline`.
   */
  elicitation?: ElicitationModes | undefined;
  /** Asks the user a server's question; `signal` aborts when the server cancels its request. */
  onElicit?: (params: McpElicitParams, signal: AbortSignal) => Promise<McpElicitAnswer>;
  /** Which addresses an HTTP or SSE server may be reached at, checked as each connection opens; absent: any (the global `fetch`). */
  addresses?: AddressPolicy | undefined;
  /**
   * How a stdio server is started: its command and arguments (wrapped in the sandbox when in
   * force) and its whole environment (the agent's, filtered by the policy, with the server's
   * `env` on top). Throws (a message for the user) when it must not start. Absent: the agent's
   * environment without its own key and headers, unconfined.
   */
  prepareStdio?: (command: string, args: readonly string[], env: Record<string, string>) => { command: string; args: string[]; env: Record<string, string> };
}

/** The outcome of `connectMcpServer`. `cleanup` settles when a failed start left nothing running. */
export type ConnectOutcome = { ok: true; connection: McpConnection } | { ok: false; reason: string; cleanup: Promise<void> };
