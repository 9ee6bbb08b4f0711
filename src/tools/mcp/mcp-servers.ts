/**
 * The MCP servers of one ACP session: started in parallel when the session is created, loaded,
 * or resumed; never allowed to block it for long or to fail it; their tools offered beside the
 * built-ins; closed with the session and at exit.
 *
 * The SDK-touching code is the lazy chunk mcp-connect.lazy.ts, imported on the first session that
 * has servers, so a session without MCP servers costs nothing.
 *
 * @example
 * const mcp = startMcpServers(params.mcpServers, { cwd: params.cwd, logger, startupMs: config.mcpStartupMs, toolTimeoutMs: config.mcpToolTimeoutMs });
 * await mcp.ready(); // at most startupMs
 * // before each model request:
 * for (const notice of mcp.takeNotices()) sendAgentMessage(notice);
 * const tools = mcp.tools(BUILT_IN_NAMES, { gemini });
 * // for a tool call of the model:
 * const result = await mcp.call(name, args, { signal });
 * // session/close, session/delete, re-load: await mcp.close(); on exit: await closeAllMcp()
 */
import type { McpServer } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../../log.js';
import type { McpConnection, McpTransportKind } from './mcp-connect.lazy.js';
import { callFailureText, plainMessage, startFailureNotice, stillStartingNotice, stoppedNotice } from './mcp-messages.js';
import type { McpCallResult } from './mcp-result.js';
import { mcpErrorResult, toMcpCallResult } from './mcp-result.js';
import { startServer } from './mcp-start.js';
import type { McpPromptInfo, McpPromptMessage } from './mcp-prompts.js';
import type { McpToolDescriptor } from './mcp-tools.js';
import { describeMcpTools } from './mcp-tools.js';
import { DECLINE, type ElicitationModes, type McpElicit, type McpElicitAnswer, type McpElicitParams } from './mcp-elicitation.js';

/**
 * Defaults when a caller gives no limits (the agent passes the config's, whose defaults are the
 * same: 10 s to start as codex, 60 s per call as the MCP SDK). Not imported from config.ts, so
 * this module stays light for the code that only needs MCP.
 */
const DEFAULT_STARTUP_MS = 10_000;
const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** Options of {@link startMcpServers}. Times in ms. */
export interface McpServersOptions {
  /** The session's working directory: where stdio servers run. */
  cwd: string;
  logger: Logger;
  /** How long {@link McpServers.ready} waits at most. @defaultValue 10_000 */
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
}

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

/** Options of {@link McpServers.tools}. */
export interface McpToolsOptions {
  /** Use the Gemini schema profile. */
  gemini: boolean;
  /** Most MCP tools offered; the rest are left out and logged. @defaultValue 128 - reserved.size (OpenAI's limit is 128 tools) */
  maxTools?: number;
}

interface ServerEntry {
  name: string;
  config: McpServer;
  status: McpServerStatus;
  connection?: McpConnection;
  abort: AbortController;
  pid?: number;
  /** The tool call of this server running now: who asks the user its questions, until when. */
  active?: { elicit: McpElicit | undefined; signal: AbortSignal } | undefined;
}

/** OpenAI rejects more than 128 tools in one request. */
const MAX_TOOLS = 128;
/** Bound on {@link McpServers.close}, in ms: a transport that never settles must not hang exit. */
const CLOSE_BOUND_MS = 3_000;

/**
 * Every session's servers not yet closed, for {@link closeAllMcp}: per process on purpose, since
 * the child processes are, and exit must stop all of them; a session's servers leave it when closed.
 */
const open = new Set<McpServers>();

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * One session's MCP servers. Construct with {@link startMcpServers}. No method throws, and only
 * {@link McpServers.call} rejects (with the signal's reason, when its signal aborts).
 */
export class McpServers {
  readonly #entries: ServerEntry[];
  readonly #options: Required<Omit<McpServersOptions, 'onToolsChanged' | 'elicitation'>> & Pick<McpServersOptions, 'onToolsChanged' | 'elicitation'>;
  readonly #ready: Promise<void>;
  readonly #starts: Promise<void>[];
  readonly #cleanups: Promise<unknown>[] = [];
  #notices: string[] = [];
  /** Model-facing name → server entry and tool, from the last {@link tools} call. */
  #names = new Map<string, { entry: ServerEntry; tool: string }>();
  #leftOutLogged = '';
  /** The last {@link tools} answer and what it was made from (compared by identity). */
  #described: { inputs: readonly unknown[]; tools: readonly McpToolDescriptor[] } | undefined;
  #closing: Promise<void> | undefined;

  constructor(servers: readonly McpServer[], options: McpServersOptions) {
    const startupMs = options.startupMs ?? DEFAULT_STARTUP_MS;
    this.#options = {
      cwd: options.cwd,
      logger: options.logger,
      startupMs,
      toolTimeoutMs: options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      connectTimeoutMs: options.connectTimeoutMs ?? Math.max(startupMs, 30_000),
      clientInfo: options.clientInfo ?? { name: 'openai-acp', version: '0.0.0' },
      onToolsChanged: options.onToolsChanged,
      elicitation: options.elicitation,
    };
    this.#entries = servers.map((config) => ({ name: config.name, config, status: { server: config.name, state: 'starting', tools: 0 }, abort: new AbortController() }));
    this.#starts = this.#entries.map((entry) => this.#start(entry));
    if (this.#entries.length === 0) {
      this.#ready = Promise.resolve();
      return;
    }
    open.add(this);
    this.#ready = Promise.race([Promise.allSettled(this.#starts).then(() => undefined), delay(startupMs).then(() => this.#stillStarting())]);
  }

  /**
   * Resolves when every server has started or failed, or after `startupMs`, whichever is first.
   * Never rejects. Servers still starting then go on in the background and join later.
   */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Each server's state, in the order of `mcpServers`. */
  status(): McpServerStatus[] {
    return this.#entries.map((entry) => ({ ...entry.status, tools: entry.connection?.tools().length ?? 0 }));
  }

  /** Process ids of every stdio server this session spawned (running or not), for tests and diagnostics. */
  pids(): number[] {
    return this.#entries.flatMap((entry) => (entry.pid === undefined ? [] : [entry.pid]));
  }

  /**
   * The tools of the ready servers, named apart from `reserved` (the built-in tool names) and each
   * other; at most `maxTools` (the left-out ones are logged once at warn). Call it before every
   * model request: servers that became ready and `list_changed` refreshes show up here, and
   * {@link call} resolves names against the latest list returned.
   */
  tools(reserved: ReadonlySet<string>, { gemini, maxTools = MAX_TOOLS - reserved.size }: McpToolsOptions): readonly McpToolDescriptor[] {
    const ready = this.#entries.filter((entry) => entry.status.state === 'ready' && entry.connection !== undefined);
    // Described again only when something they depend on changed (a server became ready or
    // stopped, a list_changed refresh, other options): not for every model request.
    const inputs = [reserved, gemini, maxTools, ...ready.flatMap((entry) => [entry, entry.connection!.tools()])];
    const last = this.#described;
    if (last && last.inputs.length === inputs.length && last.inputs.every((input, i) => input === inputs[i])) return last.tools;
    const { tools, leftOut } = describeMcpTools(
      ready.map((entry) => ({ server: entry.name, tools: entry.connection!.tools() })),
      reserved,
      { gemini, maxTools },
    );
    const byServer = new Map(ready.map((entry) => [entry.name, entry]));
    this.#names = new Map(tools.map((tool) => [tool.name, { entry: byServer.get(tool.server)!, tool: tool.tool }]));
    const key = leftOut.join(',');
    if (key !== this.#leftOutLogged) {
      this.#leftOutLogged = key;
      if (leftOut.length > 0) this.#options.logger.warn(`${leftOut.length} MCP tools left out: past the limit of ${maxTools} MCP tools (OpenAI accepts at most ${MAX_TOOLS} tools per request)`, { leftOut });
    }
    this.#described = { inputs, tools };
    return tools;
  }

  /**
   * Calls the tool the model knows as `name` (from the last {@link tools} list) with `args`.
   * Resolves with an error result (`isError: true`, plain words in `text`) for an unknown name,
   * a server that is not running, a timeout (`toolTimeoutMs`), a closed connection, an
   * output-schema mismatch, a question of the server the editor could not ask (`elicit` rejected:
   * the call is stopped with that reason) or any other failure. Rejects only when `signal`
   * aborts, with its reason. While it runs, the server's questions go to `elicit` (absent: declined).
   */
  async call(name: string, args: Record<string, unknown>, { signal, elicit }: { signal?: AbortSignal; elicit?: McpElicit | undefined } = {}): Promise<McpCallResult> {
    signal?.throwIfAborted();
    const target = this.#names.get(name);
    if (target === undefined) return mcpErrorResult(`There is no MCP tool named "${name}".`);
    const { entry, tool } = target;
    if (entry.status.state !== 'ready' || entry.connection === undefined) {
      return mcpErrorResult(`MCP server "${entry.name}" is not running${entry.status.reason ? ` (${entry.status.reason})` : ''}; its tool "${tool}" cannot be called.`);
    }
    const timeoutMs = this.#options.toolTimeoutMs;
    // Ends with the call: a question still open then is withdrawn.
    const over = new AbortController();
    const callSignal = signal ? AbortSignal.any([signal, over.signal]) : over.signal;
    let asking: string | undefined;
    const ask: McpElicit | undefined =
      elicit &&
      (async (params, questionSignal) => {
        try {
          return await elicit(params, questionSignal);
        } catch (error) {
          // The editor could not ask (an error answer): the call stops with that reason.
          if (!questionSignal.aborted) {
            asking = plainMessage(error);
            over.abort(new Error(asking));
          }
          throw error;
        }
      });
    const previous = entry.active;
    entry.active = { elicit: ask, signal: callSignal };
    try {
      return toMcpCallResult(await entry.connection.callTool(tool, args, { signal: callSignal, timeoutMs }));
    } catch (error) {
      signal?.throwIfAborted();
      if (asking !== undefined) return mcpErrorResult(`MCP server "${entry.name}" asked the user a question during its tool "${tool}", and the editor could not ask it: ${asking}. The call was stopped.`);
      this.#options.logger.debug(`MCP tool call failed`, { server: entry.name, tool, error: plainMessage(error) });
      return mcpErrorResult(callFailureText(error, { server: entry.name, tool, timeoutMs }));
    } finally {
      entry.active = previous;
      over.abort(new Error('the tool call ended'));
    }
  }

  /**
   * A server's question: asked through the running call's `elicit`, until the call ends; declined
   * when no call of this server runs or its caller cannot ask.
   */
  async #elicit(entry: ServerEntry, params: McpElicitParams, signal: AbortSignal): Promise<McpElicitAnswer> {
    const active = entry.active;
    if (!active?.elicit) {
      this.#options.logger.info(`MCP server "${entry.name}" asked for input ${active ? 'but the editor cannot ask' : 'while none of its tool calls runs'}; declined`, { server: entry.name });
      return DECLINE;
    }
    return active.elicit(params, AbortSignal.any([signal, active.signal]));
  }

  /** The prompts of the ready servers, with their server's name, in the order of `mcpServers`. */
  prompts(): { server: string; prompt: McpPromptInfo }[] {
    return this.#entries.flatMap((entry) => (entry.status.state === 'ready' && entry.connection ? entry.connection.prompts().map((prompt) => ({ server: entry.name, prompt })) : []));
  }

  /**
   * `prompts/get` of `server`'s prompt `name`: its messages, or an error in plain words (server
   * not running, timeout, the server's own error). Rejects only when `signal` aborts.
   */
  async getPrompt(server: string, name: string, args: Record<string, string>, { signal }: { signal?: AbortSignal } = {}): Promise<{ ok: true; messages: McpPromptMessage[] } | { ok: false; error: string }> {
    signal?.throwIfAborted();
    const entry = this.#entries.find((candidate) => candidate.name === server);
    if (!entry || entry.status.state !== 'ready' || !entry.connection) return { ok: false, error: `MCP server "${server}" is not running` };
    try {
      return { ok: true, messages: await entry.connection.getPrompt(name, args, { signal, timeoutMs: this.#options.toolTimeoutMs }) };
    } catch (error) {
      signal?.throwIfAborted();
      return { ok: false, error: `MCP server "${server}" could not give its prompt "${name}": ${plainMessage(error)}` };
    }
  }

  /** Notices for the user not yet taken (failures, servers still starting, servers that stopped); each is returned once. */
  takeNotices(): string[] {
    const notices = this.#notices;
    this.#notices = [];
    return notices;
  }

  /**
   * Closes every server: starts in progress are abandoned, connections closed, stdio processes
   * checked by pid and killed if needed. Idempotent; never rejects; bounded to a few seconds.
   */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    open.delete(this);
    for (const entry of this.#entries) {
      entry.status.state = 'closed';
      entry.abort.abort(new Error('closed'));
    }
    const all = (async () => {
      await Promise.allSettled(this.#starts);
      await Promise.allSettled([...this.#entries.map((entry) => entry.connection?.close()), ...this.#cleanups]);
    })();
    this.#closing = Promise.race([all, delay(CLOSE_BOUND_MS)]);
    return this.#closing;
  }

  #notice(text: string): void {
    this.#notices.push(text);
    this.#options.logger.warn(text);
  }

  #stillStarting(): void {
    for (const entry of this.#entries) {
      if (entry.status.state === 'starting') this.#notice(stillStartingNotice(entry.name, this.#options.startupMs));
    }
  }

  /** Starts one server; settles when it is ready, has failed, or was abandoned. Never rejects. */
  async #start(entry: ServerEntry): Promise<void> {
    const { cwd, logger, connectTimeoutMs, clientInfo, onToolsChanged, elicitation } = this.#options;
    const began = Date.now();
    const result = await startServer(entry.config, {
      cwd,
      logger,
      connectTimeoutMs,
      clientInfo,
      signal: entry.abort.signal,
      onSpawn: (pid) => (entry.pid = pid),
      elicitation,
      onElicit: (params, signal) => this.#elicit(entry, params, signal),
      onToolsChanged: () => onToolsChanged?.(),
      onClosed: () => {
        if (entry.status.state !== 'ready') return;
        entry.status = { server: entry.name, state: 'failed', reason: 'it stopped', tools: 0 };
        this.#notice(stoppedNotice(entry.name));
        onToolsChanged?.();
      },
    });
    if (!result.ok) {
      this.#cleanups.push(result.cleanup);
      if (entry.status.state === 'closed') return;
      entry.status = { server: entry.name, state: 'failed', reason: result.reason, tools: 0 };
      this.#notice(startFailureNotice(entry.name, result.reason));
      return;
    }
    const { connection } = result;
    if (entry.status.state === 'closed') {
      this.#cleanups.push(connection.close());
      return;
    }
    entry.connection = connection;
    entry.status = { server: entry.name, state: 'ready', transport: connection.transport, tools: 0 };
    logger.info(`MCP server "${entry.name}" is ready`, { server: entry.name, transport: connection.transport, tools: connection.tools().length, ms: Date.now() - began });
    onToolsChanged?.();
  }
}

/**
 * Starts `servers` (a session's `mcpServers` from `session/new`, `session/load` or
 * `session/resume`) in parallel and returns at once. With no servers nothing is loaded.
 */
export function startMcpServers(servers: readonly McpServer[], options: McpServersOptions): McpServers {
  return new McpServers(servers, options);
}

/** Closes the servers of every session (for exit: stdin EOF, SIGTERM). Never rejects. */
export async function closeAllMcp(): Promise<void> {
  await Promise.all([...open].map((servers) => servers.close()));
}
