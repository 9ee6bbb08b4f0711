import { describe, expect, it } from 'vitest';
import { contextUsageEvent, TurnEvents } from '../../src/agentconnect/event-map.js';

const text = (t: string, messageId = 'turn1-0-m') => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t }, messageId }) as const;
/** Words the agent writes itself: a message of their own under a fresh id (`agentText` in loop/to-acp.ts). */
const own = (t: string, messageId = '6f1c2a4e-9b0d-4c1e-8a57-0c3d2b1e4f60') => text(t, messageId);
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

  it('completes thinking when the answer text starts, as the reference host does (before the answer, not at the end of the turn)', () => {
    const turn = new TurnEvents('s1');
    expect(turn.update(thought('plan')).map((event) => event.data['phase'])).toEqual(['start', 'delta']);
    expect(turn.update(text('Answer')).map((event) => [event.type, event.data['phase'] ?? event.data['text']])).toEqual([
      ['thinking', 'completed'],
      ['delta', 'Answer'],
    ]);
    expect(turn.update(text(' goes on'))).toEqual([{ type: 'delta', data: { text: ' goes on' } }]);
    expect(turn.end({ stopReason: 'end_turn' }).map((event) => event.type)).toEqual(['final']);
  });

  it("tells a notice as the host's own system message, never as thinking or as the answer", () => {
    const turn = new TurnEvents('s1');
    expect(turn.update({ sessionUpdate: 'notice', severity: 'warning', title: 'Small context window', description: 'Set OPENAI_CONTEXT_WINDOW.' })).toEqual([
      { type: 'message', data: { provider: 'local', role: 'system', content: 'Small context window: Set OPENAI_CONTEXT_WINDOW.' } },
    ]);
    turn.update(text('Hi'));
    expect(turn.end({ stopReason: 'end_turn' })).toEqual([{ type: 'final', data: { text: 'Hi', stopReason: 'end_turn', providerSessionId: 's1' } }]);
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
    expect(failed.update(own('The endpoint refused the key (HTTP 401).'))).toEqual([]);
    const end = failed.end({ stopReason: 'end_turn', _meta: { 'openai-acp': { error: { kind: 'auth', retryable: false } } } });
    expect(end).toEqual([{ type: 'error', data: { message: 'The endpoint refused the key (HTTP 401).', kind: 'auth', providerSessionId: 's1' } }]);
  });

  it("gives a failed turn's error the failure's words only, never the answer streamed before it (3,000 tokens, then the stream broke off)", () => {
    const turn = new TurnEvents('s1');
    const deltas: string[] = [];
    for (let i = 0; i < 3000; i++) for (const event of turn.update(text(`d${i} `))) deltas.push(event.data['text'] as string);
    const failure = "The endpoint's answer broke off (the connection closed before the stream ended). Ask again.";
    expect(turn.update(own(`\n\n${failure}`))).toEqual([]);
    // What the agent sends after the failure's words: the meter, the session's title.
    turn.update({ sessionUpdate: 'usage_update', used: 3100, size: 8192 });
    expect(turn.update({ sessionUpdate: 'session_info_update', title: 'Count' })).toEqual([]);
    const end = turn.end({
      stopReason: 'end_turn',
      _meta: { 'openai-acp': { error: { kind: 'stream', retryable: true }, message: "Internal error: the endpoint's answer broke off" } },
    });
    expect(end.map((event) => event.type)).toEqual(['context_usage', 'error']);
    expect(end.at(-1)!.data).toEqual({ message: failure, kind: 'stream', providerSessionId: 's1' });
    // The answer streamed as it came, without the failure's words.
    expect(deltas.join('')).not.toContain('broke off');
    expect(deltas).toHaveLength(3000);
  });

  it("words with the failure's summary when the failure's words never came", () => {
    const turn = new TurnEvents('s1');
    turn.update(text('partial'));
    const end = turn.end({
      stopReason: 'end_turn',
      _meta: { 'openai-acp': { error: { kind: 'http', status: 500, retryable: true }, message: 'Internal error: the endpoint answered HTTP 500' } },
    });
    expect(end).toEqual([{ type: 'error', data: { message: 'The endpoint answered HTTP 500.', kind: 'http', providerSessionId: 's1' } }]);
    expect(new TurnEvents('s1').end({ stopReason: 'end_turn', _meta: { 'openai-acp': { error: { kind: 'internal' } } } }).at(-1)!.data['message']).toBe(
      'The model request failed.',
    );
  });

  it("streams the agent's own words as the answer once the turn goes on, or when it ends without failing", () => {
    const turn = new TurnEvents('s1');
    expect(turn.update(own('(The server was loading the model.)\n\n'))).toEqual([]);
    expect(turn.update(text('Hello')).map((event) => event.data['text'])).toEqual(['(The server was loading the model.)\n\n', 'Hello']);
    expect(turn.update(own('\n\nStopped: the step limit was reached.', 'b0c1d2e3-0000-4000-8000-000000000001'))).toEqual([]);
    const end = turn.end({ stopReason: 'max_turn_requests' });
    expect(end).toEqual([
      { type: 'delta', data: { text: '\n\nStopped: the step limit was reached.' } },
      {
        type: 'final',
        data: {
          text: '(The server was loading the model.)\n\nHello\n\nStopped: the step limit was reached.',
          stopReason: 'max_turn_requests',
          providerSessionId: 's1',
        },
      },
    ]);
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
