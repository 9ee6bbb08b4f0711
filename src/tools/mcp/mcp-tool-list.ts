/**
 * The MCP tools offered to the model across one session's ready servers: described again only
 * when something they depend on changed (a server became ready or stopped, a `list_changed`
 * refresh, other options), not for every model request; each model-facing name resolved back to
 * its server and tool; the tools left out past the limit logged once per change.
 */
import type { Logger } from '../../log.js';
import { describeMcpTools, type McpToolDescriptor, type McpToolInfo } from './mcp-tools.js';

/** OpenAI rejects more than 128 tools in one request. */
export const MAX_TOOLS = 128;

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

  /**
   * The tools of `ready` (in order), named apart from `reserved` (the built-in tool names) and
   * each other; at most `maxTools`, the rest logged at warn once per different set left out.
   * The same array as last time when nothing it depends on changed.
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
    this.#names = new Map(tools.map((tool) => [tool.name, { server: byName.get(tool.server)!, tool: tool.tool }]));
    const key = leftOut.join(',');
    if (key !== this.#leftOutLogged) {
      this.#leftOutLogged = key;
      if (leftOut.length > 0)
        logger.warn(`${leftOut.length} MCP tools left out: past the limit of ${maxTools} MCP tools (OpenAI accepts at most ${MAX_TOOLS} tools per request)`, {
          leftOut,
        });
    }
    this.#described = { inputs, tools };
    return tools;
  }

  /** The server and tool behind model-facing `name` in the latest list offered; `undefined` when not in it. */
  resolve(name: string): { server: Server; tool: string } | undefined {
    return this.#names.get(name);
  }
}
