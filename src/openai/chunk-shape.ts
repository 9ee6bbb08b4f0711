/**
 * Reading a `chat.completion.chunk`: what counts as an object, and which choice counts. Shared by
 * the chat stream accumulator and the SSE decoder.
 */
import type { ChatChoiceChunk } from './openai-types.js';

/** `text` parsed as JSON, or `undefined` when it is not JSON (never throws). */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

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
