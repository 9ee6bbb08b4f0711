/**
 * The context planner: what one request of a turn sends so that it fits the model's context
 * window, at every step of a tool loop. Pure and deterministic.
 *
 * A request is the system prompt (then the summary of what came before, if any), the earlier
 * turns, the user message that started this turn (the task), the turn's steps so far (assistant
 * `tool_calls` and their `tool` results) and the tool definitions. Budget = window − the answer's
 * room − a margin (`token-estimate.ts`). To fit it:
 * 1. every tool result is cut to {@link RESULT_SHARE} of the budget (head and tail, a note saying
 *    how to get the rest: `context-cut.ts`); a task over half the window is cut the same way;
 * 2. when the request is over the budget, tool results (never the current step's) are replaced by
 *    one-line stubs, enough of them at once to bring it down to half of the room for history
 *    (hysteresis: many steps then append before the next cut). A server's prefix cache reads
 *    everything after the first byte that changed again, so the block is cut as late as it can
 *    be: the newest results within an eighth of that room stay (the model's working set), and the
 *    block runs back from just before them, newest first, as far as it must (the old results
 *    before it stay cached); only when all of those are stubs are the recent ones stubbed too,
 *    oldest first (`result-pruning.ts`). Which results are stubs is sticky: the caller passes the
 *    ranges back in;
 * 3. when stubs are not enough, a summary of the earlier turns and steps is needed (`compact`); the
 *    messages returned meanwhile leave out the oldest whole turns, then the oldest steps;
 * 4. then the current step's results are cut further, to share what is left;
 * 5. when the system prompt, the tools, the task and the answer's room alone exceed the window,
 *    nothing is planned: `minimumWindow` says the smallest window that would do.
 * Source of the two tiers (stubs, then a summary): opencode `session/compaction.ts`, with budgets
 * as fractions of the real window instead of its fixed 40,000 / 32,000 tokens. Keeping the oldest
 * and the newest and cutting the middle is OpenRouter's `middle-out` transform
 * (https://openrouter.ai/docs/features/message-transforms), here by stubs rather than dropped messages.
 */
import type { ChatMessage, ChatToolCall } from '../openai/openai-types.js';
import { summaryMessages } from './compaction.js';
import { cutText, cutUserMessage, plainNote, type CutNotes } from './context-cut.js';
import { capped, pruned, shareCurrent, stubbableSlots, stubSlot, sumTokens, type Slot } from './result-pruning.js';
import { NO_STUBS, rangesOf, stubFlags, stubRanges, type StubRanges } from './stub-ranges.js';
import {
  calibrationFactor,
  estimateMessageTokens,
  estimateToolTokens,
  positive,
  promptBudget,
  REPLY_PRIMING_TOKENS,
  type Calibration,
} from './token-estimate.js';

/**
 * Most of the budget one tool result may take: 15 %, so the history holds several steps and a
 * cut frees room for many (bench/agent-efficiency.mjs: prefix reuse 85.9 % at 8k with it, 81.9 %
 * at a fifth, 76.9 % at a quarter).
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const RESULT_SHARE = 0.15;
/** Most of the budget the summary of earlier work may take: a quarter. */
export const SUMMARY_SHARE = 0.25;
/** Largest part of the window the task may take before it is cut: half. */
const TASK_SHARE = 0.5;

/** What {@link fitContext} plans from. */
export interface ContextFitInput {
  /** The system prompt's text; always sent. */
  system?: string | undefined;
  /** The summary of what came before `turns` (a /compact, a compaction), sent after the system message as the answer to the request for it. */
  summary?: string | undefined;
  /** Earlier turns, oldest first, each `[user, assistant…, tool…]`. */
  turns: ReadonlyArray<ReadonlyArray<ChatMessage>>;
  /** The user message that started this turn; always sent. */
  task: ChatMessage;
  /** This turn's steps so far, oldest first, each `[assistant with tool_calls, tool…, user images?]`; the last is the current one. */
  steps?: ReadonlyArray<ReadonlyArray<ChatMessage>> | undefined;
  /** The request's tool definitions (their JSON counts against the window). */
  tools?: readonly unknown[] | undefined;
  /** The window in tokens; `undefined` (or not positive): nothing is cut or left out. */
  contextWindow: number | undefined;
  /** The request's `max_tokens`: the answer's room. */
  maxTokens?: number | undefined;
  /** The answer's room, overriding `maxTokens` and the default (no margin is added then). */
  reserveTokens?: number | undefined;
  /**
   * Tokens the prompt may take when the answer's room is not a turn's (a summary request, whose
   * answer is smaller): results are still cut to their share of the turn's budget, so the request
   * repeats the turn's bytes. @defaultValue the turn's budget ({@link promptBudget})
   */
  promptTokens?: number | undefined;
  /** An earlier request's estimate and the provider's count (see `calibrationFactor`). */
  calibration?: Calibration | undefined;
  /** Tool results (indexes oldest first, over turns then steps) already replaced by stubs; a count `n` is the first `n`. @defaultValue none */
  stubbed?: number | StubRanges | undefined;
  /** The note a cut result of the tool `name` carries, saying how to get the rest; undefined: a generic note. */
  cutNotes?: CutNotes | undefined;
}

/** The planned request. */
export interface ContextFit {
  /** What to send: system, kept turns, task, kept steps. */
  messages: ChatMessage[];
  /** Tool results now replaced by stubs: pass it back as `stubbed` next time. */
  stubbed: StubRanges;
  /** Oldest earlier turns left out (only when a summary is needed and was not made). */
  droppedTurns: number;
  /** Oldest steps of this turn left out (likewise). */
  droppedSteps: number;
  /** True when the earlier turns and steps (all but the current step) should be summarised to fit. */
  compact: boolean;
  /** True when the task was cut to {@link TASK_SHARE} of the window. */
  taskCut: boolean;
  /** False when the request does not fit even so (then do not send it). */
  fits: boolean;
  /** When the fixed part (system, summary, tools, task, answer room) alone is over the window: the smallest window that fits it. */
  minimumWindow?: number;
  /** Calibrated estimate of messages and tools, in tokens. */
  estimatedTokens: number;
  /** Uncalibrated estimate of messages and tools: the next `calibration.estimated`. */
  rawEstimatedTokens: number;
  /** Tokens the prompt may take; `undefined` without a window. */
  budget: number | undefined;
}

/**
 * What opens every request: the system message (the prompt alone, byte-stable, so the server's
 * prefix cache keeps it and the tools after a compaction), then the summary as the answer to the
 * request that asked for it ({@link summaryMessages}).
 */
function openingMessages(system: string | undefined, summary: string | undefined): ChatMessage[] {
  return [...(system ? [{ role: 'system', content: system } satisfies ChatMessage] : []), ...(summary ? summaryMessages(summary) : [])];
}

/** Plans one request (see the module comment). Pure. */
export function fitContext(input: ContextFitInput): ContextFit {
  const window = positive(input.contextWindow) ? input.contextWindow : undefined;
  const steps = input.steps ?? [];
  const toolTokens = estimateToolTokens(input.tools);
  if (window === undefined) {
    const messages = assemble(openingMessages(input.system, input.summary), input.turns, input.task, steps);
    const raw = REPLY_PRIMING_TOKENS + sumTokens(messages) + toolTokens;
    return {
      messages,
      stubbed: NO_STUBS,
      droppedTurns: 0,
      droppedSteps: 0,
      compact: false,
      taskCut: false,
      fits: true,
      estimatedTokens: raw,
      rawEstimatedTokens: raw,
      budget: undefined,
    };
  }
  const factor = calibrationFactor(input.calibration);
  const turnBudget = promptBudget(window, input.maxTokens, input.reserveTokens);
  const budget = input.promptTokens ?? turnBudget;
  const fixed = fixedPart(input, window, factor, toolTokens);
  if (fixed.raw > Math.floor(budget / factor)) {
    const messages = [...fixed.opening, fixed.task];
    return {
      messages,
      stubbed: NO_STUBS,
      droppedTurns: 0,
      droppedSteps: 0,
      compact: false,
      taskCut: fixed.taskCut,
      fits: false,
      minimumWindow: minimumWindow(input, toolTokens, factor),
      estimatedTokens: Math.ceil(fixed.raw * factor),
      rawEstimatedTokens: fixed.raw,
      budget,
    };
  }
  const rawBudget = Math.floor(budget / factor);
  // Not scaled by the calibration, which moves a little with every answer: a result is cut the
  // same way in every request, so the requests keep their common prefix (prefix caches).
  const share = Math.max(1, Math.floor(turnBudget * RESULT_SHARE));

  // Copies of turns and steps with every tool result cut to its share.
  const calls = new Map<string, ChatToolCall>();
  const turns = input.turns.map((turn) => capped(turn, share, calls, input.cutNotes));
  const stepLists = steps.map((step) => capped(step, share, calls, input.cutNotes));
  // The slots that may be stubbed: every tool result but the current step's.
  const slots = stubbableSlots([...turns, ...stepLists.slice(0, -1)]);
  const stub = (slot: Slot) => stubSlot(slot, calls);
  const flags = stubFlags(stubRanges(input.stubbed), slots.length);
  for (const [i, slot] of slots.entries()) if (flags[i]) stub(slot);
  let raw = fixed.raw + turns.reduce((t, m) => t + sumTokens(m), 0) + stepLists.reduce((t, m) => t + sumTokens(m), 0);
  if (raw > rawBudget) raw = pruned(slots, flags, stub, raw, fixed.raw, rawBudget);
  let droppedTurns = 0;
  let droppedSteps = 0;
  const compact = raw > rawBudget && (turns.length > 0 || stepLists.length > 1);
  while (raw > rawBudget && droppedTurns < turns.length) raw -= sumTokens(turns[droppedTurns++]!);
  while (raw > rawBudget && droppedSteps < stepLists.length - 1) raw -= sumTokens(stepLists[droppedSteps++]!);
  const current = stepLists.at(-1);
  if (raw > rawBudget && current) {
    const others = raw - sumTokens(current);
    raw = others + shareCurrent(current, rawBudget - others, calls, input.cutNotes);
  }
  const messages = assemble(fixed.opening, turns.slice(droppedTurns), fixed.task, stepLists.slice(droppedSteps));
  return {
    messages,
    stubbed: rangesOf(flags),
    droppedTurns,
    droppedSteps,
    compact,
    taskCut: fixed.taskCut,
    fits: raw <= rawBudget,
    estimatedTokens: Math.ceil(raw * factor),
    rawEstimatedTokens: raw,
    budget,
  };
}

/** Opening messages (the summary cut to its share), task (cut to its share of the window), and their tokens with the tools'. */
function fixedPart(input: ContextFitInput, window: number, factor: number, toolTokens: number) {
  const rawBudget = Math.floor(promptBudget(window, input.maxTokens, input.reserveTokens) / factor);
  const summary = input.summary === undefined ? undefined : cutText(input.summary, Math.floor(rawBudget * SUMMARY_SHARE), plainNote);
  const opening = openingMessages(input.system, summary);
  const task = cutUserMessage(input.task, Math.floor((window * TASK_SHARE) / factor));
  const raw = REPLY_PRIMING_TOKENS + sumTokens(opening) + toolTokens + estimateMessageTokens(task);
  return { opening, task, raw, taskCut: task !== input.task };
}

/** The smallest window (tokens) whose budget holds the fixed part: doubling, then bisection. */
function minimumWindow(input: ContextFitInput, toolTokens: number, factor: number): number {
  const holds = (w: number) => fixedPart(input, w, factor, toolTokens).raw <= Math.floor(promptBudget(w, input.maxTokens, input.reserveTokens) / factor);
  let high = Math.max(256, input.contextWindow ?? 256);
  while (!holds(high)) {
    if (high > 1e9) return high;
    high *= 2;
  }
  let low = 1;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (holds(mid)) high = mid;
    else low = mid;
  }
  // Round up to a figure a user can type.
  return Math.ceil(high / 256) * 256;
}

/** The request's messages in order. */
function assemble(
  opening: readonly ChatMessage[],
  turns: ReadonlyArray<ReadonlyArray<ChatMessage>>,
  task: ChatMessage,
  steps: ReadonlyArray<ReadonlyArray<ChatMessage>>,
): ChatMessage[] {
  return [...opening, ...turns.flat(), task, ...steps.flat()];
}
