/**
 * The agent loop of one prompt turn: stream the model's answer; when it asks for tools, run them
 * in order (each call through `tool-call-runner.ts`), give every result back as a `tool` message
 * (one per `tool_call_id`, in the calls' order) and ask the model again, until it answers without
 * tool calls, the step limit is reached, the same call repeats, the turn fails, or it is cancelled.
 * Each request is fitted to the context window by `fitted-request.ts`.
 *
 * Source: OpenAI function calling https://platform.openai.com/docs/guides/function-calling (the
 * assistant message with `tool_calls`, then one `tool` message per call); ACP `max_turn_requests`
 * https://agentclientprotocol.com/protocol/v1/prompt-turn#stop-reasons.
 */
import type { SessionUpdate, Usage } from '@agentclientprotocol/sdk/unstable';
import type { ChatCompletionsClient, ChatRequest } from '../openai/chat-client.js';
import type { ChatRequestContentPart } from '../openai/openai-types.js';
import type { Logger } from '../log.js';
import type { StepRecord, ToolResultRecord } from '../sessions/session-records.js';
import { ContextKeeper, type ContextSources, type ContextState } from '../context/context-keeper.js';
import type { Calibration } from '../context/token-estimate.js';
import { LearnedWindows } from '../endpoints/learned-windows.js';
import { LoopGuard } from '../context/loop-guard.js';
import { uniqueToolCallIds } from '../context/tool-call-ids.js';
import { assistantToolCallMessage, toolResultMessage, type ToolMessageRules } from '../context/tool-messages.js';
import type { McpToolDescriptor } from '../tools/mcp/mcp-tools.js';
import { builtinCutNote } from '../tools/builtin/registry.js';
import { agentText } from './to-acp.js';
import { newMessageId, type Notify } from './notify.js';
import type { CostMeter } from './cost-meter.js';
import { runToolCall, type ToolCallDeps } from './tool-call-runner.js';
import { resolveToolName } from '../tools/calls/tool-name-resolve.js';
import type { TextToolCalls, ModelRequestOutcome } from './model-request.js';
import { TextToolPaths } from '../endpoints/text-tool-path.js';
import { fittedRequest, type TurnCompaction } from './fitted-request.js';
import type { TurnInbox } from '../sessions/turn-inbox.js';
import { steerInto } from './turn-steering.js';

/** The tools of one model request: their definitions for `tools`, and the MCP ones by model-facing name. */
export interface ToolOffer {
  definitions: NonNullable<ChatRequest['tools']>;
  mcpTools: ReadonlyMap<string, McpToolDescriptor>;
}

/** What one turn of the loop needs. */
export interface AgentLoopInput {
  client: ChatCompletionsClient;
  /** The request's model and limits; its messages are planned before each request from `context`. */
  request: Omit<ChatRequest, 'messages'>;
  /** What the requests are made of (system prompt, history, the user's prompt) and the window. */
  context: ContextSources;
  /** The tools offered before each request (so MCP tools that became ready or changed join); absent: no tools. */
  offer?: (() => ToolOffer) | undefined;
  /** Everything a tool call needs but the per-request tool lists. */
  deps?: (Omit<ToolCallDeps, 'offered' | 'mcp' | 'signal' | 'send'> & { mcp?: ToolCallDeps['mcp'] }) | undefined;
  /** How this endpoint wants tool-call messages sent back (its profile's {@link ToolMessageRules}). */
  toolMessageRules: ToolMessageRules;
  /** Most model requests in the turn. */
  maxSteps: number;
  /** Tool-call ids already used in the session's history (calls get ids unique among these). */
  takenIds?: Set<string> | undefined;
  /** True when the model is known to take images: images returned by tools are then sent to it. */
  takesImages: boolean;
  /** Builds the text-tool-call recogniser for the offered tools; absent: none. */
  textToolCalls?: ((definitions: ToolOffer['definitions']) => TextToolCalls) | undefined;
  /** Endpoints and models on the text path (templates without tools): the endpoint's memory (`Endpoint.memory.textPaths`). @defaultValue one for this turn only */
  textPaths?: TextToolPaths | undefined;
  /** Where windows learned from overflow answers are kept for the next turn (`Endpoint.memory.windows`). @defaultValue one for this turn only */
  learned?: LearnedWindows | undefined;
  signal: AbortSignal;
  send: (updates: SessionUpdate[]) => Promise<void>;
  logger: Logger;
  /** The turn's id: the message ids of each step's text and reasoning derive from it (`stepMessageIds`). @defaultValue a fresh id */
  turnId?: string | undefined;
  /** The session's cost meter (see `cost-meter.ts`). */
  cost?: CostMeter | undefined;
  /** Tells the user what is not part of the answer (`notify.ts`). */
  notify?: Notify | undefined;
  /** True when the client advertised `session.compaction`: a compaction is told as `compaction_update`s. */
  compactionUpdates?: boolean | undefined;
  /** The messages the user sends into the turn while it runs (`_session/steering`), open for the loop's whole run. */
  inbox?: TurnInbox | undefined;
}

/** How the turn ended, with its tool steps (for the session record). */
export interface AgentLoopOutcome extends ModelRequestOutcome {
  steps: StepRecord[];
  /** What the next turn starts from (see `ContextState`). */
  context?: ContextState;
  /** The latest request's estimate and the provider's count of it. */
  calibration?: Calibration | undefined;
  /** The compactions made in the turn, when the client is told of them as entities (`fitted-request.ts`). */
  compactions?: TurnCompaction[];
}

/** Said to the model for calls of an answer that were not run because the turn was cancelled. */
const NOT_RUN = 'Not run: the user cancelled the turn.';

/**
 * Runs the turn. Never throws for provider or tool failures (they are explained to the user and
 * to the model respectively); a cancellation returns `cancelled` with the steps completed so far.
 */
export async function runAgentLoop(given: AgentLoopInput): Promise<AgentLoopOutcome> {
  const input = { ...given, textPaths: given.textPaths ?? new TextToolPaths(), learned: given.learned ?? new LearnedWindows() };
  const { signal, send, logger } = input;
  const guard = new LoopGuard(input.maxSteps);
  // A cut tool result says how to get the rest in its tool's own words.
  const keeper = new ContextKeeper({ cutNotes: builtinCutNote, ...input.context });
  const steps: StepRecord[] = [];
  const taken = input.takenIds ?? new Set<string>();
  const turnId = input.turnId ?? newMessageId();
  const compactions: TurnCompaction[] = [];
  let usage: Usage | undefined;
  const ended = (stopReason: ModelRequestOutcome['stopReason'], text = '', reasoning = '', extra: Partial<ModelRequestOutcome> = {}): AgentLoopOutcome => ({
    stopReason,
    text,
    reasoning,
    toolCalls: [],
    steps,
    context: keeper.state(),
    calibration: keeper.latestCalibration,
    ...(usage ? { usage } : {}),
    ...(compactions.length > 0 ? { compactions } : {}),
    ...extra,
  });
  for (;;) {
    // What the user sent into the turn meanwhile joins the conversation before this request.
    steerInto(input.inbox, steps.length, keeper.steps.at(-1));
    const stop = guard.beforeRequest();
    if (stop) {
      logger.info('turn stopped at the step limit', { steps: input.maxSteps });
      await send([agentText(`\n\n${stop.message}`)]);
      return ended('max_turn_requests');
    }
    const offer = input.offer?.();
    const names = new Set(offer?.definitions.map((tool) => tool.function.name) ?? []);
    const outcome = await fittedRequest(input, keeper, offer, { turnId, step: steps.length, compactions });
    usage = addUsage(usage, outcome.usage);
    if ('stop' in outcome) return ended('end_turn', '', '', { error: { kind: 'config', retryable: false } });
    if (outcome.error || outcome.stopReason === 'cancelled' || outcome.toolCalls.length === 0 || !input.deps || !offer) {
      // The user sent messages while this answer came: it stays as a step, and the model is asked again.
      if (!outcome.error && outcome.stopReason !== 'cancelled' && input.inbox?.closeIfEmpty() === false) {
        const step: StepRecord = { text: outcome.text, reasoning: outcome.reasoning, toolCalls: [], results: [] };
        steps.push(step);
        keeper.step(assistantToolCallMessage(step, input.toolMessageRules));
        continue;
      }
      return {
        ...outcome,
        steps,
        context: keeper.state(),
        calibration: keeper.latestCalibration,
        ...(usage ? { usage } : {}),
        ...(compactions.length > 0 ? { compactions } : {}),
      };
    }
    // Providers send no id (some local servers) or reuse them across answers (Kimi via Groq).
    const ids = uniqueToolCallIds(
      outcome.toolCalls.map((call) => call.id),
      taken,
    );
    const calls = outcome.toolCalls.map((call, i) => ({ ...call, id: ids[i]! }));
    const looping = guard.afterAnswer(calls);
    if (looping) {
      logger.warn('turn stopped: the model repeats the same tool call', { tool: calls[0]?.name });
      await send([agentText(`\n\n${looping.message}`)]);
      return ended('max_turn_requests', outcome.text, outcome.reasoning);
    }
    // The history names the tool that runs, not a name with a template token leaked into it:
    // that would go back to the chat template, and servers that check names refuse it.
    const mcpNames = new Set(offer.mcpTools.keys());
    const named = calls.map((call) => ({ ...call, name: resolveToolName(call.name, [...names], mcpNames)?.name ?? call.name }));
    const step: StepRecord = { text: outcome.text, reasoning: outcome.reasoning, toolCalls: named, results: [] };
    steps.push(step);
    const messages = keeper.step(assistantToolCallMessage(step, input.toolMessageRules));
    const deps: ToolCallDeps = {
      ...input.deps,
      offered: [...names],
      mcp: input.deps.mcp && { servers: input.deps.mcp.servers, tools: offer.mcpTools },
      signal,
      send,
    };
    const images: ChatRequestContentPart[] = [];
    // A permission request answered `cancelled` ends the turn as a cancel does.
    let cancelled = false;
    // An answer stopped at its token limit (`finish_reason: length`) was cut inside its last call.
    const cut = outcome.stopReason === 'max_tokens' ? calls[calls.length - 1] : undefined;
    for (const call of calls) {
      let result: ToolResultRecord;
      try {
        const { images: returned, endsTurn, ...record } = signal.aborted || cancelled ? notRun(call.id) : await runToolCall(call, deps, call === cut);
        if (endsTurn) cancelled = true;
        for (const image of returned ?? []) images.push({ type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } });
        result = record;
      } catch (error) {
        if (!signal.aborted) throw error;
        result = notRun(call.id);
      }
      step.results.push(result);
      messages.push(toolResultMessage(call.id, result.forModel));
    }
    if (signal.aborted || cancelled) return ended('cancelled');
    if (input.takesImages && images.length > 0)
      messages.push({ role: 'user', content: [{ type: 'text', text: 'Images returned by the tool calls above:' }, ...images] });
  }
}

function notRun(id: string): ToolResultRecord & { images?: undefined; endsTurn?: undefined } {
  return { id, toolCallId: '', title: '', kind: 'other', status: 'failed', content: [], forModel: NOT_RUN };
}

/** Token counts of the whole turn: each request's added up. */
function addUsage(total: Usage | undefined, next: Usage | undefined): Usage | undefined {
  if (!next) return total;
  if (!total) return { ...next };
  const sum = (a: number | null | undefined, b: number | null | undefined) => (a ?? 0) + (b ?? 0);
  const out: Usage = {
    inputTokens: sum(total.inputTokens, next.inputTokens),
    outputTokens: sum(total.outputTokens, next.outputTokens),
    totalTokens: sum(total.totalTokens, next.totalTokens),
  };
  if (total.thoughtTokens != null || next.thoughtTokens != null) out.thoughtTokens = sum(total.thoughtTokens, next.thoughtTokens);
  if (total.cachedReadTokens != null || next.cachedReadTokens != null) out.cachedReadTokens = sum(total.cachedReadTokens, next.cachedReadTokens);
  return out;
}
