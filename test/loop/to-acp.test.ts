import { describe, expect, it } from 'vitest';
import { agentText, eventsToUpdates, mapFinishReason, toAcpUsage, usageUpdate } from '../../src/loop/to-acp.js';

type Events = Parameters<typeof eventsToUpdates>[0];
const events = (...list: Array<Record<string, unknown>>) => list as unknown as Events;
const IDS = { text: 'm-1', reasoning: 'r-1' };
const message = (text: string) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, messageId: IDS.text });
const thought = (text: string) => ({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text }, messageId: IDS.reasoning });

describe('mapFinishReason', () => {
  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['max_tokens', 'max_tokens'],
    ['content_filter', 'refusal'],
    ['tool_calls', 'end_turn'],
    ['function_call', 'end_turn'],
    ['eos', 'end_turn'],
    [null, 'end_turn'],
    [undefined, 'end_turn'],
  ] as const)('%s → %s', (reason, stop) => {
    expect(mapFinishReason(reason)).toBe(stop);
  });
});

describe('eventsToUpdates', () => {
  it('merges consecutive text events into one message chunk', () => {
    expect(eventsToUpdates(events({ type: 'text', text: 'Hel' }, { type: 'text', text: 'lo' }, { type: 'text', text: '!' }), IDS)).toEqual([message('Hello!')]);
  });

  it('merges consecutive reasoning events and keeps the order of alternating runs', () => {
    const updates = eventsToUpdates(
      events(
        { type: 'reasoning', text: 'think ' },
        { type: 'reasoning', text: 'more' },
        { type: 'text', text: 'answer' },
        { type: 'text', text: ' 1' },
        { type: 'reasoning', text: 'again' },
        { type: 'text', text: 'answer 2' },
      ),
      IDS,
    );
    expect(updates).toEqual([thought('think more'), message('answer 1'), thought('again'), message('answer 2')]);
  });

  it('ignores usage, finish, tool-call and error events without splitting a run', () => {
    const updates = eventsToUpdates(
      events(
        { type: 'text', text: 'a' },
        { type: 'usage', usage: { prompt_tokens: 1 } },
        { type: 'text', text: 'b' },
        { type: 'tool_call', index: 0, id: 'c', name: 'f', arguments: '{}' },
        { type: 'finish', reason: 'stop' },
        { type: 'error', message: 'x' },
      ),
      IDS,
    );
    expect(updates).toEqual([message('ab')]);
  });

  it('produces nothing for empty text and no events', () => {
    expect(eventsToUpdates(events(), IDS)).toEqual([]);
    expect(eventsToUpdates(events({ type: 'text', text: '' }, { type: 'reasoning', text: '' }), IDS)).toEqual([]);
    expect(eventsToUpdates(events({ type: 'usage', usage: {} }), IDS)).toEqual([]);
  });
});

describe('agentText', () => {
  it('is an agent message chunk', () => {
    expect(agentText('oops', 'm-1')).toEqual(message('oops'));
  });

  it('is a message of its own unless an id is given', () => {
    const a = agentText('one') as { messageId: string };
    const b = agentText('two') as { messageId: string };
    expect(a.messageId).toEqual(expect.any(String));
    expect(a.messageId).not.toBe(b.messageId);
  });
});

describe('usageUpdate with a cost', () => {
  it('carries the session cost only when one is given', () => {
    expect(usageUpdate({ prompt_tokens: 10, completion_tokens: 5 }, 100)).toEqual({ sessionUpdate: 'usage_update', used: 15, size: 100 });
    expect(usageUpdate({ prompt_tokens: 10, completion_tokens: 5 }, 100, { amount: 0.000212, currency: 'USD' })).toEqual({
      sessionUpdate: 'usage_update',
      used: 15,
      size: 100,
      cost: { amount: 0.000212, currency: 'USD' },
    });
  });
});

describe('toAcpUsage', () => {
  it('maps token counts', () => {
    expect(toAcpUsage({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 })).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
    });
  });

  it('keeps a reported total even when the parts do not add up (xAI)', () => {
    expect(toAcpUsage({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 40 }).totalTokens).toBe(40);
  });

  it('computes the total when missing or zero', () => {
    expect(toAcpUsage({ prompt_tokens: 10, completion_tokens: 5 }).totalTokens).toBe(15);
    expect(toAcpUsage({ prompt_tokens: 10, completion_tokens: 5, total_tokens: null }).totalTokens).toBe(15);
    expect(toAcpUsage({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 0 }).totalTokens).toBe(7);
  });

  it('adds thoughtTokens and cachedReadTokens only when reported and non-zero', () => {
    const full = toAcpUsage({
      prompt_tokens: 100,
      completion_tokens: 50,
      total_tokens: 150,
      completion_tokens_details: { reasoning_tokens: 30 },
      prompt_tokens_details: { cached_tokens: 64 },
    });
    expect(full).toEqual({ inputTokens: 100, outputTokens: 50, totalTokens: 150, thoughtTokens: 30, cachedReadTokens: 64 });

    const zeros = toAcpUsage({
      prompt_tokens: 1,
      completion_tokens: 1,
      completion_tokens_details: { reasoning_tokens: 0 },
      prompt_tokens_details: { cached_tokens: null },
    });
    expect('thoughtTokens' in zeros).toBe(false);
    expect('cachedReadTokens' in zeros).toBe(false);
    const none = toAcpUsage({ prompt_tokens: 1, completion_tokens: 1, completion_tokens_details: null, prompt_tokens_details: null });
    expect(Object.keys(none).sort()).toEqual(['inputTokens', 'outputTokens', 'totalTokens']);
  });

  it('treats missing, negative and non-numeric counts as 0 and floors fractions', () => {
    expect(toAcpUsage({})).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(toAcpUsage({ prompt_tokens: -4, completion_tokens: 'x' as never, total_tokens: Number.NaN })).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
    });
    expect(toAcpUsage({ prompt_tokens: 2.9, completion_tokens: 1.2 })).toEqual({ inputTokens: 2, outputTokens: 1, totalTokens: 3 });
  });
});

describe('usageUpdate', () => {
  it('reports prompt plus answer as used, and the context window as size', () => {
    expect(usageUpdate({ prompt_tokens: 1200, completion_tokens: 300, total_tokens: 9999 }, 128_000)).toEqual({
      sessionUpdate: 'usage_update',
      used: 1500,
      size: 128_000,
    });
  });

  it('works with partial usage', () => {
    expect(usageUpdate({ prompt_tokens: 7 }, 8192)).toEqual({ sessionUpdate: 'usage_update', used: 7, size: 8192 });
  });
});
