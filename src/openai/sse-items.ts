/**
 * Classifying one Server-Sent Event of a Chat Completions stream (the payload conventions in
 * `sse.ts`): a chunk, the `[DONE]` marker, an in-stream error, or nothing usable.
 */
import { isRecord } from '../shared/json-value.js';
import type { ChatCompletionChunk, ChatErrorObject } from './openai-types.js';

/**
 * One classified SSE event.
 * - `chunk`: the data was a JSON object (a `chat.completion.chunk`, not validated further).
 * - `done`: `data: [DONE]`, the OpenAI end-of-stream marker.
 * - `error`: an `event: error` event, or any JSON data whose top-level `error` is a non-null
 *   object (Groq and OpenRouter in-stream errors), unless that data also has `usage` or `choices`:
 *   then it is a `chunk` (whose `error` the accumulator reports too). When an `event: error` carries data that is
 *   not JSON, the error is `{ message: data }`.
 * - `skip`: nothing usable (empty data, non-JSON data, JSON that is not an object); `reason`
 *   says why, for logs.
 */
export type SseItem =
  | { kind: 'chunk'; chunk: ChatCompletionChunk }
  | { kind: 'done' }
  | { kind: 'error'; error: ChatErrorObject }
  | { kind: 'skip'; reason: string };

const DONE: SseItem = Object.freeze({ kind: 'done' }) as SseItem;

/**
 * Stateless: classify one SSE event's data (see {@link SseItem} for the rules).
 *
 * @param event - the event type (`event:` field; absent means `message`) and its joined data.
 * @returns exactly one item; never throws (invalid JSON becomes `skip`).
 */
export function classifySseEvent(event: { event?: string | undefined; data: string }): SseItem {
  const data = event.data;
  const isErrorEvent = event.event === 'error';
  if (data === '[DONE]') return DONE;
  if (data.length === 0) {
    return isErrorEvent ? { kind: 'error', error: { message: 'error event without data' } } : { kind: 'skip', reason: 'empty data' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    if (isErrorEvent) return { kind: 'error', error: { message: data } };
    // Tolerate `[DONE]` with surrounding whitespace; checked only on the rare non-JSON path.
    if (data.trim() === '[DONE]') return DONE;
    return { kind: 'skip', reason: 'data is not JSON' };
  }
  if (!isRecord(parsed)) {
    if (isErrorEvent) return { kind: 'error', error: { message: typeof parsed === 'string' ? parsed : data } };
    return { kind: 'skip', reason: 'JSON data is not an object' };
  }
  const error = parsed['error'];
  // An error chunk may also carry the usage and a finish reason: as a chunk, the accumulator
  // reports the error and keeps those.
  if (isRecord(error)) {
    return isRecord(parsed['usage']) || Array.isArray(parsed['choices'])
      ? { kind: 'chunk', chunk: parsed as ChatCompletionChunk }
      : { kind: 'error', error: error as ChatErrorObject };
  }
  if (isErrorEvent) return { kind: 'error', error: parsed as ChatErrorObject };
  return { kind: 'chunk', chunk: parsed as ChatCompletionChunk };
}
