/**
 * The tools of one prompt turn: which are offered (the built-ins the session's mode allows, and
 * its MCP servers' tools), where they run (through the client when it advertised `fs`/`terminal`,
 * else locally inside the workspace), and how permission choices are remembered.
 */
import type { AgentContext, SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { ProviderProfile } from '../config/provider-profiles.js';
import type { Logger } from '../log.js';
import type { ToolCallResult } from '../openai/turn-accumulator.js';
import type { Session } from '../sessions/session-manager.js';
import { mayBeTextToolCall, parseTextToolCalls } from '../context/text-tool-calls.js';
import { createClientBackend, type ClientToolCapabilities } from '../tools/client-backend.js';
import { BUILTIN_TOOL_NAMES, builtinChatTools, readOnlyToolNames } from '../tools/definitions.js';
import type { FetchLimits } from '../tools/fetch/fetch-url.js';
import type { SearchOptions } from '../tools/local/search-files.js';
import { createLocalBackend } from '../tools/local/local-backend.js';
import type { McpToolDescriptor } from '../tools/mcp/mcp-tools.js';
import type { AgentLoopInput, ToolOffer } from './agent-loop.js';
import { rememberChoice, rememberedChoices, sessionMode } from './session-modes.js';
import type { SessionToolState } from './session-tools.js';
import { agentText } from './to-acp.js';
import type { TextToolCalls } from './model-request.js';
import type { TurnExtras } from './turn-extras.js';
import { PLAN_CHAT_TOOL } from '../tools/plan-tool.js';
import type { SessionMode } from '../tools/permission.js';

/** What preparing a turn's tools needs. */
export interface TurnToolsInput {
  session: Session;
  state: SessionToolState;
  client: AgentContext;
  capabilities: ClientToolCapabilities;
  /** The endpoint's provider profile (its `geminiToolSchemas` shapes MCP tools' parameter schemas). */
  profile: Pick<ProviderProfile, 'geminiToolSchemas'>;
  /** The turn's plan and checkpoints; absent: no plan tool, no checkpoints. */
  extras?: TurnExtras | undefined;
  logger: Logger;
  /** Saves option changes of the session (remembered permission choices). */
  saveOptions: (options: Record<string, string>) => Promise<void>;
  /** Limits of `fetch_url`. */
  fetch?: FetchLimits | undefined;
  /** How `search_files` runs (`OPENAI_ACP_RIPGREP`, its time budget). */
  search?: SearchOptions | undefined;
}

/** The parts of {@link AgentLoopInput} about tools. */
export type TurnTools = Pick<AgentLoopInput, 'offer' | 'deps' | 'textToolCalls'> & {
  /** Names of the built-ins offered (for the system prompt). */
  builtinNames: string[];
};

/** Prepares the turn's tools. Pure apart from creating the backends. */
export function prepareTurnTools(input: TurnToolsInput): TurnTools {
  const { session, state, client, capabilities, logger } = input;
  const gemini = input.profile.geminiToolSchemas === true;
  // Read at each request: a plan approved in this turn switches the mode, and the tools with it.
  const builtinsFor = (mode: SessionMode) => {
    const builtins = changesNothing(mode) ? builtinChatTools(readOnlyToolNames()) : builtinChatTools();
    return input.extras ? [...builtins, PLAN_CHAT_TOOL] : builtins;
  };
  const builtins = builtinsFor(sessionMode(session));
  const offer = (): ToolOffer => {
    const mcpTools = new Map<string, McpToolDescriptor>();
    const mode = sessionMode(session);
    const readOnly = changesNothing(mode);
    const definitions: NonNullable<ToolOffer['definitions']>[number][] = [...builtinsFor(mode)];
    for (const tool of state.mcp?.tools(BUILTIN_TOOL_NAMES, { gemini }) ?? []) {
      if (readOnly && !tool.readOnly) continue;
      mcpTools.set(tool.name, tool);
      definitions.push({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } });
    }
    return { definitions, mcpTools };
  };
  const local = createLocalBackend(state.roots);
  // Kept up to date as choices are made, so an "always" answered in this turn counts in its next calls.
  const remembered = rememberedChoices(session);
  return {
    offer,
    builtinNames: builtins.map((tool) => tool.function.name),
    deps: {
      sessionId: session.id,
      client,
      backend: input.extras
        ? input.extras.checkpointed(createClientBackend({ client, sessionId: session.id, capabilities, local }), state.roots)
        : createClientBackend({ client, sessionId: session.id, capabilities, local }),
      plan: input.extras?.plan,
      roots: state.roots,
      // Read at each step: a mode chosen while the turn runs applies from its next step.
      get mode() {
        return sessionMode(session);
      },
      remembered,
      remember: async (key, choice) => {
        remembered[key] = choice;
        const change = rememberChoice(key, choice);
        Object.assign(session.options, change);
        await input.saveOptions(change);
        logger.debug('permission choice remembered', { sessionId: session.id, key, choice });
      },
      mcp: state.mcp && { servers: state.mcp, tools: new Map() },
      fetch: input.fetch,
      search: input.search,
      logger,
    },
    textToolCalls: textToolCallRecogniser,
  };
}

/** Modes in which nothing is edited and no command runs: only the read and search tools (and the plan tool) are offered. */
function changesNothing(mode: SessionMode): boolean {
  return mode === 'read-only' || mode === 'plan';
}

/**
 * The recogniser of tool calls written as text, for the tools of one request: their names, and
 * their parameter schemas (so a Qwen XML parameter declared a string stays one, e.g. the JSON
 * text of a file's `content`).
 */
export function textToolCallRecogniser(definitions: ToolOffer['definitions']): TextToolCalls {
  const names = new Set(definitions.map((tool) => tool.function.name));
  const schemas = new Map(definitions.map((tool) => [tool.function.name, ((tool.function.parameters as { properties?: Record<string, unknown> } | undefined)?.properties ?? {})]));
  return {
    pending: (text) => mayBeTextToolCall(text, names),
    parse: (text) => parseTextToolCalls(text, names, schemas)?.map((call): ToolCallResult => ({ id: '', name: call.name, arguments: call.arguments })),
  };
}

/** The MCP notices not yet shown (servers that failed or are still starting), as messages for the user. */
export function mcpNotices(state: SessionToolState | undefined): SessionUpdate[] {
  const notices = state?.mcp?.takeNotices() ?? [];
  return notices.length === 0 ? [] : [agentText(`${notices.join('\n')}\n\n`)];
}
