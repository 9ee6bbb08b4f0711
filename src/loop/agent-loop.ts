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
import type { Usage } from '@agentclientprotocol/sdk/unstable';
import { ContextKeeper, type ContextState } from '../context/context-keeper.js';
import { LoopGuard } from './loop-guard.js';
import type { Calibration } from '../context/token-estimate.js';
import { uniqueToolCallIds } from '../context/tool-call-ids.js';
import { assistantToolCallMessage, toolResultMessage } from '../context/tool-messages.js';
import { LearnedFacts } from '../endpoints/learned-facts.js';
import type { ChatRequestContentPart } from '../openai/openai-types.js';
import type { StepRecord, ToolResultRecord } from '../sessions/session-records.js';
import { MAX_CALLS_PER_ANSWER, toolCutNote } from '../tools/index.js';
import { fittedRequest, type TurnCompaction } from './fitted-request.js';
import type { AgentLoopInput, LoopTurn } from './loop-input.js';
import type { ModelRequestOutcome } from './model-request.js';
import { agentText, stepMessageIds } from './to-acp.js';
import { runToolCall } from './tool-call-runner.js';
import { steerInto } from './turn-steering.js';

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

/**
 * A turn the loop guard stopped, as a failure (`kind: "loop"`): programs see it as they see a
 * failed turn (acpx exits non-zero), the user reads why in the error's message.
 */
function loopStop(message: string): NonNullable<ModelRequestOutcome['error']> {
  return { kind: 'loop', retryable: false, message };
}

/** Said to the model for calls of an answer that were not run because the turn was cancelled. */
const NOT_RUN = 'Not run: the user cancelled the turn.';

/**
 * Runs `turn`: its updates go to `turn.send`, its steering messages come from `turn.inbox`, and
 * `turn.signal` cancels it. Never throws for provider or tool failures (they are explained to the user and
 * to the model respectively); a cancellation returns `cancelled` with the steps completed so far.
 */
export async function runAgentLoop(turn: LoopTurn, { context, endpoint, tools, limits, callbacks }: AgentLoopInput): Promise<AgentLoopOutcome> {
  const { signal, send, inbox } = turn;
  const { logger } = callbacks;
  const fitted = { ...endpoint, learned: endpoint.learned ?? new LearnedFacts() };
  const guard = new LoopGuard(limits.maxSteps);
  // A cut tool result says how to get the rest in its tool's own words.
  const keeper = new ContextKeeper({ cutNotes: toolCutNote, ...context });
  const steps: StepRecord[] = [];
  const taken = tools?.takenIds ?? new Set<string>();
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
    steerInto(inbox, steps.length, keeper.steps.at(-1));
    const stop = guard.beforeRequest();
    if (stop) {
      logger.info('turn stopped at the step limit', { steps: limits.maxSteps });
      return ended('max_turn_requests', '', '', { error: loopStop(stop.message) });
    }
    const offered = tools?.offer();
    const outcome = await fittedRequest(turn, { endpoint: fitted, callbacks }, keeper, {
      tools: offered?.definitions() ?? [],
      windowFix: context.windowFix,
      index: steps.length,
      compactions,
    });
    usage = addUsage(usage, outcome.usage);
    if ('stop' in outcome) return ended('end_turn', '', '', { error: { kind: 'config', retryable: false, message: outcome.stop } });
    if (outcome.error || outcome.stopReason === 'cancelled' || outcome.toolCalls.length === 0 || !tools || !offered || tools.answerOnly) {
      // The user sent messages while this answer came: it stays as a step, and the model is asked again.
      if (!outcome.error && outcome.stopReason !== 'cancelled' && inbox?.closeIfEmpty() === false) {
        const step: StepRecord = { text: outcome.text, reasoning: outcome.reasoning, toolCalls: [], results: [] };
        // The next answer starts a paragraph of its own: a client without a steering view shows both answers in one message.
        if (outcome.text && !outcome.text.endsWith('\n\n'))
          await send([agentText(outcome.text.endsWith('\n') ? '\n' : '\n\n', stepMessageIds(turn.turnId, steps.length).text)]);
        steps.push(step);
        keeper.step(assistantToolCallMessage(step, endpoint.toolMessageRules));
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
    // At most MAX_CALLS_PER_ANSWER calls of one answer run; the rest are left out of the history too.
    const answered = outcome.toolCalls.slice(0, MAX_CALLS_PER_ANSWER);
    const leftOut = outcome.toolCalls.length - answered.length;
    // Providers send no id (some local servers) or reuse them across answers (Kimi via Groq).
    const ids = uniqueToolCallIds(
      answered.map((call) => call.id),
      taken,
    );
    const calls = answered.map((call, i) => ({ ...call, id: ids[i]! }));
    const looping = guard.afterAnswer(calls);
    if (looping) {
      logger.warn('turn stopped: the model repeats the same tool call', { tool: calls[0]?.name });
      if (outcome.text && !outcome.text.endsWith('\n')) await send([agentText('\n')]);
      return ended('max_turn_requests', outcome.text, outcome.reasoning, { error: loopStop(looping.message) });
    }
    // Each name is resolved once. The history names the tool that runs, not a name with a template
    // token leaked into it: that would go back to the chat template, and servers that check names refuse it.
    const targets = calls.map((call) => offered.resolve(call.name));
    const step: StepRecord = {
      text: outcome.text,
      reasoning: outcome.reasoning,
      toolCalls: calls.map((call, i) => ({ ...call, name: targets[i]!.name })),
      results: [],
    };
    steps.push(step);
    const messages = keeper.step(assistantToolCallMessage(step, endpoint.toolMessageRules));
    const images: ChatRequestContentPart[] = [];
    // A permission request answered `cancelled` ends the turn as a cancel does.
    let cancelled = false;
    // An answer stopped at its token limit (`finish_reason: length`) was cut inside its last call,
    // unless more of the answer followed that call (a call read from text, then prose); a call
    // read from text may also end with the text.
    const last = outcome.stopReason === 'max_tokens' && !calls.at(-1)?.followed ? calls.at(-1) : undefined;
    for (const [i, call] of calls.entries()) {
      let result: ToolResultRecord;
      try {
        const {
          images: returned,
          endsTurn,
          ...record
        } = signal.aborted || cancelled
          ? notRun(call.id)
          : await runToolCall({ signal, send, logger }, call === last ? { ...call, cut: true } : call, targets[i]!, tools.session);
        if (endsTurn) cancelled = true;
        for (const image of returned ?? []) images.push({ type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } });
        result = record;
      } catch (error) {
        if (!signal.aborted) throw error;
        result = notRun(call.id);
      }
      if (leftOut > 0 && i === calls.length - 1) result = { ...result, forModel: `${result.forModel}\n\n${leftOutNote(leftOut)}` };
      step.results.push(result);
      messages.push(toolResultMessage(call.id, result.forModel));
    }
    if (signal.aborted || cancelled) return ended('cancelled');
    if (endpoint.takesImages && images.length > 0)
      messages.push({ role: 'user', content: [{ type: 'text', text: 'Images returned by the tool calls above:' }, ...images] });
  }
}

/** Said after the last result when an answer asked for more calls than run. */
function leftOutNote(count: number): string {
  return `(${count} more tool ${count === 1 ? 'call of that answer was' : 'calls of that answer were'} not run: at most ${MAX_CALLS_PER_ANSWER} calls run per answer. Ask again for what is still needed.)`;
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
