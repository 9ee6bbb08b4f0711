/**
 * `SessionSlots` (src/endpoints/session-slots.ts) against a server that clears idle slots and
 * saves them: a save or restore the server took counts as taken whatever its answer's body (an
 * empty 200, as a proxy in front of llama-server may give).
 */
import { describe, expect, it } from 'vitest';
import { SessionSlots, type ServerSlots } from '../../src/endpoints/session-slots.js';

/**
 * The slot actions asked after the first look, in order, each answered 200 with an empty body; the
 * first look answered as llama-server does (its save with JSON, so the server is known to save).
 */
function server() {
  const actions: string[] = [];
  let probeSaved = false;
  const fetch = async (url: string) => {
    const { pathname, search } = new URL(url);
    if (pathname === '/completion') return Response.json({ content: '', timings: { prompt_n: 20, cache_n: 0 } });
    if (!probeSaved) {
      probeSaved = true;
      return Response.json({ id_slot: 3, filename: 'probe', n_saved: 20 });
    }
    actions.push(pathname + search);
    return new Response('', { status: 200 });
  };
  return { actions, fetch };
}

describe('SessionSlots on a server that clears idle slots and saves them', () => {
  it('restores a session switched back to after its slot was saved, though the save was answered with an empty body', async () => {
    const { actions, fetch } = server();
    const state: ServerSlots = { saved: new Map() };
    const slots = new SessionSlots({ root: 'http://127.0.0.1:9', slotsOf: async () => 4, state, headers: {}, fetch: fetch as never });
    const signal = new AbortController().signal;
    for (const key of ['a', 'b', 'a']) {
      const ticket = await slots.take(key, 'm', signal);
      ticket?.done({ prompt_n: 10, cache_n: 0 } as never);
    }
    expect(actions).toEqual(['/slots/0?action=save', '/slots/0?action=erase', '/slots/1?action=save', '/slots/1?action=erase', '/slots/0?action=restore']);
  });
});
