/**
 * Keeps every request of one turn inside the context window: before each request it plans with
 * `fitContext`, compacts when stubs are not enough (asking the model through the `summarize`
 * callback, or listing the calls made when that fails), ends the turn at once when the window
 * cannot hold the system prompt, the tools, the task and the answer's room, and after an answer
 * saying the prompt was over the window shrinks the window (to the one the server named, else
 * as `overflow-window.ts` says) for a bounded number of retries. Protocol-neutral: the caller
 * sends the notices and the requests.
 */
import type { ChatMessage } from '../openai/openai-types.js';
import {
  COMPACT_INSTRUCTION,
  compactionMessages,
  compactionNotice,
  refuseSummary,
  STEPS_INSTRUCTION,
  stepsDigest,
  trimmingNotice,
  type SummaryAnswer,
} from './compaction.js';
import { fitContext, SUMMARY_SHARE, type ContextFit, type ContextFitInput } from './context-fit.js';
import { answerRoom, calibrationFactor, positive, promptBudget, type Calibration } from './token-estimate.js';
import { NO_STUBS, stubRanges, type StubRanges } from './stub-ranges.js';
import { OVERFLOW_RETRIES, windowAfterOverflow } from './overflow-window.js';
import { smallestWindow, tooSmall } from './too-small.js';

/** Where a turn's context starts: what the session's records give, and the limits. */
export interface ContextSources {
  /** The system prompt's text. */
  system?: string | undefined;
  /** The summary of what came before `turns` (a /compact, or a compaction of an earlier turn). */
  summary?: string | undefined;
  /** Earlier turns, oldest first. */
  turns: ChatMessage[][];
  /** The user message that started the turn. */
  task: ChatMessage;
  /** The window in tokens, if known. */
  contextWindow?: number | undefined;
  /** The request's `max_tokens`, if set. */
  maxTokens?: number | undefined;
  /** The session's latest calibration. */
  calibration?: Calibration | undefined;
  /** Tool results of `turns` stubbed when the previous turn ended (its pruned state; a count `n` is the first `n`). */
  stubbed?: number | StubRanges | undefined;
  /** How to give this server a larger window (a clause of the provider profile), for the words that end a turn. */
  windowFix?: string | undefined;
  /** The note a cut result of a tool carries, by tool name (see `fitContext`). */
  cutNotes?: ContextFitInput['cutNotes'];
}

/** What the context state is when the turn ends: persisted so the next turn starts from it. */
export interface ContextState {
  /** Set when this turn compacted: the summary replacing everything before the turn and its first `summarizedSteps` steps. */
  summary?: string;
  summarizedSteps?: number;
  /** Tool results stubbed (indexes over the live conversation after the summary, oldest first). */
  stubbed: StubRanges;
}

/** The next request's messages and what to tell the user first, or why the turn must end. */
export type Prepared = { messages: ChatMessage[]; notices: string[]; rawEstimatedTokens: number } | { stop: string };

/**
 * Asks the model for a summary with `messages`: with `withTools` true they are the session's own
 * request (send them with the turn's tools, spelled as every request of the turn, with
 * `tool_choice: "none"` so the answer is text, capped at `maxTokens`: the summary's room, which the
 * request leaves it); false, a transcript to send without tools. Its
 * answer (a string is an answer without tool calls); `undefined` when the request failed. The
 * answer is checked (`refuseSummary`) before it replaces anything.
 */
export type Summarize = (messages: ChatMessage[], withTools?: boolean, maxTokens?: number) => Promise<SummaryAnswer | string | undefined>;

/** Tokens the summary request's cap gives beyond the summary's room: an answer over its room is then seen whole, and refused. */
const SUMMARY_CAP_SLACK = 16;

/** Window-fitting state of one turn. */
export class ContextKeeper {
  /** The turn's steps, oldest first; the caller appends to the last one as results come in. */
  readonly steps: ChatMessage[][] = [];
  private window: number | undefined;
  private turns: ChatMessage[][];
  private summary: string | undefined;
  /** Steps (from the start of the turn) a summary replaces. */
  private summarized = 0;
  private stubbed: StubRanges;
  private compacted = false;
  private overflows = 0;
  private calibration: Calibration | undefined;
  private lastRaw = 0;

  constructor(private readonly sources: ContextSources) {
    this.window = positive(sources.contextWindow) ? sources.contextWindow : undefined;
    this.turns = sources.turns;
    this.summary = sources.summary;
    this.stubbed = stubRanges(sources.stubbed);
    this.calibration = sources.calibration;
  }

  /** Starts a new step with its assistant message; results are pushed onto the returned list. */
  step(assistant: ChatMessage): ChatMessage[] {
    const list = [assistant];
    this.steps.push(list);
    return list;
  }

  /** The window in use (the configured one, or what overflow answers taught). */
  get contextWindow(): number | undefined {
    return this.window;
  }

  /** Plans the next request, compacting first when it must. */
  async prepare(tools: readonly unknown[] | undefined, summarize: Summarize): Promise<Prepared> {
    let fit = this.fit(tools);
    const notices: string[] = [];
    if (fit.minimumWindow !== undefined)
      return {
        stop: tooSmall(
          this.window!,
          fit.minimumWindow,
          this.sources.windowFix,
          this.fit(tools, { task: { role: 'user', content: '' } }).minimumWindow !== undefined ? 'system' : 'task',
        ),
      };
    // Not even the current step fits without any earlier work: no summary could help, so none is asked for.
    if (!fit.fits && !this.fit(tools, { summary: undefined, turns: [], steps: this.steps.slice(-1) }).fits)
      return { stop: tooSmall(this.window!, this.smallestWindow(tools), this.sources.windowFix, 'result') };
    if (fit.compact && this.window !== undefined) {
      const steps = this.steps.slice(this.summarized, -1);
      const source = {
        system: this.sources.system,
        summary: this.summary,
        turns: this.turns,
        task: this.sources.task,
        steps,
        contextWindow: this.window,
        maxTokens: this.sources.maxTokens,
        calibration: this.calibration,
      };
      // The room the summary must fit: its share of the budget (`context-fit.ts` cuts it there).
      const room = Math.floor((promptBudget(this.window, this.sources.maxTokens) / calibrationFactor(this.calibration)) * SUMMARY_SHARE);
      const own = this.ownSummaryRequest(tools, steps, this.window, room);
      const answer = own ? await summarize(own, tools !== undefined, own.cap) : await summarize(compactionMessages(source), false);
      const reply = typeof answer === 'string' ? { text: answer, toolCalls: 0 } : answer;
      const refused = reply ? refuseSummary(reply, room) : undefined;
      const written = reply && !refused ? reply.text.trim() : undefined;
      notices.push(compactionNotice({ turns: this.turns.length, steps: steps.length, contextWindow: this.window, byModel: Boolean(written), refused }));
      this.summary = written || stepsDigest(this.summary, this.turns, steps);
      this.turns = [];
      this.summarized = Math.max(0, this.steps.length - 1);
      this.stubbed = NO_STUBS;
      this.compacted = true;
      fit = this.fit(tools);
    }
    if (!fit.fits) return { stop: tooSmall(this.window!, this.smallestWindow(tools), this.sources.windowFix, 'result') };
    if (this.window !== undefined && (fit.droppedTurns > 0 || fit.droppedSteps > 0))
      notices.push(trimmingNotice(fit.droppedTurns, this.window, fit.droppedSteps));
    this.stubbed = fit.stubbed;
    this.lastRaw = fit.rawEstimatedTokens;
    return { messages: fit.messages, notices, rawEstimatedTokens: fit.rawEstimatedTokens };
  }

  /**
   * After an answer saying the prompt was over the window: learn `window` when the server named
   * one smaller than the window assumed, else shrink the smaller of the window and the rejected
   * request's size plus the answer's room (`windowAfterOverflow`). False once
   * {@link OVERFLOW_RETRIES} retries were spent: end the turn.
   */
  overflow(window?: number): boolean {
    if (++this.overflows > OVERFLOW_RETRIES) return false;
    this.window = windowAfterOverflow(this.window, Math.ceil(this.lastRaw * calibrationFactor(this.calibration)), this.sources.maxTokens, window);
    return true;
  }

  /** Records the provider's count of the last request's prompt, to calibrate the estimate. */
  calibrate(promptTokens: number | undefined): void {
    if (positive(promptTokens) && this.lastRaw > 0) this.calibration = { estimated: this.lastRaw, actual: promptTokens };
  }

  /** The latest calibration (the session's, or one from this turn's requests). */
  get latestCalibration(): Calibration | undefined {
    return this.calibration;
  }

  /** The state to persist with the turn's record. */
  state(): ContextState {
    return this.compacted && this.summary !== undefined
      ? { summary: this.summary, summarizedSteps: this.summarized, stubbed: this.stubbed }
      : { stubbed: this.stubbed };
  }

  /**
   * The summary request as the session's own request: what the previous request sent (the same
   * system message, summary, turns with the same stubs, the task and the steps before the current
   * one), then the instruction as the last user message, so a server's prefix cache reads only
   * the instruction. With no earlier step of this turn to summarise, the instruction takes the
   * task's place (the task stays verbatim after the compaction). The answer's room is the
   * summary's (`room` tokens, a few more so an answer over it is seen as cut), which leaves the
   * instruction the room a turn's answer had. `undefined` when that request would not fit as it
   * is (it would cut or leave out what the cache holds): then the transcript
   * ({@link compactionMessages}) is asked for instead.
   */
  private ownSummaryRequest(
    tools: readonly unknown[] | undefined,
    steps: ChatMessage[][],
    window: number,
    room: number,
  ): (ChatMessage[] & { cap: number }) | undefined {
    const instruction: ChatMessage = { role: 'user', content: steps.length > 0 ? `${COMPACT_INSTRUCTION} ${STEPS_INSTRUCTION}` : COMPACT_INSTRUCTION };
    const cap = room + SUMMARY_CAP_SLACK;
    // The same margin a turn's request keeps, for the estimate's error.
    const promptTokens = promptBudget(window, this.sources.maxTokens) + answerRoom(window, this.sources.maxTokens) - cap;
    const change = steps.length > 0 ? { steps: [...steps, [instruction]] } : { task: instruction, steps: [] };
    const fit = this.fit(tools, { ...change, promptTokens });
    const kept = fit.fits && !fit.compact && fit.droppedTurns === 0 && fit.droppedSteps === 0;
    return kept ? Object.assign(fit.messages, { cap }) : undefined;
  }

  private fit(tools: readonly unknown[] | undefined, change: Partial<ContextFitInput> = {}): ContextFit {
    return fitContext({
      system: this.sources.system,
      summary: this.summary,
      turns: this.turns,
      task: this.sources.task,
      steps: this.steps.slice(this.summarized),
      tools,
      contextWindow: this.window,
      maxTokens: this.sources.maxTokens,
      calibration: this.calibration,
      stubbed: this.stubbed,
      cutNotes: this.sources.cutNotes,
      ...change,
    });
  }

  /**
   * The smallest window in which the current step fits with the system prompt, the tools and the
   * task once the earlier work is summarised away (`too-small.ts`, over {@link fitContext}).
   */
  private smallestWindow(tools: readonly unknown[] | undefined): number {
    return smallestWindow(
      (window) => this.fit(tools, { summary: undefined, turns: [], steps: this.steps.slice(-1), contextWindow: window }).fits,
      this.window ?? 256,
    );
  }
}
