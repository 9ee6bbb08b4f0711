/**
 * A slot per session on a llama.cpp server with several (`slot-book.ts` decides; this is its I/O):
 * the number of slots from `/props` `total_slots` (through the endpoint's window lookup), and,
 * where the server was started with `--slot-save-path`, the slot of a session switched away from
 * saved to a file (then erased) and restored when the session returns
 * (`POST /slots/{id}?action=save|restore` with `{"filename"}`, `action=erase`, tools/server/README.md), so a server that clears idle slots (its default)
 * or has fewer slots than sessions still serves each session from its own cache. A server without
 * it answers the first save with an error and is not asked again.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../shared/log.js';
import type { FetchLike } from '../openai/http.js';
import { defaultFetch } from '../openai/http.js';
import { readBodyUpTo } from '../openai/body-limits.js';
import type { SlotRouter, SlotTicket } from '../openai/slot-routing.js';
import { chooseSlot, slotAnswered, slotBook, slotRefused, slotReleased, type SlotBook } from './slot-book.js';
import { probeSlots, slotPolicy, type SlotPost, type SlotProbe } from './slot-probe.js';
import { SERVER_CONTEXT_TIMEOUT_MS } from './server-context.js';

/** Bound of one save or restore, in ms (a file of a slot's cache: megabytes to a few gigabytes). */
const SLOT_FILE_TIMEOUT_MS = 30_000;

/** A server's slots as this agent uses them, kept with what the agent learned (so a provider change forgets nothing). */
export interface ServerSlots {
  book?: SlotBook;
  /** The first look at the server ({@link probeSlots}), shared by the requests that wait for it. */
  probe?: Promise<SlotProbe>;
  /** Whether the server saves and restores slots (`--slot-save-path`). */
  saves?: boolean;
  /** Sessions whose slot was saved to a file since their latest request, with the slot it was saved from. */
  readonly saved: Map<string, number>;
}

/** What the router needs. */
export interface SessionSlotsOptions {
  /** The server root, e.g. `http://127.0.0.1:8080` (the `/slots` routes are there). */
  root: string;
  /** The slots the server has for `model` (`/props` `total_slots`), or `undefined`. */
  slotsOf: (model: string) => Promise<number | undefined>;
  /** This server's state, shared across the endpoint's rebuilds. */
  state: ServerSlots;
  /** Request headers (auth), as the endpoint sends them. */
  headers: Record<string, string>;
  logger?: Logger | undefined;
  fetch?: FetchLike | undefined;
}

/** The file a session's slot is saved to: a digest of the session key (no path, no secret). */
function slotFileName(key: string): string {
  return `openai-acp-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.bin`;
}

/** Most bytes read of a slot route's answer: a small JSON object (the slot's id, tokens saved). */
const MAX_SLOT_ANSWER_BYTES = 64 * 1024;

/**
 * One POST of `body` to a slot route of the server at `root`, on a connection of its own
 * (llama-server closes connections after some answers: a pooled one may be gone), bounded by
 * `signal`. Resolves whether the server said yes and its JSON answer (at most
 * {@link MAX_SLOT_ANSWER_BYTES}; `undefined` when cut or not JSON). Never rejects: a failure is `ok: false`.
 */
async function postToSlots(
  server: { root: string; headers: Record<string, string>; fetch?: FetchLike | undefined },
  path: string,
  body: Record<string, unknown>,
  signal: AbortSignal,
): Promise<{ ok: boolean; answer?: unknown }> {
  try {
    const fetch = server.fetch ?? (await defaultFetch());
    const response = await fetch(`${server.root}${path}`, {
      method: 'POST',
      headers: { ...server.headers, 'content-type': 'application/json', accept: 'application/json', connection: 'close' },
      body: JSON.stringify(body),
      signal,
    });
    const { text, cut } = await readBodyUpTo(response, MAX_SLOT_ANSWER_BYTES);
    return { ok: response.ok, answer: response.ok && !cut ? jsonOrUndefined(text) : undefined };
  } catch {
    return { ok: false };
  }
}

/** `text` parsed as JSON, or `undefined` when it is not JSON (an empty answer to a slot action the server still took). */
function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * {@link SlotPost} over HTTP to the server at `root`, each request bounded by {@link SERVER_CONTEXT_TIMEOUT_MS} (as every look at a server).
 */
export function slotPost(root: string, headers: Record<string, string>, fetchLike?: FetchLike): SlotPost {
  return async (path, body) => (await postToSlots({ root, headers, fetch: fetchLike }, path, body, AbortSignal.timeout(SERVER_CONTEXT_TIMEOUT_MS))).answer;
}

/** Gives each session a slot of its own on one server (see the module comment). */
export class SessionSlots implements SlotRouter {
  constructor(private readonly options: SessionSlotsOptions) {}

  async take(key: string, model: string, signal: AbortSignal): Promise<SlotTicket | undefined> {
    const { state, logger } = this.options;
    if (state.book?.off) return undefined;
    const total = await this.options.slotsOf(model).catch(() => undefined);
    if (!total || total < 2) return undefined;
    if (!state.book) {
      state.probe ??= this.probe(total);
      const found = await state.probe;
      if (!state.book) {
        state.book = slotBook(total);
        state.saves = found.saves;
        state.book.keeps = found.keeps === true;
        const why = slotPolicy(found);
        if (why) state.book.off = why;
        logger?.info(why ? `slots: ${why}` : `slots: each session gets one of the ${total} slots`, { root: this.options.root, ...found });
        if (why) return undefined;
      }
    }
    const book = state.book;
    const previous = book.last;
    const previousSlot = previous === undefined ? undefined : book.pins.get(previous);
    const choice = chooseSlot(book, key);
    if (choice.slot === undefined) return undefined;
    const slot = choice.slot;
    // The session switched away from is saved before this request reaches a server that clears idle slots.
    if (state.saves && !book.keeps && previous !== undefined && previous !== key && previousSlot !== undefined && !book.busy.has(previousSlot))
      if (await this.file('save', previousSlot, previous, signal)) {
        state.saved.set(previous, previousSlot);
        // Its cells go back to a unified KV cache now (the server would clear the idle slot anyway), so a restore has room.
        await this.file('erase', previousSlot, previous, signal);
      }
    // The session whose slot this was keeps its cache in a file until it returns.
    if (state.saves && choice.evicted !== undefined && (await this.file('save', slot, choice.evicted, signal))) state.saved.set(choice.evicted, slot);
    // Back after a switch on a server that clears idle slots, or in another slot: its cache comes back from the file.
    const from = state.saved.get(key);
    const restore = from !== undefined && (!book.keeps || from !== slot || choice.fresh);
    const restored = restore && (await this.file('restore', slot, key, signal));
    state.saved.delete(key);
    const returning = choice.returning || restored;
    let settled = false;
    return {
      slot,
      done: (timings) => {
        if (settled) return;
        settled = true;
        if (!timings) return slotReleased(book, key, slot);
        const why = slotAnswered(book, key, slot, returning, timings);
        if (why) logger?.info(`slots: ${why}`, { root: this.options.root });
      },
      refused: (why) => slotRefused(book, why),
    };
  }

  /** The first look (see {@link probeSlots}). Never rejects. */
  private probe(total: number): Promise<SlotProbe> {
    return probeSlots(total, slotPost(this.options.root, this.options.headers, this.options.fetch));
  }

  /** One save or restore of `slot` to or from `key`'s file, or its erasure; false when it failed. */
  private async file(action: 'save' | 'restore' | 'erase', slot: number, key: string, signal: AbortSignal): Promise<boolean> {
    const body = action === 'erase' ? {} : { filename: slotFileName(key) };
    const timeout = AbortSignal.timeout(SLOT_FILE_TIMEOUT_MS);
    return (await postToSlots(this.options, `/slots/${slot}?action=${action}`, body, AbortSignal.any([signal, timeout]))).ok;
  }
}
