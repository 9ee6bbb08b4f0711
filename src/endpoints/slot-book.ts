/**
 * Which server slot each session uses, on a server with several (llama.cpp `llama-server`:
 * `/props` `total_slots`, `-np N`; a request names its slot with `id_slot`, tools/server/README.md).
 * Pure: the decisions over one server's {@link SlotBook}, no I/O.
 *
 * Why: llama-server gives a request the slot whose cached prompt resembles it most; two sessions
 * that share the system prompt land on the same slot and overwrite each other's cache, so every
 * switch reads the whole conversation again. A slot of its own per session keeps each one's
 * cache, but only where the server keeps an idle slot's cache (`--no-cache-idle-slots`); by
 * default an idle slot is moved to the host-memory prompt cache and cleared, and a pinned session
 * then reads its whole prompt on return, more than the server's own choice would make it read.
 * The first look at the server (`slot-probe.ts`) finds which it is; the answers' `timings` are
 * watched too ({@link slotAnswered}): sessions back on their slot after another session's request
 * that find far less of their prompt cached than they left there stop the pinning on that server,
 * for good, and requests go out as before (no `id_slot`).
 *
 * Rules: a session keeps its slot; a new one takes a free slot, else the least recently used
 * session's (that session gets another when it returns); a background request of a session (a
 * summary) uses the session's slot. A slot busy with another request of ours is not waited for:
 * the request goes without `id_slot` (the server places it as it would have), and more sessions
 * than slots never make one wait.
 */

/** One server's slots as this agent uses them. */
export interface SlotBook {
  /** Slots the server has (`total_slots`). */
  readonly total: number;
  /** Session key → its slot. */
  readonly pins: Map<string, number>;
  /** Session key → the order of its latest request (higher: more recent). */
  readonly used: Map<string, number>;
  /** Slots a request of ours is using now, with how many. */
  readonly busy: Map<number, number>;
  /** Session key → tokens its latest answered request left in its slot (`prompt_n + cache_n`). */
  readonly held: Map<string, number>;
  /** Requests so far (the clock of `used`). */
  tick: number;
  /** The session of the latest request sent. */
  last?: string | undefined;
  /** Set once pinning stopped on this server: why (for the log and doctor). */
  off?: string | undefined;
  /** True when the server keeps an idle slot's cache (`--no-cache-idle-slots`), as its first look found. */
  keeps?: boolean | undefined;
  /** Returns in a row that found their slot's cache gone (see {@link SLOT_MISSES}). */
  misses?: number | undefined;
}

/**
 * A returning session whose slot held at least this many tokens is judged by its answer
 * (below it, a miss could be a short prompt changed early): tokens.
 */
const SLOT_JUDGED_FROM_TOKENS = 64;
/** A returning session must find at least this share of what it left in its slot cached: below it, the server cleared the slot. */
const SLOT_KEPT_SHARE = 0.5;
/**
 * Returns in a row that found their cache gone before the pinning stops: two, so one loss for
 * another reason (a unified KV cache full of the other sessions' prompts, an edit early in the
 * prompt) does not end it.
 * @internal the tests count the misses that end the pinning.
 */
export const SLOT_MISSES = 2;

/** A new book for a server with `total` slots. */
export function slotBook(total: number): SlotBook {
  return { total, pins: new Map(), used: new Map(), busy: new Map(), held: new Map(), tick: 0 };
}

/** What one request is sent with. */
export type SlotChoice =
  | {
      /** The `id_slot` to send. */
      slot: number;
      /** The session whose slot this was, now unpinned (more sessions than slots). */
      evicted?: string | undefined;
      /** True when another session's request came since this session's latest one, and its slot held its cache. */
      returning: boolean;
      /** True when the session was given this slot now (its first request, or its slot went to another session meanwhile). */
      fresh: boolean;
    }
  | {
      slot?: undefined;
      /** Why no slot is named: pinning is off, the server has one slot, or the slot is busy with another request of ours. */
      why: 'off' | 'one slot' | 'busy';
    };

/**
 * The slot for a request of session `key` (see the module comment for the rules); marks it busy
 * until {@link slotAnswered} or {@link slotReleased}. Mutates `book`.
 */
export function chooseSlot(book: SlotBook, key: string): SlotChoice {
  if (book.off) return { why: 'off' };
  if (book.total < 2) return { why: 'one slot' };
  let slot = book.pins.get(key);
  let evicted: string | undefined;
  const fresh = slot === undefined;
  if (slot === undefined) {
    const taken = new Set(book.pins.values());
    slot = Array.from({ length: book.total }, (_, i) => i).find((i) => !taken.has(i));
    if (slot === undefined) {
      // The least recently used session whose slot is not busy gives it up.
      const idle = [...book.pins].filter(([, s]) => !book.busy.has(s)).sort(([a], [b]) => (book.used.get(a) ?? 0) - (book.used.get(b) ?? 0));
      const oldest = idle[0];
      if (!oldest) return { why: 'busy' };
      [evicted, slot] = oldest;
      book.pins.delete(evicted);
      book.held.delete(evicted);
    }
    book.pins.set(key, slot);
  } else if (book.busy.has(slot)) {
    return { why: 'busy' };
  }
  const returning = book.last !== undefined && book.last !== key && book.held.has(key);
  book.busy.set(slot, (book.busy.get(slot) ?? 0) + 1);
  book.used.set(key, ++book.tick);
  book.last = key;
  return { slot, evicted, returning, fresh };
}

/** What a llama.cpp answer's `timings` say of its prompt: tokens read (`prompt_n`) and taken from the slot's cache (`cache_n`). */
export interface PromptTimings {
  promptN: number;
  cacheN: number;
}

/** Frees `slot` after a request that failed or was cancelled (its cache is unknown). Mutates `book`. */
export function slotReleased(book: SlotBook, key: string, slot: number): void {
  const left = (book.busy.get(slot) ?? 1) - 1;
  if (left > 0) book.busy.set(slot, left);
  else book.busy.delete(slot);
  book.held.delete(key);
}

/**
 * Frees `slot` after an answer and judges the pinning by its `timings` (see the module comment):
 * {@link SLOT_MISSES} `returning` sessions in a row that found less than {@link SLOT_KEPT_SHARE}
 * of what they left cached stop the pinning on this server. Returns why it stopped, when it stopped now. Mutates `book`.
 */
export function slotAnswered(book: SlotBook, key: string, slot: number, returning: boolean, timings: PromptTimings | undefined): string | undefined {
  const before = book.held.get(key);
  slotReleased(book, key, slot);
  if (!timings) return undefined;
  book.held.set(key, timings.promptN + timings.cacheN);
  if (book.off || !returning || before === undefined || before < SLOT_JUDGED_FROM_TOKENS) return undefined;
  if (timings.cacheN >= before * SLOT_KEPT_SHARE) {
    book.misses = 0;
    return undefined;
  }
  book.misses = (book.misses ?? 0) + 1;
  if (book.misses < SLOT_MISSES) return undefined;
  book.off =
    `sessions back on their slots found little of what they left there cached (the latest ${timings.cacheN} of ${before} tokens): ` +
    'the server does not keep them (idle slots cleared, or a KV cache too small for the sessions), so each session no longer gets a slot of its own';
  return book.off;
}

/** Stops the pinning on this server for good: it refused `id_slot` (`why`, the server's words). Mutates `book`. */
export function slotRefused(book: SlotBook, why: string): void {
  book.off ??= `the server refused id_slot (${why})`;
}
