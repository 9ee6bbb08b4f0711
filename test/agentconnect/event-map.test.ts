import { describe, expect, it } from 'vitest';
import { contextUsageEvent, TurnEvents } from '../../src/agentconnect/event-map.js';

const text = (t: string) => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t } }) as const;
const thought = (t: string) => ({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: t } }) as const;

describe('TurnEvents', () => {
  it('streams text as deltas and ends with the whole text, usage before final', () => {
    const turn = new TurnEvents('s1');
    expect(turn.update(text('Hel'))).toEqual([{ type: 'delta', data: { text: 'Hel' } }]);
    expect(turn.update(text('lo'))).toEqual([{ type: 'delta', data: { text: 'lo' } }]);
    expect(turn.update(text(''))).toEqual([]);
    const end = turn.end({ stopReason: 'end_turn', usage: { inputTokens: 7, outputTokens: 2, totalTokens: 9, cachedReadTokens: 3 } });
    expect(end.map((event) => event.type)).toEqual(['usage', 'final']);
    expect(end[0]!.data).toEqual({ usage: { input_tokens: 7, output_tokens: 2, total_tokens: 9, cached_input_tokens: 3 } });
    expect(end[1]!.data).toEqual({ text: 'Hello', stopReason: 'end_turn', providerSessionId: 's1' });
  });

  it('keeps the window meter for the end of the turn: at most one context_usage per turn, the latest', () => {
    const turn = new TurnEvents('s1');
    expect(turn.update({ sessionUpdate: 'usage_update', used: 100, size: 8192 })).toEqual([]);
    expect(turn.update({ sessionUpdate: 'usage_update', used: 900, size: 8192 })).toEqual([]);
    const end = turn.end({ stopReason: 'end_turn' });
    expect(end).toEqual([contextUsageEvent(900, 8192), { type: 'final', data: { text: '', stopReason: 'end_turn', providerSessionId: 's1' } }]);
    expect(end[0]!.data).toEqual({ contextUsage: { context_window: 8192, context_tokens: 900, context_remaining_tokens: 7292 } });
  });

  it('brackets reasoning with thinking start and completed (completed before a tool call or at the end)', () => {
    const turn = new TurnEvents('s1');
    expect(turn.update(thought('hmm')).map((event) => event.data['phase'])).toEqual(['start', 'delta']);
    expect(turn.update(thought(' ok'))).toEqual([{ type: 'thinking', data: { provider: 'local', phase: 'delta', text: ' ok' } }]);
    const call = turn.update({
      sessionUpdate: 'tool_call',
      toolCallId: 'c1',
      title: 'Read a.txt',
      kind: 'read',
      status: 'pending',
      rawInput: { path: 'a.txt' },
    });
    expect(call.map((event) => [event.type, event.data['phase']])).toEqual([
      ['thinking', 'completed'],
      ['tool_call', 'start'],
    ]);
    turn.update(thought('again'));
    expect(turn.end({ stopReason: 'end_turn' }).map((event) => [event.type, event.data['phase']])).toEqual([
      ['thinking', 'completed'],
      ['final', undefined],
    ]);
  });

  it('maps a tool call and its result: start with the input, completed or error with the output, named by its title', () => {
    const turn = new TurnEvents('s1');
    expect(
      turn.update({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Read a.txt', kind: 'read', status: 'pending', rawInput: { path: 'a.txt' } }),
    ).toEqual([{ type: 'tool_call', data: { provider: 'local', callId: 'c1', name: 'Read a.txt', phase: 'start', input: { path: 'a.txt' } } }]);
    expect(turn.update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' })).toEqual([]);
    expect(
      turn.update({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'one\ntwo' } }],
      }),
    ).toEqual([{ type: 'tool_call', data: { provider: 'local', callId: 'c1', name: 'Read a.txt', phase: 'completed', output: 'one\ntwo' } }]);
    expect(turn.update({ sessionUpdate: 'tool_call_update', toolCallId: 'c2', status: 'failed', rawOutput: { error: 'refused' } })).toEqual([
      { type: 'tool_call', data: { provider: 'local', callId: 'c2', phase: 'error', output: { error: 'refused' } } },
    ]);
    expect(
      turn.update({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c3',
        status: 'completed',
        content: [{ type: 'diff', path: '/w/a.txt', oldText: 'a', newText: 'b' }],
      })[0]!.data['output'],
    ).toBe('(edited /w/a.txt)');
  });

  it('ends a cancelled turn with final cancelled: true and the text so far, a failed one with error; both name the session', () => {
    const cancelled = new TurnEvents('s1');
    cancelled.update(text('Once'));
    expect(cancelled.end({ stopReason: 'cancelled' }).at(-1)).toEqual({ type: 'final', data: { text: 'Once', cancelled: true, providerSessionId: 's1' } });

    const failed = new TurnEvents('s1');
    failed.update(text('The endpoint refused the key (HTTP 401).'));
    const end = failed.end({ stopReason: 'end_turn', _meta: { 'openai-acp': { error: { kind: 'auth', retryable: false } } } });
    expect(end).toEqual([{ type: 'error', data: { message: 'The endpoint refused the key (HTTP 401).', kind: 'auth', providerSessionId: 's1' } }]);
  });

  it('ignores updates AgentConnect has no event for', () => {
    const turn = new TurnEvents('s1');
    expect(turn.update({ sessionUpdate: 'plan', entries: [] })).toEqual([]);
    expect(turn.update({ sessionUpdate: 'available_commands_update', availableCommands: [] })).toEqual([]);
    expect(turn.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } })).toEqual([]);
  });
});

describe('the usage events', () => {
  it('usage is absent without usage and carries reasoning tokens when given', () => {
    expect(new TurnEvents('s1').end({ stopReason: 'end_turn' }).map((event) => event.type)).toEqual(['final']);
    const end = new TurnEvents('s1').end({ stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3, thoughtTokens: 1 } });
    expect(end[0]).toEqual({ type: 'usage', data: { usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3, reasoning_tokens: 1 } } });
  });

  it('never reports negative remaining tokens', () => {
    expect(contextUsageEvent(9000, 8192).data['contextUsage']).toMatchObject({ context_remaining_tokens: 0 });
  });
});
