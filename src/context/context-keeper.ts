/**
 * Keeps every request of one turn inside the context window: before each request it plans with
 * `fitContext`, compacts when stubs are not enough (asking the model through the `summarize`
 * callback, or listing the calls made when that fails), ends the turn at once when the window
 * cannot hold the system prompt, the tools, the task and the answer's room, and after an answer
 * saying the prompt was over the window shrinks the window (to the one the server named, else by
 * {@link OVERFLOW_SHRINK}) for a bounded number of retries. Protocol-neutral: the caller sends
 * the notices and the requests.
 */
import type { ChatMessage } from '../openai/openai-types.js';
import { compactionMessages, compactionNotice, refuseSummary, stepsDigest, trimmingNotice, type SummaryAnswer } from './compaction.js';
import { fitContext, SUMMARY_SHARE, type ContextFit, type ContextFitInput } from './context-fit.js';
import { answerRoom, calibrationFactor, positive, promptBudget, type Calibration } from './token-estimate.js';
import { NO_STUBS, stubRanges, type StubRanges } from './stub-ranges.js';
import { grouped } from '../shared/grouped.js';

/**
 * Retries after answers saying the prompt was over the window, per turn.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const OVERFLOW_RETRIES = 3;
/**
 * The window is multiplied by this after an overflow answer that names no window.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const OVERFLOW_SHRINK = 0.7;

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
 * Asks the model for a summary of `messages` (no tools): its answer (a string is an answer
 * without tool calls); `undefined` when the request failed. The answer is checked
 * (`refuseSummary`) before it replaces anything.
 */
export type Summarize = (messages: ChatMessage[]) => Promise<SummaryAnswer | string | undefined>;

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
      const answer = await summarize(compactionMessages(source));
      const reply = typeof answer === 'string' ? { text: answer, toolCalls: 0 } : answer;
      // The room the summary must fit: its share of the budget (`context-fit.ts` cuts it there).
      const room = Math.floor((promptBudget(this.window, this.sources.maxTokens) / calibrationFactor(this.calibration)) * SUMMARY_SHARE);
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
   * one smaller than the window assumed, else shrink by {@link OVERFLOW_SHRINK} the smaller of the window
   * and the rejected request's size plus the answer's room. False once {@link OVERFLOW_RETRIES}
   * retries were spent: end the turn.
   */
  overflow(window?: number): boolean {
    if (++this.overflows > OVERFLOW_RETRIES) return false;
    // The rejected request was smaller than the window assumed: the real one is below its size plus the answer's room.
    const sent = Math.ceil(this.lastRaw * calibrationFactor(this.calibration));
    const current = Math.min(this.window ?? Infinity, sent + (this.window !== undefined ? answerRoom(this.window, this.sources.maxTokens) : 0));
    this.window = positive(window) && window < (this.window ?? Infinity) ? window : Math.max(1, Math.floor(current * OVERFLOW_SHRINK));
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
   * The smallest window (tokens, rounded up to 256) in which the current step fits with the
   * system prompt, the tools and the task once the earlier work is summarised away: doubling,
   * then bisection over {@link fitContext}.
   */
  private smallestWindow(tools: readonly unknown[] | undefined): number {
    const holds = (window: number) => this.fit(tools, { summary: undefined, turns: [], steps: this.steps.slice(-1), contextWindow: window }).fits;
    let high = Math.max(256, this.window ?? 256);
    while (!holds(high)) {
      if (high > 1e9) return high;
      high *= 2;
    }
    let low = Math.floor(high / 2);
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if (holds(mid)) high = mid;
      else low = mid;
    }
    return Math.ceil(high / 256) * 256;
  }
}

/** How to give the model a larger window, for the usual local servers (when the server's own fix is not known). */
const FIX =
  'Run the model with a larger context window (Ollama: OLLAMA_CONTEXT_LENGTH=32768 or PARAMETER num_ctx in a ' +
  'Modelfile; llama.cpp: -c; vLLM: --max-model-len; LM Studio: the context length setting) and set ' +
  'OPENAI_CONTEXT_WINDOW to it, or lower OPENAI_MAX_TOKENS.';

/** The fix sentence: the server's own (`Fix: restart Ollama with …`), else the usual servers' ways. */
function fixWords(windowFix: string | undefined): string {
  return windowFix ? `Fix: ${windowFix}.` : FIX;
}

/** What did not fit in the window: the system prompt and the tools, the task, or the current tool call and its result. */
type TooSmallPart = 'system' | 'task' | 'result';

const PART_WORDS: Record<TooSmallPart, string> = {
  system: 'the system prompt and the tool definitions with the room for the answer',
  task: 'this request with the system prompt, the tool definitions and the room for the answer',
  result: 'the latest tool call and its result with the system prompt, the tool definitions, this request and the room for the answer',
};

/**
 * The message that ends a turn when the window cannot hold what it must: it names what did not
 * fit (`part`) and the smallest window that works (`minimum`, tokens), then the fix.
 */
function tooSmall(window: number, minimum: number | undefined, windowFix?: string, part: TooSmallPart = 'system'): string {
  const need = minimum !== undefined ? `: it needs at least ${grouped(minimum)} tokens` : '';
  return `The model's context window (${grouped(window)} tokens) is too small for ${PART_WORDS[part]}${need}. ${fixWords(windowFix)}`;
}
