/**
 * The MCP servers of one ACP session: started in parallel when the session is created, loaded,
 * or resumed; never allowed to block it for long or to fail it; their tools offered beside the
 * built-ins; closed with the session and at exit.
 *
 * The SDK-touching code is the lazy chunk mcp-connect.lazy.ts, imported on the first session that
 * has servers, so a session without MCP servers costs nothing.
 * One tool call (its limit, the server's questions, failures as results) is `mcp-call.ts`; the
 * list of tools offered and its names, `mcp-tool-list.ts`; one server's start, `mcp-entry.ts`;
 * the options and their defaults, `mcp-server-options.ts`.
 *
 * A tool list saved with the session (`saved`) is offered before the servers are ready; a call
 * of such a tool whose server is still starting waits for it (within the call's signal; the start
 * itself is bounded by `connectTimeoutMs`), then runs or answers why it cannot.
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
import { raceAbort } from '../backends/client-backend.js';
import { newEntry, startEntry, type McpServerStatus, type ServerEntry } from './mcp-entry.js';
import { plainMessage, stillStartingNotice } from './mcp-messages.js';
import { mcpErrorResult, type McpCallResult } from './mcp-result.js';
import { callServerTool } from './mcp-call.js';
import type { McpPromptInfo, McpPromptMessage } from './mcp-prompts.js';
import type { McpToolDescriptor } from './mcp-tools.js';
import { MAX_TOOLS, McpToolList, type McpToolsOptions } from './mcp-tool-list.js';
import type { McpElicit } from './mcp-elicitation.js';
import { type McpServersOptions, type ResolvedOptions, resolveOptions, savedFor } from './mcp-server-options.js';

export type { McpServersOptions } from './mcp-server-options.js';

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
  readonly #options: ResolvedOptions;
  readonly #ready: Promise<void>;
  readonly #starts: Promise<void>[];
  readonly #cleanups: Promise<unknown>[] = [];
  #notices: string[] = [];
  /** The last {@link tools} answer, and the server entry and tool behind each of its names. */
  readonly #list = new McpToolList<ServerEntry>();
  /** The arguments of the last {@link tools} call, to offer again once a server waited for is ready. */
  #lastAsked: Parameters<McpServers['tools']> | undefined;
  #closing: Promise<void> | undefined;

  constructor(servers: readonly McpServer[], options: McpServersOptions) {
    this.#options = resolveOptions(options);
    this.#entries = servers.map(newEntry);
    this.#starts = this.#entries.map((entry) => this.#start(entry));
    if (this.#entries.length === 0) {
      this.#ready = Promise.resolve();
      return;
    }
    open.add(this);
    const saved = savedFor(options.saved, servers);
    this.#list.seed(saved);
    // A server whose tools were saved is not waited for: they are offered already.
    const seeded = new Set(saved.map((tool) => tool.server));
    const awaited = this.#starts.filter((_, i) => !seeded.has(this.#entries[i]!.name));
    const stillStarting = delay(this.#options.startupMs).then(() => this.#stillStarting());
    this.#ready = Promise.race([Promise.allSettled(awaited).then(() => undefined), stillStarting]);
  }

  /**
   * Resolves when every server without saved tools has started or failed, or after `startupMs`,
   * whichever is first. Never rejects. Servers still starting then go on in the background and
   * join later (a saved tool's call waits for its server: {@link call}).
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
    this.#lastAsked = [reserved, { gemini, maxTools }];
    const ready = this.#entries.flatMap((entry) =>
      entry.status.state === 'ready' && entry.connection ? [{ server: entry, name: entry.name, tools: entry.connection.tools() }] : [],
    );
    return this.#list.offer(ready, reserved, { gemini, maxTools }, this.#options.logger);
  }

  /**
   * Calls the tool the model knows as `name` (from the last {@link tools} list) with `args`; a
   * saved tool whose server is still starting waits for that start first. Resolves with an error
   * result (`isError: true`, plain words in `text`) for an unknown name, a server that is not
   * running or could not start, a timeout (`toolTimeoutMs`), a closed connection, an output-schema
   * mismatch, a question of the server the editor could not ask (`elicit` rejected: the call is
   * stopped with that reason) or any other failure. Rejects only when `signal` aborts, with its
   * reason. While it runs, the server's questions go to `elicit` (absent: declined).
   */
  async call(
    name: string,
    args: Record<string, unknown>,
    { signal, elicit }: { signal?: AbortSignal; elicit?: McpElicit | undefined } = {},
  ): Promise<McpCallResult> {
    signal?.throwIfAborted();
    const target = this.#list.resolve(name) ?? (await this.#afterStart(name, signal));
    if (typeof target === 'string') return mcpErrorResult(target);
    return callServerTool(target.server, target.tool, args, { signal, elicit, timeoutMs: this.#options.toolTimeoutMs, logger: this.#options.logger });
  }

  /**
   * The target of `name`, a tool not (yet) behind a ready server: once its server's start settled
   * (waited for within `signal`), the tools offered again; else why it cannot run, in plain words.
   */
  async #afterStart(name: string, signal: AbortSignal | undefined): Promise<{ server: ServerEntry; tool: string } | string> {
    const server = this.#list.serverOf(name);
    const index = this.#entries.findIndex((entry) => entry.name === server);
    const entry = this.#entries[index];
    if (server === undefined || entry === undefined) return `There is no MCP tool named "${name}".`;
    if (entry.status.state === 'starting') {
      this.#options.logger.debug('an MCP tool call waits for its server to start', { server, tool: name });
      const started = this.#starts[index]!;
      await (signal ? raceAbort(started, signal) : started);
    }
    if (this.#lastAsked) this.tools(...this.#lastAsked);
    const target = this.#list.resolve(name);
    if (target) return target;
    const status = entry.status;
    if (status.state === 'failed')
      return `The MCP server "${server}" could not start (${status.reason ?? 'unknown reason'}), so its tool "${name}" cannot run.`;
    if (status.state === 'ready') return `The MCP server "${server}" no longer offers the tool "${name}".`;
    return `The MCP server "${server}" is not running.`;
  }

  /** The prompts of the ready servers, with their server's name, in the order of `mcpServers`. */
  prompts(): { server: string; prompt: McpPromptInfo }[] {
    return this.#entries.flatMap((entry) =>
      entry.status.state === 'ready' && entry.connection ? entry.connection.prompts().map((prompt) => ({ server: entry.name, prompt })) : [],
    );
  }

  /**
   * `prompts/get` of `server`'s prompt `name`: its messages, or an error in plain words (server
   * not running, timeout, the server's own error). Rejects only when `signal` aborts.
   */
  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string>,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<{ ok: true; messages: McpPromptMessage[] } | { ok: false; error: string }> {
    signal?.throwIfAborted();
    const entry = this.#entries.find((candidate) => candidate.name === server);
    if (entry?.status.state !== 'ready' || !entry.connection) return { ok: false, error: `MCP server "${server}" is not running` };
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

  /** Starts one server (`mcp-entry.ts`). Never rejects. */
  #start(entry: ServerEntry): Promise<void> {
    return startEntry(entry, this.#options, { notice: (text) => this.#notice(text), cleanup: (done) => this.#cleanups.push(done) });
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
