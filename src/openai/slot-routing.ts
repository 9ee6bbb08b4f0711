/**
 * The seam between the chat client and a server's slots (llama.cpp `id_slot`): the client asks a
 * {@link SlotRouter} for the slot of each request that carries a `slotKey`, reads the answer's
 * `timings` and tells the ticket how it went; what a server's slots are and who has which is the
 * router's (`endpoints/session-slots.ts`). Here also the reader of `timings`.
 *
 * Source: llama.cpp tools/server/README.md (`id_slot` in the completion options; `timings` with
 * `prompt_n`, `cache_n` on the last chunk of a streamed answer).
 */
import { isRecord } from '../shared/json-value.js';
import type { SseItem } from './sse-items.js';

/** What a llama.cpp answer's `timings` say of its prompt, in tokens. */
export interface AnswerTimings {
  /** `prompt_n`: prompt tokens the server read for this request. */
  promptN: number;
  /** `cache_n`: prompt tokens it took from the slot's cache. */
  cacheN: number;
}

/** One request's use of a slot. */
export interface SlotTicket {
  /** The `id_slot` to send. */
  readonly slot: number;
  /** The request ended: with the answer's `timings` when it had them, `undefined` for a failure or a cancel. */
  done(timings: AnswerTimings | undefined): void;
  /** The server refused `id_slot` (`why`: its words): it is never sent to this server again. */
  refused(why: string): void;
}

/** Gives requests their slots. */
export interface SlotRouter {
  /**
   * The slot for a request of `key` (a session) to `model`, or `undefined` to send it without
   * `id_slot` (the server has no slots, pinning is off there, or the slot is busy). May first
   * restore the session's saved slot; never waits for a slot. Never rejects.
   */
  take(key: string, model: string, signal: AbortSignal): Promise<SlotTicket | undefined>;
}

/** The `timings` of a batch of items (llama.cpp puts them on the last chunk), else `undefined`. */
export function timingsOf(items: readonly SseItem[]): AnswerTimings | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind !== 'chunk') continue;
    const timings = (item.chunk as unknown as Record<string, unknown>)['timings'];
    if (!isRecord(timings)) continue;
    const promptN = timings['prompt_n'];
    const cacheN = timings['cache_n'];
    if (typeof promptN === 'number' && Number.isFinite(promptN)) return { promptN, cacheN: typeof cacheN === 'number' && Number.isFinite(cacheN) ? cacheN : 0 };
  }
  return undefined;
}
