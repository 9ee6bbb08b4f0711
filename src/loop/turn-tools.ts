/**
 * The tools of one prompt turn: which are offered (the built-ins the session's mode allows, and
 * its MCP servers' tools), where they run (through the client when it advertised `fs`/`terminal`,
 * else locally inside the workspace), and how permission choices are remembered.
 */
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';
import type { ProviderProfile } from '../config/provider-profiles.js';
import type { Logger } from '../log.js';
import type { Session } from '../sessions/session-manager.js';
import type { UserNotice } from './notify.js';
import { createClientBackend, type ClientToolCapabilities } from '../tools/backends/client-backend.js';
import { BUILTIN_TOOL_NAMES, builtinChatTools } from '../tools/builtin/registry.js';
import type { FetchLimits } from '../tools/fetch/fetch-page.js';
import type { SearchOptions } from '../tools/search/run-search.js';
import { createLocalBackend } from '../tools/backends/local-backend.js';
import type { McpToolDescriptor } from '../tools/mcp/mcp-tools.js';
import { acpElicitation, type ElicitationModes } from '../tools/mcp/mcp-elicitation.js';
import type { AgentLoopInput, ToolOffer } from './agent-loop.js';
import { rememberChoice, rememberedChoices, sessionMode } from './session-modes.js';
import type { SessionToolState } from './session-tools.js';
import type { AnswerToolCall, TextToolCalls } from './model-request.js';
import { readTextCalls } from '../tools/calls/text/read-text-calls.js';
import { TextCallHold } from '../tools/calls/text/text-call-hold.js';
import { callHint } from '../tools/calls/text/call-hint.js';
import { resolveToolName } from '../tools/calls/tool-name-resolve.js';
import type { TurnExtras } from './turn-extras.js';
import { PLAN_CHAT_TOOL } from '../tools/plan/plan-tool.js';

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
  /** The elicitation modes the client advertised: MCP servers' questions are asked through it. @defaultValue none (declined) */
  elicitation?: ElicitationModes | undefined;
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
  // The same tools in every mode, so a mode change keeps the request's prefix (and the server's
  // prefix cache): the mode is told in the conversation and enforced when a call runs
  // (`decidePermission` refuses edits and commands in `read-only` and `plan`).
  const builtins = input.extras ? [...builtinChatTools(), PLAN_CHAT_TOOL] : builtinChatTools();
  const offer = (): ToolOffer => {
    const mcpTools = new Map<string, McpToolDescriptor>();
    const definitions: NonNullable<ToolOffer['definitions']>[number][] = [...builtins];
    for (const tool of state.mcp?.tools(BUILTIN_TOOL_NAMES, { gemini }) ?? []) {
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
      elicit:
        input.elicitation?.form || input.elicitation?.url
          ? (toolCallId) => acpElicitation({ client, sessionId: session.id, toolCallId, modes: input.elicitation!, logger })
          : undefined,
      fetch: input.fetch,
      search: input.search,
      logger,
    },
    textToolCalls: textToolCallRecogniser,
  };
}

/**
 * The recogniser of tool calls written as text, for the tools of one request
 * (`tools/calls/text/`): their names, and their parameter schemas (so an XML parameter declared a
 * string stays one, e.g. the JSON text of a file's `content`). A call read is handed on as a
 * streamed one would be (`id` empty), with what refusing it needs: how to write it, in the format
 * the model used or, on the text path, the one the request taught.
 * Exported: built from tool definitions alone, so it is checked without a turn.
 * @param textPath - the request is spelled for the text path (`context/text-tool-path.ts`).
 */
export function textToolCallRecogniser(definitions: ToolOffer['definitions'], textPath = false): TextToolCalls {
  const names = definitions.map((tool) => tool.function.name);
  const tools = readerTools(definitions);
  const parameters = new Map<string, unknown>(definitions.map((tool) => [tool.function.name, tool.function.parameters]));
  for (const name of tools.keys())
    if (!parameters.has(name)) parameters.set(name, definitions.find((tool) => tool.function.name.endsWith(`__${name}`))?.function.parameters);
  return {
    hold: () => new TextCallHold(names),
    read: (text, reasoning) => {
      const read = readTextCalls(text, tools, { bare: !reasoning });
      return {
        prose: read.prose,
        calls: read.calls.map((call): AnswerToolCall => {
          // How to write it, for a tool that is offered (for another, the list of tools is the fix).
          const resolved = resolveToolName(call.name, [...tools.keys()])?.name;
          const out: AnswerToolCall = { id: '', name: call.name, arguments: call.arguments };
          if (resolved) out.hint = callHint(call.format, resolved, parameters.get(resolved), textPath);
          if (call.cut) out.cut = true;
          if (call.problem) out.refusal = call.problem;
          return out;
        }),
      };
    },
  };
}

/**
 * The offered tools as the reader of calls in text knows them: each name with its parameters'
 * schemas, and an MCP tool also under its own name without the `<server>__` prefix when no other
 * offered tool has that name (a model writes the name the server gave it; which tool that is, is
 * the runner's to decide).
 */
function readerTools(definitions: ToolOffer['definitions']): Map<string, Record<string, unknown>> {
  const tools = new Map(
    definitions.map((tool) => [tool.function.name, (tool.function.parameters as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}]),
  );
  const bare = new Map<string, string[]>();
  for (const name of tools.keys()) {
    const cut = name.indexOf('__');
    if (cut > 0) bare.set(name.slice(cut + 2), [...(bare.get(name.slice(cut + 2)) ?? []), name]);
  }
  for (const [name, full] of bare) if (full.length === 1 && !tools.has(name)) tools.set(name, tools.get(full[0]!)!);
  return tools;
}

/**
 * The MCP notices not yet shown (servers that failed, are still starting or stopped), for the
 * user: a title (the notice up to its first `:` or `;`), the rest and the fix as the description,
 * and the whole line as a message for clients without notices.
 */
export function mcpNotices(state: SessionToolState | undefined): UserNotice[] {
  return (state?.mcp?.takeNotices() ?? []).map((text) => {
    const cut = /[:;] /.exec(text);
    const title = cut ? text.slice(0, cut.index) : text;
    const rest = cut ? text.slice(cut.index + 2) : '';
    const failed = / could not start$/.test(title);
    const fix = failed
      ? "Check the server's command, arguments and environment in the editor's MCP settings; its stderr is in the agent's log (OPENAI_ACP_LOG=debug)."
      : '';
    const description = [rest && `${rest[0]!.toUpperCase()}${rest.slice(1)}.`, fix].filter(Boolean).join(' ');
    return { severity: failed ? 'error' : 'warning', title, ...(description ? { description } : {}), fallback: { text: `${text}\n\n`, as: 'message' } };
  });
}

/** Told once per session and model when the endpoint said the model takes no tools (they are then left out of its requests). */
export function noToolsNotice(model: string): UserNotice {
  return {
    once: `no-tools:${model}`,
    severity: 'warning',
    title: `${model} takes no tools`,
    description:
      'The server said this model does not support tool calling, so it is asked without tools: it cannot read or edit files or run commands. Choose a model with tool support, or start the server with tool calling on (llama.cpp: --jinja; vLLM: --enable-auto-tool-choice --tool-call-parser).',
  };
}
