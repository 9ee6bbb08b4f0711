/**
 * The one reader of a model's answer: fed the stream's items, it gives the events to show now and,
 * at the end, the answer as the loop takes it. Inside, the accumulator (`openai/chat-stream-accumulator.ts`)
 * reads the structured parts (text, reasoning, `tool_calls`, `finish_reason`, `usage`) and, when tools
 * were offered, the reader of calls written as text (`TextToolCalls`, `tools/calls/text/`) screens the
 * text while it streams and reads the calls in it at the end; the two kinds of calls are merged here.
 * Pure: no I/O, no clocks.
 */
import { ChatStreamAccumulator, type ChatStreamResult, type StreamEvent } from '../openai/chat-stream-accumulator.js';
import type { ChatErrorObject, ChatUsage } from '../openai/openai-types.js';
import type { SseItem } from '../openai/sse.js';
import type { AnswerToolCall, TextToolCalls } from './loop-input.js';
import { canonicalArguments } from './loop-guard.js';

/** A whole answer, as the loop takes it. */
export interface ReadAnswer {
  /** The answer's text the user saw: everything shown while it streamed and at its end (no call written as text, nothing after one). */
  text: string;
  /** The reasoning, all of it shown. */
  reasoning: string;
  /** The calls to run, in order: those read from the text first, then the structured ones; a text call repeating a structured one (same name and arguments) once. */
  toolCalls: AnswerToolCall[];
  /** The last non-null `finish_reason`, or null. */
  finishReason: string | null;
  /** The usage reported (see {@link ChatStreamResult.usage}), or null. */
  usage: ChatUsage | null;
  /** True when calls were read from the text or the reasoning (the user is told once per session). */
  fromText: boolean;
}

/**
 * Reads one answer. Without `textCalls` (no tools offered) text is shown as it comes and no call is
 * read from it; with it, text from where a call may begin is kept back until the end (`screen()`).
 */
export class AnswerReader {
  private readonly accumulator = new ChatStreamAccumulator();
  private readonly screen: ReturnType<TextToolCalls['screen']> | undefined;
  private done = false;
  private streamError: ChatErrorObject | undefined;

  /** @param textCalls - the reader of calls written as text for the request's tools; absent: none are read. */
  constructor(private readonly textCalls?: TextToolCalls) {
    this.screen = textCalls?.screen();
  }

  /** True once any text, reasoning or tool call arrived (shown or kept back). */
  get hasOutput(): boolean {
    return this.accumulator.hasOutput;
  }

  /** True once a `finish_reason` arrived. */
  get finished(): boolean {
    return this.done;
  }

  /** The first error reported inside the stream (an `error` item or a chunk's `error`), if any: the stream ends there. */
  get error(): ChatErrorObject | undefined {
    return this.streamError;
  }

  /** Reads a batch of items; returns what to show now, in order (text screened; reasoning as it came; the other events as they are). */
  push(items: readonly SseItem[]): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const item of items) this.accumulator.pushInto(item, events);
    for (const event of events) {
      if (event.type === 'finish') this.done = true;
      else if (event.type === 'error') this.streamError ??= event.error;
    }
    return this.screened(events);
  }

  /** The stream ended: what was held for a think tag cut by a delta's end, to show now. */
  flush(): StreamEvent[] {
    return this.screened(this.accumulator.flush());
  }

  /**
   * The whole answer, after {@link flush}, and the text still to show (kept back by a marker that was
   * none, or the prose before calls); what follows a call written as text is never shown.
   */
  end(): { show: StreamEvent[]; answer: ReadAnswer } {
    const result = this.accumulator.result();
    const { text, reasoning, toolCalls, finishReason, usage } = result;
    const answer: ReadAnswer = { text, reasoning, toolCalls, finishReason, usage, fromText: false };
    const screen = this.screen;
    if (!screen || !this.textCalls) return { show: [], answer };
    const read = this.textCalls.read(result.text);
    const shown = result.text.slice(0, screen.shownLength);
    if (read.calls.length > 0) {
      const rest = read.prose.length > shown.length ? read.prose.slice(shown.length) : '';
      answer.text = shown + rest;
      answer.toolCalls = withTextCalls(read.calls, result.toolCalls);
      answer.fromText = true;
      return { show: textEvent(rest), answer };
    }
    // A server that put the whole answer in the reasoning (thinking forced open) puts the call there too.
    const inReasoning = result.toolCalls.length === 0 ? this.textCalls.read(result.reasoning, true).calls : [];
    if (inReasoning.length > 0) {
      answer.toolCalls = inReasoning;
      answer.fromText = true;
    }
    return { show: textEvent(result.text.slice(shown.length)), answer };
  }

  /**
   * What the user saw so far, for an answer cancelled or broken off: the text shown (none of what was
   * kept back), the reasoning, and the structured parts as they stand (`toolCalls` complete or not).
   */
  seen(): ChatStreamResult {
    const seen = this.accumulator.result();
    if (this.screen) seen.text = seen.text.slice(0, this.screen.shownLength);
    return seen;
  }

  private screened(events: StreamEvent[]): StreamEvent[] {
    const screen = this.screen;
    return screen ? events.flatMap((event) => (event.type === 'text' ? textEvent(screen.push(event.text)) : [event])) : events;
  }
}

/** A text event for `text`, or none when it is empty. */
function textEvent(text: string): StreamEvent[] {
  return text === '' ? [] : [{ type: 'text', text }];
}

/**
 * The answer's calls: those read from its text first (the content comes before the structured
 * calls in a stream), then the structured ones; a text call that repeats a structured one (same
 * name, same arguments: a server that both parsed the call and left it in the content) once.
 */
function withTextCalls(read: readonly AnswerToolCall[], streamed: readonly AnswerToolCall[]): AnswerToolCall[] {
  const key = (call: AnswerToolCall) => `${call.name}\u0000${canonicalArguments(call.arguments)}`;
  const structured = new Set(streamed.map(key));
  return [...read.filter((call) => !structured.has(key(call))), ...streamed];
}
