/**
 * The watch of a turn's first byte: after LOADING_LOOK_MS without any of the answer, the server is
 * asked once; a model it says is loading is told once; an answer, a cancel, a loaded model or a
 * server that does not say tell nothing.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ModelLoadState } from '../../src/endpoints/model-loading.js';
import { LOADING_LOOK_MS, loadingNotice, watchLoading } from '../../src/loop/loading-notice.js';
import type { UserNotice } from '../../src/loop/notify.js';
import { agentText, stepMessageIds } from '../../src/loop/to-acp.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const LOADING: ModelLoadState = { loaded: false, said: 'GET /health answered 503 "Loading model"' };

function setup(state: ModelLoadState | undefined, signal = new AbortController().signal) {
  const told: UserNotice[] = [];
  const sent: SessionUpdate[][] = [];
  const look = vi.fn(async () => state);
  const watch = watchLoading({ model: 'qwen3:8b', look, notify: async (notice) => void told.push(notice), signal });
  const send = watch.watched(async (updates) => void sent.push(updates), 'turn1');
  return { told, sent, look, watch, send };
}

describe('watchLoading', () => {
  it('asks the server once after the wait and tells a loading model once', async () => {
    const { told, look } = setup(LOADING);
    await vi.advanceTimersByTimeAsync(LOADING_LOOK_MS - 1);
    expect(look).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(look).toHaveBeenCalledTimes(1);
    expect(told).toEqual([loadingNotice('qwen3:8b', LOADING)]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(look).toHaveBeenCalledTimes(1);
    expect(told[0]).toMatchObject({ title: 'Loading qwen3:8b on the server…', fallback: { text: 'Loading qwen3:8b on the server…\n\n' } });
    expect(told[0]!.description).toContain('GET /health answered 503 "Loading model"');
  });

  it('tells nothing once the answer began, while notices beside it do not count', async () => {
    const { told, look, send } = setup(LOADING);
    await send([agentText('A notice with its own message id.\n\n')]);
    await send([agentText('Hel', stepMessageIds('turn1', 0).text)]);
    await vi.advanceTimersByTimeAsync(LOADING_LOOK_MS * 2);
    expect(look).not.toHaveBeenCalled();
    expect(told).toEqual([]);
  });

  it('tells nothing for a loaded model, a server that does not say, a cancel or a turn that ended', async () => {
    for (const state of [{ loaded: true, said: 'GET /api/ps lists it' }, undefined]) {
      const { told } = setup(state);
      await vi.advanceTimersByTimeAsync(LOADING_LOOK_MS);
      expect(told).toEqual([]);
    }
    const cancel = new AbortController();
    const cancelled = setup(LOADING, cancel.signal);
    cancel.abort();
    await vi.advanceTimersByTimeAsync(LOADING_LOOK_MS);
    expect(cancelled.look).not.toHaveBeenCalled();
    const ended = setup(LOADING);
    ended.watch.stop();
    await vi.advanceTimersByTimeAsync(LOADING_LOOK_MS);
    expect(ended.told).toEqual([]);
  });
});
