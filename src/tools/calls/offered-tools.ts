/**
 * The tools offered in one model request, and the one place a call's tool name is resolved: the
 * offered tool it stands for (`tool-name-resolve.ts`), or a stand-in `Tool` whose check refuses
 * the call with the list of offered tools (never a guess). The loop resolves each call once and
 * hands the result to the runner. Pure.
 */
import { type ChatToolDefinition, chatToolDefinition, type Tool } from '../tool.js';
import { echoArguments } from './check-arguments.js';
import { resolveToolName } from './tool-name-resolve.js';

/** The tool a call names, and the name it runs under (what the history keeps); `renamed` when that is not the name sent. */
export interface CallTarget {
  tool: Tool;
  name: string;
  renamed: boolean;
}

/** The tools of one request. */
export class OfferedTools {
  private readonly names: string[];
  private readonly byName: ReadonlyMap<string, Tool>;

  /**
   * @param tools - in the order they are offered.
   * @param strictNames - names that get no loose match (an MCP tool's: a near name may be another server's tool).
   */
  constructor(
    readonly tools: readonly Tool[],
    private readonly strictNames: ReadonlySet<string> = new Set(),
  ) {
    this.names = tools.map((tool) => tool.name);
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /** The request's `tools` entries, in offering order. */
  definitions(): ChatToolDefinition[] {
    return this.tools.map(chatToolDefinition);
  }

  /** The tool a call's name stands for; for a name that stands for none, a tool that refuses every call of it. */
  resolve(sent: string): CallTarget {
    const resolved = resolveToolName(sent, this.names, this.strictNames);
    const tool = resolved && this.byName.get(resolved.name);
    if (resolved && tool) return { tool, name: resolved.name, renamed: resolved.how !== 'exact' };
    return { tool: unknownTool(sent, this.names), name: sent, renamed: false };
  }
}

/** The error for a tool name that is not offered, listing what is. */
function unknownToolError(name: string, available: readonly string[]): string {
  return `There is no tool named "${echoArguments(name, 80)}". Available tools: ${available.join(', ')}.`;
}

/** A name nobody offered, as a `Tool`: shown under that name, refused before anything runs. */
function unknownTool(name: string, available: readonly string[]): Tool {
  const error = unknownToolError(name, available);
  return {
    name,
    description: '',
    parameters: { type: 'object', properties: {}, required: [] },
    check: () => ({ ok: false, error }),
    permission: () => ({ permission: 'reads', key: name }),
    present: () => ({ title: name, kind: 'other' }),
    run: () => Promise.reject(new Error(`no tool named ${name}`)),
  };
}
