/**
 * Turns the classified items of one streamed Chat Completions response into events (for live
 * relaying) and a final result. Pure: no I/O, no clocks; O(1) work per delta apart from the
 * delta's own size.
 *
 * The extraction rules are the ones `test/fixtures/providers/README.md` documents, checked
 * against every recorded provider stream there: `choices` entry with `index` 0; text from
 * `delta.content` (string, or `text` parts of an array); reasoning from
 * `delta.reasoning_content` (DeepSeek, llama.cpp, vLLM) else `delta.reasoning` (Groq,
 * OpenRouter, Ollama), Mistral `thinking` content parts, or inline `<think>` tags;
 * `reasoning_details` ignored (OpenRouter duplicates `reasoning` there).
 */
import type { ChatCompletionChunk, ChatContentPart, ChatDelta, ChatErrorObject, ChatToolCallDelta, ChatUsage } from './openai-types.js';
import { isRecord } from '../shared/json-value.js';
import { pickChoice } from './chunk-shape.js';
import type { SseItem } from './sse.js';
import { appendPart, joinAll } from './text-parts.js';
import { ToolCallFragments } from './tool-call-fragments.js';
import { createThinkTagSplitter, type ThinkSegment, type ThinkTagSplitter } from './think-tags.js';

/**
 * What one item produced, in stream order.
 * - `text` / `reasoning`: a non-empty piece of answer or reasoning text.
 * - `tool_call`: a fragment of tool call number `index` (0-based position in
 *   {@link ChatStreamResult.toolCalls}, in order of first appearance; not necessarily the provider's
 *   `index`). `id` and `name` are the call's values as known so far (absent until seen);
 *   `argumentsDelta` is this fragment of the JSON arguments (possibly empty).
 * - `usage`: a usage report (top-level `usage`, or Groq's `x_groq.usage` while no top-level one
 *   was seen). Several may arrive; the last one counts.
 * - `finish`: a non-null `finish_reason` (`stop`, `length`, `tool_calls`, `content_filter`, …).
 * - `error`: an error reported inside the stream (an `error` item, or a chunk's `error` object).
 */
export type StreamEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; index: number; id?: string; name?: string; argumentsDelta: string }
  | { type: 'usage'; usage: ChatUsage }
  | { type: 'finish'; reason: string }
  | { type: 'error'; error: ChatErrorObject };

/** One complete tool call. Missing id or name is `''`; `arguments` is the concatenated JSON text. */
export interface ToolCallResult {
  id: string;
  name: string;
  arguments: string;
  /**
   * The call's `extra_content` object, present only when the provider sent one (Gemini 3:
   * `{google: {thought_signature}}`), to be sent back unchanged on the assistant message.
   * Several fragments' objects are merged shallowly, the first value of a key winning.
   * Source: https://ai.google.dev/gemini-api/docs/thought-signatures (OpenAI compatibility).
   */
  extra?: Record<string, unknown>;
}

/**
 * Everything extracted so far. `finishReason` is the last non-null one; `usage` the last
 * non-null top-level `usage`, else the last `x_groq.usage`; `error` the first error seen.
 */
export interface ChatStreamResult {
  text: string;
  reasoning: string;
  toolCalls: ToolCallResult[];
  finishReason: string | null;
  usage: ChatUsage | null;
  error: ChatErrorObject | null;
}

/** Options of {@link ChatStreamAccumulator}. */
export interface ChatStreamAccumulatorOptions {
  /** split inline <think> tags out of content into reasoning. @defaultValue true */
  splitThinkTags?: boolean;
}

/**
 * Accumulates one response. Tool-call fragments are assembled by `tool-call-fragments.ts`. Never
 * throws on malformed chunks: fields of the wrong type are ignored.
 */
export class ChatStreamAccumulator {
  private readonly splitter: ThinkTagSplitter | undefined;
  private readonly textParts: string[] = [];
  private readonly reasoningParts: string[] = [];
  /** Pieces at the end of `textParts` / `reasoningParts` not folded yet (see {@link appendPart}). */
  private readonly textLoose = { loose: 0 };
  private readonly reasoningLoose = { loose: 0 };
  private readonly tools = new ToolCallFragments();
  private finishReason: string | null = null;
  private topUsage: ChatUsage | null = null;
  private groqUsage: ChatUsage | null = null;
  private error: ChatErrorObject | null = null;
  private output = false;

  /** @param options - see {@link ChatStreamAccumulatorOptions}; `splitThinkTags` defaults to true. */
  constructor(options: ChatStreamAccumulatorOptions = {}) {
    this.splitter = options.splitThinkTags === false ? undefined : createThinkTagSplitter();
  }

  /** True once any text, reasoning or tool call was produced. */
  get hasOutput(): boolean {
    return this.output;
  }

  /** Feed one SseItem (chunk / error; done and skip are no-ops) and get the events it produced. */
  push(item: SseItem): StreamEvent[] {
    const events: StreamEvent[] = [];
    this.pushInto(item, events);
    return events;
  }

  /** {@link push}, appending the events to `events` (no array per item). */
  pushInto(item: SseItem, events: StreamEvent[]): void {
    if (item.kind === 'chunk') this.chunk(item.chunk, events);
    else if (item.kind === 'error') this.fail(item.error, events);
  }

  /** End of stream: flush a held-back partial think tag. */
  flush(): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (this.splitter) this.segments(this.splitter.flush(), events);
    return events;
  }

  /** The result so far (cheap to call repeatedly: joined parts are cached). */
  result(): ChatStreamResult {
    return {
      text: joinAll(this.textParts, this.textLoose),
      reasoning: joinAll(this.reasoningParts, this.reasoningLoose),
      toolCalls: this.tools.results(),
      finishReason: this.finishReason,
      usage: this.topUsage ?? this.groqUsage,
      error: this.error,
    };
  }

  private chunk(chunk: ChatCompletionChunk, events: StreamEvent[]): void {
    if (!isRecord(chunk)) return;
    if (isRecord(chunk.error)) this.fail(chunk.error, events);
    if (Array.isArray(chunk.choices) && chunk.choices.length > 0) {
      const choice = pickChoice(chunk.choices);
      if (choice) {
        if (isRecord(choice.delta)) this.delta(choice.delta, events);
        const reason = choice.finish_reason;
        if (typeof reason === 'string' && reason.length > 0) {
          this.finishReason = reason;
          events.push({ type: 'finish', reason });
        }
      }
    }
    if (isRecord(chunk.usage)) {
      this.topUsage = chunk.usage;
      events.push({ type: 'usage', usage: chunk.usage });
    } else if (isRecord(chunk.x_groq) && isRecord(chunk.x_groq.usage)) {
      this.groqUsage = chunk.x_groq.usage;
      if (this.topUsage === null) events.push({ type: 'usage', usage: chunk.x_groq.usage });
    }
  }

  private delta(delta: ChatDelta, events: StreamEvent[]): void {
    const reasoning = typeof delta.reasoning_content === 'string' && delta.reasoning_content.length > 0 ? delta.reasoning_content : delta.reasoning;
    if (typeof reasoning === 'string') this.reasoning(reasoning, events);
    const content = delta.content;
    if (typeof content === 'string') this.content(content, events);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (!isRecord(part)) continue;
        if (part.type === 'text' && typeof part.text === 'string') this.content(part.text, events);
        else if (part.type === 'thinking') this.thinking(part.thinking, events);
      }
    }
    if (Array.isArray(delta.tool_calls)) {
      const calls = delta.tool_calls;
      for (let position = 0; position < calls.length; position++) {
        const call = calls[position];
        if (isRecord(call)) this.toolCall(call, position, events);
      }
    }
  }

  /** Mistral thinking parts: `thinking` is a string or an array of `{type:"text", text}` parts. */
  private thinking(thinking: ChatContentPart['thinking'], events: StreamEvent[]): void {
    if (typeof thinking === 'string') this.reasoning(thinking, events);
    else if (Array.isArray(thinking)) {
      for (const inner of thinking) {
        if (isRecord(inner) && typeof inner.text === 'string') this.reasoning(inner.text, events);
      }
    }
  }

  private content(text: string, events: StreamEvent[]): void {
    if (text.length === 0) return;
    if (this.splitter) this.segments(this.splitter.push(text), events);
    else this.text(text, events);
  }

  private segments(segments: ThinkSegment[], events: StreamEvent[]): void {
    for (const segment of segments) {
      if (segment.type === 'text') this.text(segment.text, events);
      else this.reasoning(segment.text, events);
    }
  }

  private text(text: string, events: StreamEvent[]): void {
    this.emit('text', this.textParts, this.textLoose, text, events);
  }

  private reasoning(text: string, events: StreamEvent[]): void {
    this.emit('reasoning', this.reasoningParts, this.reasoningLoose, text, events);
  }

  private emit(type: 'text' | 'reasoning', parts: string[], loose: { loose: number }, text: string, events: StreamEvent[]): void {
    if (text.length === 0) return;
    appendPart(parts, text, loose);
    this.output = true;
    events.push({ type, text });
  }

  private toolCall(call: ChatToolCallDelta, position: number, events: StreamEvent[]): void {
    const fragment = this.tools.add(call, position);
    if (!fragment) return;
    this.output = true;
    events.push({ type: 'tool_call', ...fragment });
  }

  private fail(error: ChatErrorObject, events: StreamEvent[]): void {
    if (this.error === null) this.error = error;
    events.push({ type: 'error', error });
  }
}
