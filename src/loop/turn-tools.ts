/**
 * The tools of one prompt turn: which are offered (the built-ins the session's mode allows, and
 * its MCP servers' tools), where they run (through the client when it advertised `fs`/`terminal`,
 * else locally inside the workspace), and how permission choices are remembered.
 */
import type { AgentContext } from '@agentclientprotocol/sdk/unstable';
import type { ProviderProfile } from '../config/provider-profiles.js';
import type { Logger } from '../shared/log.js';
import type { Session } from '../sessions/session.js';
import {
  acpElicitation,
  BUILTIN_TOOL_NAMES,
  builtinTools,
  type ClientToolCapabilities,
  createClientBackend,
  createLocalBackend,
  type ElicitationModes,
  mcpTool,
  OfferedTools,
  planTool,
  type Tool,
  type ToolSettings,
} from '../tools/index.js';
import type { TurnTools } from './loop-input.js';
import type { UserNotice } from './notify.js';
import { runPlanCall } from './plan-mode.js';
import { rememberChoice, rememberedChoices, sessionMode } from './session-modes.js';
import { mcpToolsToSave, type SessionToolState } from './session-tools.js';
import type { McpToolsRecord } from '../sessions/session-records.js';
import type { TurnExtras } from './turn-extras.js';

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
  /** Saves the MCP tools offered, when they differ from those saved last (`mcpToolsToSave`); never rejects. @defaultValue not saved */
  saveMcpTools?: ((tools: McpToolsRecord['tools']) => Promise<void>) | undefined;
  /** The built-in tools' settings (`toolSettings`). @defaultValue every tool's defaults */
  settings?: ToolSettings | undefined;
  /** The elicitation modes the client advertised: MCP servers' questions are asked through it. @defaultValue none (declined) */
  elicitation?: ElicitationModes | undefined;
}

/** The turn's tools, and the names of the tools offered in every request (for the system prompt). */
export type PreparedTools = TurnTools & { builtinNames: string[] };

/** Prepares the turn's tools. Pure apart from creating the backends. */
export function prepareTurnTools(input: TurnToolsInput): PreparedTools {
  const { session, state, client, capabilities, logger, extras } = input;
  const gemini = input.profile.geminiToolSchemas === true;
  const direct = createClientBackend({ client, sessionId: session.id, capabilities, local: createLocalBackend(state.roots) });
  const backend = extras ? extras.checkpointed(direct, state.roots) : direct;
  // The same tools in every mode, so a mode change keeps the request's prefix (and the server's
  // prefix cache): the mode is told in the conversation and enforced when a call runs
  // (`decidePermission` refuses edits and commands in `read-only` and `plan`).
  const fixed: Tool[] = builtinTools({ backend, roots: state.roots, settings: input.settings ?? {} });
  if (extras) {
    fixed.push(
      planTool((entries, ctx) =>
        runPlanCall(entries, ctx.toolCall, {
          sessionId: session.id,
          client,
          send: ctx.send,
          mode: sessionMode(session),
          plan: extras.plan,
          logger,
          signal: ctx.signal,
        }),
      ),
    );
  }
  const elicitation = input.elicitation;
  const elicit =
    elicitation?.form || elicitation?.url
      ? (toolCallId: string) => acpElicitation({ client, sessionId: session.id, toolCallId, modes: elicitation, logger })
      : undefined;
  const offer = (): OfferedTools => {
    const descriptors = state.mcp?.tools(BUILTIN_TOOL_NAMES, { gemini }) ?? [];
    // Saved when changed, so a restart offers the same tools before its servers are ready.
    const changed = mcpToolsToSave(state, descriptors);
    if (changed) void input.saveMcpTools?.(changed);
    const mcp = descriptors.map((descriptor) => mcpTool(descriptor, { servers: state.mcp!, elicit }));
    return new OfferedTools([...fixed, ...mcp], new Set(mcp.map((tool) => tool.name)));
  };
  // Kept up to date as choices are made, so an "always" answered in this turn counts in its next calls.
  const remembered = rememberedChoices(session);
  return {
    offer,
    builtinNames: fixed.map((tool) => tool.name),
    session: {
      sessionId: session.id,
      editor: client,
      // Read at each call: a mode chosen while the turn runs applies from its next call.
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
    },
  };
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
    return { severity: failed ? 'error' : 'warning', title, ...(description ? { description } : {}), fallback: { text: `${text}\n\n` } };
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
