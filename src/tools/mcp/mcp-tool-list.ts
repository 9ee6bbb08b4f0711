/**
 * The MCP tools offered to the model across one session's ready servers: described again only
 * when something they depend on changed (a server became ready or stopped, a `list_changed`
 * refresh, other options), not for every model request; each model-facing name resolved back to
 * its server and tool; the tools left out past the limit logged once per change.
 *
 * A tool once offered stays in the list, in its place, when its server stops or drops it: the
 * request's `tools` keep their bytes, so a server's prefix cache (llama.cpp renders the tools at
 * the top of the prompt) is not read again for a server that failed; a call to such a tool answers
 * that its server is not running (`mcp-call.ts`). Tools that are new are added at the end.
 *
 * A list saved with the session can be given back before any server is ready ({@link McpToolList.seed}):
 * the first request after a restart then carries the same `tools` as the last one before it,
 * even when a server answers late; a call to a seeded tool whose server is not ready yet has no
 * target ({@link McpToolList.resolve}) but names its server ({@link McpToolList.serverOf}).
 */
import type { Logger } from '../../shared/log.js';
import { describeMcpTools, type McpToolDescriptor, type McpToolInfo } from './mcp-tools.js';

/** OpenAI rejects more than 128 tools in one request. */
export const MAX_TOOLS = 128;

/** Options of `McpServers.tools` (`mcp-servers.ts`). */
export interface McpToolsOptions {
  /** Use the Gemini schema profile. */
  gemini: boolean;
  /** Most MCP tools offered; the rest are left out and logged. @defaultValue 128 - reserved.size (OpenAI's limit is 128 tools) */
  maxTools?: number;
}

/** One ready server: its entry (`Server`, compared by identity), name, and current tool list. */
export interface ReadyServer<Server> {
  server: Server;
  name: string;
  /** Compared by identity: a refreshed list is a new array. */
  tools: readonly McpToolInfo[];
}

/** The latest list offered and its names. */
export class McpToolList<Server> {
  #names = new Map<string, { server: Server; tool: string }>();
  #leftOutLogged = '';
  #described: { inputs: readonly unknown[]; tools: readonly McpToolDescriptor[] } | undefined;
  /** Every tool offered so far, in the order first offered. */
  #offered: McpToolDescriptor[] = [];

  /**
   * Offers `tools` (a list saved with the session, in its order) before any server is ready, as
   * if they had been offered: the servers' tools, once ready, take their places. Ignored once a
   * list was offered.
   */
  seed(tools: readonly McpToolDescriptor[]): void {
    if (this.#described !== undefined || this.#offered.length > 0) return;
    this.#offered = [...tools];
  }

  /** The server's name behind model-facing `name` in the latest list offered (ready or not); `undefined` when not in it. */
  serverOf(name: string): string | undefined {
    return this.#offered.find((tool) => tool.name === name)?.server;
  }

  /**
   * The tools of `ready` (in order), named apart from `reserved` (the built-in tool names) and
   * each other, after those offered before (see the module comment); at most `maxTools`, the rest
   * logged at warn once per different set left out. The same array as last time when nothing it
   * depends on changed.
   */
  offer(
    ready: readonly ReadyServer<Server>[],
    reserved: ReadonlySet<string>,
    { gemini, maxTools }: { gemini: boolean; maxTools: number },
    logger: Logger,
  ): readonly McpToolDescriptor[] {
    const inputs = [reserved, gemini, maxTools, ...ready.flatMap((entry) => [entry.server, entry.tools])];
    const last = this.#described;
    if (last && last.inputs.length === inputs.length && last.inputs.every((input, i) => input === inputs[i])) return last.tools;
    const { tools, leftOut } = describeMcpTools(
      ready.map((entry) => ({ server: entry.name, tools: entry.tools })),
      reserved,
      { gemini, maxTools },
    );
    const byName = new Map(ready.map((entry) => [entry.name, entry.server]));
    const fresh = new Map(tools.map((tool) => [tool.name, tool]));
    const names = new Map<string, { server: Server; tool: string }>(tools.map((tool) => [tool.name, { server: byName.get(tool.server)!, tool: tool.tool }]));
    // The tools offered before keep their places (gone ones their old description), new ones follow; past the limit, gone ones go first.
    let offered = [
      ...this.#offered.map((tool) => fresh.get(tool.name) ?? tool),
      ...tools.filter((tool) => !this.#offered.some((old) => old.name === tool.name)),
    ];
    if (offered.length > maxTools) offered = offered.filter((tool) => fresh.has(tool.name)).slice(0, maxTools);
    for (const tool of offered) {
      const before = this.#names.get(tool.name);
      // A seeded tool whose server was never ready has no target.
      if (!names.has(tool.name) && before !== undefined) names.set(tool.name, before);
    }
    this.#names = names;
    this.#offered = offered;
    const key = leftOut.join(',');
    if (key !== this.#leftOutLogged) {
      this.#leftOutLogged = key;
      if (leftOut.length > 0)
        logger.warn(`${leftOut.length} MCP tools left out: past the limit of ${maxTools} MCP tools (OpenAI accepts at most ${MAX_TOOLS} tools per request)`, {
          leftOut,
        });
    }
    this.#described = { inputs, tools: offered };
    return offered;
  }

  /** The server and tool behind model-facing `name` in the latest list offered; `undefined` when not in it. */
  resolve(name: string): { server: Server; tool: string } | undefined {
    return this.#names.get(name);
  }
}
