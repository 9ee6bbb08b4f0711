/**
 * Reading a `chat.completion.chunk`: which choice counts, and the "plain delta" shape of a chunk
 * whose only effect is one piece of text. Shared by the turn accumulator (which reads chunks) and
 * the SSE decoder (which recognises chunks of a learnt shape without parsing them), so neither
 * imports the other.
 */
import type { ChatChoiceChunk } from './openai-types.js';

/** True for a plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The choice to read: the one with `index` 0, else the first one without an index. */
export function pickChoice(choices: ChatChoiceChunk[]): ChatChoiceChunk | undefined {
  let fallback: ChatChoiceChunk | undefined;
  for (const choice of choices) {
    if (!isObject(choice)) continue;
    if (choice.index === 0) return choice;
    if ((choice.index === undefined || choice.index === null) && fallback === undefined) fallback = choice;
  }
  return fallback;
}

/** A path into a parsed chunk: object keys and array positions. */
export type JsonPath = readonly (string | number)[];

/**
 * Where the one piece of text of a "plain delta" chunk is, and which other string leaves matter.
 * See {@link plainDeltaShape}.
 */
export interface PlainDeltaShape {
  /** `content` (think tags are split out of it) or `reasoning`. */
  field: 'content' | 'reasoning';
  /** Path of the string leaf holding the text, e.g. `['choices', 0, 'delta', 'content']`. */
  path: JsonPath;
  /**
   * True when the accumulator reads the value of a string or number leaf at `path` (beyond its
   * type): such a leaf must stay as it is for another chunk to count as the same shape.
   */
  readsValue(path: JsonPath): boolean;
}

const DELTA_FIELDS_READ = new Set(['content', 'reasoning_content', 'reasoning', 'tool_calls']);

/**
 * Describes a chunk whose only effect on a {@link TurnAccumulator} is one non-empty text (or
 * reasoning) string: no finish reason, usage, error, tool call, content array or second text.
 * For such a chunk, `push({kind:'chunk', chunk})` does exactly what
 * `push({kind:'delta', field, text})` does with that string, and so does any chunk that differs
 * only in string or number leaves for which `readsValue` is false, or in the text itself while it stays a
 * non-empty string (the rules of `TurnAccumulator`'s `chunk()` and `delta()`; the SSE decoder's shape cache
 * relies on this, and `property-tests/accumulator-shapes.property.test.ts` checks it).
 *
 * @returns the shape, or `undefined` when the chunk does anything else.
 */
export function plainDeltaShape(chunk: unknown): PlainDeltaShape | undefined {
  if (!isObject(chunk) || isObject(chunk['error']) || isObject(chunk['usage'])) return undefined;
  const groq = chunk['x_groq'];
  if (isObject(groq) && isObject(groq['usage'])) return undefined;
  const choices = chunk['choices'];
  if (!Array.isArray(choices) || choices.length === 0) return undefined;
  const choice = pickChoice(choices as ChatChoiceChunk[]);
  if (!choice || !isObject(choice.delta)) return undefined;
  const reason = choice.finish_reason;
  if (typeof reason === 'string' && reason.length > 0) return undefined;
  const delta = choice.delta;
  if (Array.isArray(delta.tool_calls) || Array.isArray(delta.content)) return undefined;
  const nonEmpty = (value: unknown) => typeof value === 'string' && value.length > 0;
  // The reasoning read is `reasoning_content` when non-empty, else `reasoning`; empty strings emit nothing.
  const key = nonEmpty(delta.reasoning_content) ? 'reasoning_content' : nonEmpty(delta.reasoning) ? 'reasoning' : 'content';
  if (!nonEmpty(delta[key]) || (key !== 'content' && nonEmpty(delta.content))) return undefined;
  const position = choices.indexOf(choice);
  return {
    field: key === 'content' ? 'content' : 'reasoning',
    path: ['choices', position, 'delta', key],
    readsValue(path) {
      const [top, second, third, fourth] = path;
      if (top === 'error' || top === 'usage' || (top === 'x_groq' && second === 'usage')) return true;
      if (top !== 'choices') return false;
      // Every choice's `index` decides which choice is read.
      if (third === 'index' && path.length === 3) return true;
      if (second !== position) return false;
      return third === 'finish_reason' || (third === 'delta' && typeof fourth === 'string' && DELTA_FIELDS_READ.has(fourth));
    },
  };
}
