/**
 * The agent loop of one prompt turn: stream the model's answer; when it asks for tools, run them
 * in order (each call through `tool-call-runner.ts`), give every result back as a `tool` message
 * (one per `tool_call_id`, in the calls' order) and ask the model again, until it answers without
 * tool calls, the step limit is reached, the same call repeats, the turn fails, or it is cancelled.
 *
 * Source: OpenAI function calling https://platform.openai.com/docs/guides/function-calling (the
 * assistant message with `tool_calls`, then one `tool` message per call); ACP `max_turn_requests`
 * https://agentclientprotocol.com/protocol/v1/prompt-turn#stop-reasons.
 */
import type { SessionUpdate, Usage } from '@agentclientprotocol/sdk/unstable';
import type { ChatCompletionsClient, ChatRequest } from '../openai/chat-client.js';
import type { ChatMessage, ChatRequestContentPart } from '../openai/openai-types.js';
import type { Logger } from '../log.js';
import type { StepRecord, ToolResultRecord } from '../sessions/session-records.js';
import { ContextKeeper, type ContextSources, type ContextState } from '../context/context-keeper.js';
import { answerRoom, type Calibration } from '../context/token-estimate.js';
import { LearnedWindows } from '../endpoints/learned-windows.js';
import { LoopGuard } from '../context/loop-guard.js';
import { respellToolCallIds, uniqueToolCallIds } from '../context/tool-call-ids.js';
import { assistantToolCallMessage, toolResultMessage, type ToolMessageRules } from '../context/tool-messages.js';
import type { McpToolDescriptor } from '../tools/mcp/mcp-tools.js';
import { builtinCutNote } from '../tools/definitions.js';
import { agentText, agentThought, stepMessageIds } from './to-acp.js';
import { newMessageId, type Notify } from './notify.js';
import { compactionEnded, compactionStarted, compactionSummary } from './compaction-updates.js';
import type { CostMeter } from './cost-meter.js';
import { describeContextOverflow } from '../openai/user-errors.js';
import { runToolCall, type ToolCallDeps } from './tool-call-runner.js';
import { runModelRequest, type TextToolCalls, type ModelRequestOutcome } from './model-request.js';
import { toTextToolPath } from '../context/text-tool-path.js';
import { TextToolPaths } from '../endpoints/text-tool-path.js';

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
  deps?: Omit<ToolCallDeps, 'offered' | 'mcp' | 'signal' | 'send'> & { mcp?: ToolCallDeps['mcp'] } | undefined;
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
}

/** A compaction made inside the turn, for the record (and so for a replay in place). */
export interface TurnCompaction {
  /** Its ACP `compactionId`. */
  id: string;
  /** The steps of the turn done before it (it was made before request `beforeStep`, 0-based). */
  beforeStep: number;
  /** The summary that replaced the earlier context. */
  summary: string;
}

/** How the turn ended, with its tool steps (for the session record). */
export interface AgentLoopOutcome extends ModelRequestOutcome {
  steps: StepRecord[];
  /** What the next turn starts from (see `ContextState`). */
  context?: ContextState;
  /** The latest request's estimate and the provider's count of it. */
  calibration?: Calibration | undefined;
  /** The compactions made in the turn, when the client is told of them as entities. */
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
      return { ...outcome, steps, context: keeper.state(), calibration: keeper.latestCalibration, ...(usage ? { usage } : {}), ...(compactions.length > 0 ? { compactions } : {}) };
    }
    // Providers send no id (some local servers) or reuse them across answers (Kimi via Groq).
    const ids = uniqueToolCallIds(outcome.toolCalls.map((call) => call.id), taken);
    const calls = outcome.toolCalls.map((call, i) => ({ ...call, id: ids[i]! }));
    const looping = guard.afterAnswer(calls);
    if (looping) {
      logger.warn('turn stopped: the model repeats the same tool call', { tool: calls[0]?.name });
      await send([agentText(`\n\n${looping.message}`)]);
      return ended('max_turn_requests', outcome.text, outcome.reasoning);
    }
    const step: StepRecord = { text: outcome.text, reasoning: outcome.reasoning, toolCalls: calls, results: [] };
    steps.push(step);
    const messages = keeper.step(assistantToolCallMessage(step, input.toolMessageRules));
    const deps: ToolCallDeps = { ...input.deps, offered: [...names], mcp: input.deps.mcp && { servers: input.deps.mcp.servers, tools: offer.mcpTools }, signal, send };
    const images: ChatRequestContentPart[] = [];
    // A permission request answered `cancelled` ends the turn as a cancel does.
    let cancelled = false;
    for (const call of calls) {
      let result: ToolResultRecord;
      try {
        const { images: returned, endsTurn, ...record } = signal.aborted || cancelled ? notRun(call.id) : await runToolCall(call, deps);
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
    if (input.takesImages && images.length > 0) messages.push({ role: 'user', content: [{ type: 'text', text: 'Images returned by the tool calls above:' }, ...images] });
  }
}

/**
 * One model request with its messages fitted to the window: the user is told of a compaction or
 * of history left out; an answer saying the prompt was over the window is retried smaller
 * (bounded, `ContextKeeper.overflow`), then the turn ends with a message naming the window and the
 * fix. For an endpoint and model on the text path (`endpoints/text-tool-path.ts`) the request is
 * spelled by `toTextToolPath`; a template error answering a request with tools puts them there
 * and sends the same step again, once. `{ stop }` when the turn must end (the user was told).
 */
async function fittedRequest(
  input: AgentLoopInput & Required<Pick<AgentLoopInput, 'textPaths' | 'learned'>>,
  keeper: ContextKeeper,
  offer: ToolOffer | undefined,
  at: { turnId: string; step: number; compactions: TurnCompaction[] },
): Promise<ModelRequestOutcome | { stop: true; usage?: undefined }> {
  const { signal, send, logger } = input;
  /** The compaction under way in this preparation, when the client is told of compactions as entities. */
  let compactionId: string | undefined;
  const summarize = async (messages: ChatMessage[]) => {
    if (input.compactionUpdates) {
      compactionId = `${at.turnId}-c${at.compactions.length}`;
      await send([compactionStarted(compactionId)]);
    }
    const summary = await runModelRequest({ client: input.client, request: { ...input.request, messages }, signal, send: async () => undefined, logger, cost: input.cost });
    return summary.error || summary.stopReason === 'cancelled' ? undefined : { text: summary.text, toolCalls: summary.toolCalls.length };
  };
  const tools = offer && offer.definitions.length > 0 ? offer.definitions : undefined;
  const paths = input.textPaths;
  const url = input.client.options.url;
  /** Set once an overflow answer named no window and the keeper guessed a smaller one. */
  let guessed = false;
  let overflowed: number | undefined;
  for (;;) {
    compactionId = undefined;
    const prepared = await keeper.prepare(tools, summarize);
    if ('stop' in prepared) {
      if (compactionId) await send([compactionEnded(compactionId, 'failed', prepared.stop)]);
      logger.warn('turn ended: the context window is too small', { contextWindow: keeper.contextWindow });
      await send([agentText(prepared.stop)]);
      return { stop: true };
    }
    let notices = prepared.notices;
    if (compactionId) {
      // The keeper's first notice is the compaction's (`compactionNotice`): told as the entity instead.
      const summary = keeper.state().summary ?? '';
      logger.info(notices[0] ?? 'context compacted');
      notices = notices.slice(1);
      await send([...(summary ? [compactionSummary(compactionId, summary)] : []), compactionEnded(compactionId, signal.aborted ? 'cancelled' : 'completed')]);
      at.compactions.push({ id: compactionId, beforeStep: at.step, summary });
    }
    const messages = respellToolCallIds(prepared.messages, input.toolMessageRules);
    // A template that cannot take tools: they go in the system message, calls and results as text
    // (also for a request without tools whose history has tool calls, e.g. /compact's).
    const toolShaped = tools !== undefined || messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0));
    const textPath = toolShaped && paths.has(url, input.request.model);
    const pathNotice = textPath ? paths.takeNotice(url, input.request.model) : undefined;
    if (pathNotice) {
      logger.info(pathNotice);
      if (input.notify) await input.notify({ severity: 'info', title: 'Tools sent as text', description: pathNotice, fallback: { text: `${pathNotice}\n\n`, as: 'thought' } });
      else notices = [...notices, pathNotice];
    }
    for (const notice of notices) {
      logger.info(notice);
      await send([agentThought(`${notice}\n\n`)]);
    }
    const request: ChatRequest = { ...input.request, messages: textPath ? toTextToolPath(messages, tools ?? []) : messages };
    if (tools && !textPath) request.tools = tools;
    // The answer's cap is the room the plan left it, so a model repeating itself stops there instead of filling the window.
    if (request.maxTokens === undefined && keeper.contextWindow !== undefined) request.maxTokens = answerRoom(keeper.contextWindow);
    const names = tools?.length ?? 0;
    const mayRefuseTools = !textPath && toolShaped;
    const outcome = await runModelRequest({
      client: input.client,
      request,
      signal,
      send,
      contextWindow: keeper.contextWindow,
      windowFix: input.context.windowFix,
      learned: input.learned,
      logger,
      textToolCalls: offer && names > 0 ? input.textToolCalls?.(offer.definitions) : undefined,
      mayRefuseTools,
      messageIds: stepMessageIds(at.turnId, at.step),
      cost: input.cost,
      notify: input.notify,
    });
    if (outcome.templateRefused) {
      // Once: the step goes again on the text path, where a refusal is explained like any failure.
      logger.warn('the chat template cannot take tools; using the text path for this endpoint and model', { model: input.request.model });
      paths.use(url, input.request.model, 'template-error');
      continue;
    }
    if (!outcome.overflow) {
      keeper.calibrate(outcome.usage?.inputTokens);
      // The size that worked after an overflow that named no window is remembered, so the next turn starts there.
      if (guessed && !outcome.error && keeper.contextWindow !== undefined) {
        input.learned.learn(input.client.options.url, input.request.model, keeper.contextWindow);
        logger.info('remembering the context window that worked after an overflow answer that named none', { model: input.request.model, contextWindow: keeper.contextWindow });
      }
      if (overflowed !== undefined && !outcome.error && outcome.stopReason !== 'cancelled') await input.notify?.(overflowRecovered(keeper.contextWindow ?? overflowed, input.context.windowFix));
      return outcome;
    }
    overflowed = outcome.overflow.window ?? keeper.contextWindow ?? 0;
    logger.warn('the server says the prompt is over the context window', { contextWindow: keeper.contextWindow, told: outcome.overflow.window });
    if (outcome.overflow.window === undefined) guessed = true;
    if (!keeper.overflow(outcome.overflow.window)) {
      await send([agentText(`${keeper.steps.length > 0 ? '\n\n' : ''}${describeContextOverflow({ window: outcome.overflow.window ?? keeper.contextWindow }, input.context.windowFix)}`)]);
      return { ...outcome, error: outcome.error ?? { kind: 'http', retryable: false } };
    }
  }
}

/** Told once per session when a request over the window was sent again smaller and went through. */
export function overflowRecovered(window: number, windowFix: string | undefined): Parameters<Notify>[0] {
  const size = window > 0 ? ` (${String(Math.round(window)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} tokens)` : '';
  return {
    once: 'overflow-recovered',
    severity: 'warning',
    title: 'Request cut to fit the context window',
    description: `The server said the request was over the model's context window${size}, so openai-acp sent it again with less of the history. To give the model more room: ${windowFix ?? 'run it with a larger context window and set OPENAI_CONTEXT_WINDOW to it'}.`,
  };
}

function notRun(id: string): ToolResultRecord & { images?: undefined; endsTurn?: undefined } {
  return { id, toolCallId: '', title: '', kind: 'other', status: 'failed', content: [], forModel: NOT_RUN };
}

/** Token counts of the whole turn: each request's added up. */
function addUsage(total: Usage | undefined, next: Usage | undefined): Usage | undefined {
  if (!next) return total;
  if (!total) return { ...next };
  const sum = (a: number | null | undefined, b: number | null | undefined) => (a ?? 0) + (b ?? 0);
  const out: Usage = { inputTokens: sum(total.inputTokens, next.inputTokens), outputTokens: sum(total.outputTokens, next.outputTokens), totalTokens: sum(total.totalTokens, next.totalTokens) };
  if (total.thoughtTokens != null || next.thoughtTokens != null) out.thoughtTokens = sum(total.thoughtTokens, next.thoughtTokens);
  if (total.cachedReadTokens != null || next.cachedReadTokens != null) out.cachedReadTokens = sum(total.cachedReadTokens, next.cachedReadTokens);
  return out;
}
