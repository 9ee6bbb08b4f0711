/**
 * The slot of each session (pure decisions over one server's book): a slot per session, the
 * least recently used session's slot to a new one when there are more sessions than slots, no
 * wait for a busy slot, and the pinning stopped when sessions back on their slots find their
 * cache gone, or when the server refuses id_slot.
 */
import { describe, expect, it } from 'vitest';
import { chooseSlot, SLOT_MISSES, slotAnswered, slotBook, slotRefused, slotReleased, type SlotBook, type SlotChoice } from '../../src/endpoints/slot-book.js';
import { probeSlots, slotPolicy, type SlotPost } from '../../src/endpoints/slot-probe.js';

/** One request of `key` answered with `timings` (its prompt read and cached). */
function ask(book: SlotBook, key: string, timings?: { promptN: number; cacheN: number }): SlotChoice {
  const choice = chooseSlot(book, key);
  if (choice.slot !== undefined) slotAnswered(book, key, choice.slot, choice.returning, timings);
  return choice;
}

describe('chooseSlot', () => {
  it('gives each session a slot of its own and keeps it', () => {
    const book = slotBook(4);
    expect(ask(book, 'a').slot).toBe(0);
    expect(ask(book, 'b').slot).toBe(1);
    expect(ask(book, 'a').slot).toBe(0);
    expect(ask(book, 'c').slot).toBe(2);
    expect(ask(book, 'b').slot).toBe(1);
  });

  it('gives a new session the least recently used slot when there are more sessions than slots', () => {
    const book = slotBook(2);
    ask(book, 'a');
    ask(book, 'b');
    ask(book, 'a');
    const c = chooseSlot(book, 'c');
    expect(c).toMatchObject({ slot: 1, evicted: 'b', fresh: true });
    slotReleased(book, 'c', 1);
    // b comes back: a is now the least recently used.
    expect(chooseSlot(book, 'b')).toMatchObject({ slot: 0, evicted: 'a', fresh: true });
  });

  it('never waits: a busy slot sends the request without id_slot, and so do all slots busy', () => {
    const book = slotBook(2);
    const a = chooseSlot(book, 'a');
    expect(a.slot).toBe(0);
    // A background request of the same session while its turn's request runs (a summary).
    expect(chooseSlot(book, 'a')).toEqual({ why: 'busy' });
    const b = chooseSlot(book, 'b');
    expect(b.slot).toBe(1);
    // A third session with both slots busy gets none rather than waiting.
    expect(chooseSlot(book, 'c')).toEqual({ why: 'busy' });
    slotReleased(book, 'a', 0);
    expect(chooseSlot(book, 'c')).toMatchObject({ slot: 0, evicted: 'a' });
  });

  it('names no slot on a server with one', () => {
    expect(chooseSlot(slotBook(1), 'a')).toEqual({ why: 'one slot' });
  });

  it('marks a session returning after another session used the server', () => {
    const book = slotBook(4);
    ask(book, 'a', { promptN: 1500, cacheN: 0 });
    expect(chooseSlot(book, 'a')).toMatchObject({ returning: false });
    slotReleased(book, 'a', 0);
    ask(book, 'a', { promptN: 1500, cacheN: 0 });
    ask(book, 'b', { promptN: 1500, cacheN: 0 });
    expect(chooseSlot(book, 'a')).toMatchObject({ slot: 0, returning: true, fresh: false });
  });
});

describe('slotAnswered: the fallback', () => {
  it('keeps pinning while returning sessions find their cache', () => {
    const book = slotBook(4);
    ask(book, 'a', { promptN: 1500, cacheN: 0 });
    ask(book, 'b', { promptN: 1500, cacheN: 0 });
    for (let i = 0; i < 5; i++) {
      ask(book, 'a', { promptN: 40, cacheN: 1500 + i * 40 });
      ask(book, 'b', { promptN: 40, cacheN: 1500 + i * 40 });
    }
    expect(book.off).toBeUndefined();
  });

  it(`stops pinning after ${SLOT_MISSES} returns in a row found their slot cleared, and names no slot after`, () => {
    const book = slotBook(4);
    ask(book, 'a', { promptN: 1500, cacheN: 0 });
    ask(book, 'b', { promptN: 1500, cacheN: 0 });
    ask(book, 'a', { promptN: 1540, cacheN: 0 });
    expect(book.off).toBeUndefined();
    ask(book, 'b', { promptN: 1540, cacheN: 0 });
    expect(book.off).toMatch(/does not keep them/);
    expect(chooseSlot(book, 'a')).toEqual({ why: 'off' });
  });

  it('forgives one miss followed by a hit', () => {
    const book = slotBook(4);
    ask(book, 'a', { promptN: 1500, cacheN: 0 });
    ask(book, 'b', { promptN: 1500, cacheN: 0 });
    ask(book, 'a', { promptN: 1540, cacheN: 0 });
    ask(book, 'b', { promptN: 40, cacheN: 1500 });
    ask(book, 'a', { promptN: 1540, cacheN: 0 });
    expect(book.off).toBeUndefined();
  });

  it('does not judge a session that is not returning, or left too little in its slot', () => {
    const book = slotBook(4);
    ask(book, 'a', { promptN: 1500, cacheN: 0 });
    // The same session again with its prompt changed early (an edit): not a return.
    ask(book, 'a', { promptN: 1500, cacheN: 0 });
    ask(book, 'a', { promptN: 1500, cacheN: 0 });
    const small = slotBook(4);
    ask(small, 'a', { promptN: 20, cacheN: 0 });
    ask(small, 'b', { promptN: 20, cacheN: 0 });
    ask(small, 'a', { promptN: 20, cacheN: 0 });
    ask(small, 'b', { promptN: 20, cacheN: 0 });
    expect([book.off, small.off]).toEqual([undefined, undefined]);
  });

  it('stops pinning at once when the server refuses id_slot, keeping the first reason', () => {
    const book = slotBook(4);
    slotRefused(book, 'HTTP 400: Invalid id_slot');
    slotRefused(book, 'another');
    expect(book.off).toBe('the server refused id_slot (HTTP 400: Invalid id_slot)');
    expect(chooseSlot(book, 'a')).toEqual({ why: 'off' });
  });
});

describe('the first look at the slots', () => {
  /** A server that answers the probe as llama-server b11669 did: `keeps` for --no-cache-idle-slots, `saves` for --slot-save-path. */
  const server = (keeps: boolean, saves: boolean) => {
    const posts: [string, Record<string, unknown>][] = [];
    let completions = 0;
    const post: SlotPost = async (path, body) => {
      posts.push([path, body]);
      if (path === '/completion') return { timings: { prompt_n: 27, cache_n: ++completions === 3 && keeps ? 26 : 0 } };
      return saves ? { id_slot: 3, filename: body['filename'] } : undefined;
    };
    return { post, posts };
  };

  it('finds an idle slot kept or cleared with three short prompts on the highest two slots, and whether it saves', async () => {
    const kept = server(true, false);
    expect(await probeSlots(4, kept.post)).toEqual({ keeps: true, saves: false });
    expect(kept.posts.map(([path, body]) => [path, body['id_slot'], body['n_predict']])).toEqual([
      ['/completion', 3, 0],
      ['/completion', 2, 0],
      ['/completion', 3, 0],
      ['/slots/3?action=save', undefined, undefined],
    ]);
    expect(await probeSlots(4, server(false, true).post)).toEqual({ keeps: false, saves: true });
  });

  it('pins where idle slots are kept or saved, and not where they are cleared and cannot be saved or the look failed', async () => {
    expect(slotPolicy({ keeps: true, saves: false })).toBeUndefined();
    expect(slotPolicy({ keeps: false, saves: true })).toBeUndefined();
    expect(slotPolicy({ keeps: false, saves: false })).toMatch(/-np N --no-cache-idle-slots, or with --slot-save-path/);
    expect(await probeSlots(4, async () => undefined)).toEqual({ keeps: undefined, saves: false });
    expect(slotPolicy({ keeps: undefined, saves: false })).toMatch(/did not answer/);
  });
});
