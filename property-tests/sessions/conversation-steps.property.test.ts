import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { answerMessages, liveConversation } from '../../src/sessions/conversation.js';
import type { StepRecord, TurnRecord } from '../../src/sessions/session-records.js';

const id = fc.stringMatching(/^[a-z0-9_]{1,12}$/);
const stepArb: fc.Arbitrary<StepRecord> = fc
  .record({ text: fc.string({ maxLength: 20 }), reasoning: fc.string({ maxLength: 10 }), ids: fc.uniqueArray(id, { minLength: 1, maxLength: 4 }) })
  .map(({ text, reasoning, ids }) => ({
    text,
    reasoning,
    toolCalls: ids.map((i) => ({ id: i, name: 'read_file', arguments: '{}' })),
    results: ids.map((i) => ({ id: i, toolCallId: `acp-${i}`, title: 't', kind: 'read', status: 'completed' as const, content: [], forModel: `r-${i}` })),
  }));
/** A step whose answer called no tool: an answer the user's message came after (`_session/steering`). */
const textStepArb: fc.Arbitrary<StepRecord> = fc.string({ maxLength: 20 }).map((text) => ({ text, reasoning: '', toolCalls: [], results: [] }));
const turnArb: fc.Arbitrary<TurnRecord> = fc
  .record({
    type: fc.constant('turn' as const),
    at: fc.constant('2026-11-23T00:00:00.000Z'),
    prompt: fc.string({ maxLength: 10 }).map((text) => [{ type: 'text' as const, text }]),
    assistant: fc.oneof(fc.constant(''), fc.string({ maxLength: 20 })),
    reasoning: fc.constant(''),
    stopReason: fc.constantFrom('end_turn', 'cancelled', 'max_turn_requests'),
    steps: fc.option(fc.array(fc.oneof(stepArb, textStepArb), { maxLength: 4 }), { nil: undefined }),
    steering: fc.option(fc.array(fc.record({ afterStep: fc.nat({ max: 6 }), text: fc.string({ maxLength: 8 }) }), { maxLength: 4 }), { nil: undefined }),
  })
  .map(({ steering, ...turn }) => ({
    ...turn,
    ...(steering
      ? {
          steering: steering
            .map(({ afterStep, text }) => ({ at: turn.at, afterStep, prompt: [{ type: 'text' as const, text }] }))
            .sort((a, b) => a.afterStep - b.afterStep),
        }
      : {}),
  }));

/** Every tool message follows (in the same run of tool messages) the assistant message carrying its id, in call order. */
function checkToolOrder(messages: readonly ChatMessage[]): void {
  let expected: string[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') {
      // an assistant message may only come once the previous one's calls all got a result
      expect(expected).toEqual([]);
      expected = (message.tool_calls ?? []).map((c) => c.id);
    } else if (message.role === 'tool') {
      expect(expected.length).toBeGreaterThan(0);
      expect(message.tool_call_id).toBe(expected.shift());
    } else {
      expect(expected).toEqual([]);
      if (index > 0) expect(messages[index - 1]?.role).not.toBe('tool');
      // user and assistant alternate: never two user messages in a row
      if (index > 0 && message.role === 'user') expect(messages[index - 1]?.role).not.toBe('user');
    }
  }
  expect(expected).toEqual([]);
  expect(messages.at(-1)?.role).not.toBe('tool');
}

describe('answerMessages properties', () => {
  it('every tool message follows the assistant message carrying its tool_call_id, in order; none ends a turn', () => {
    fc.assert(
      fc.property(turnArb, (turn) => {
        const messages = answerMessages(turn);
        checkToolOrder(messages);
        const calls = (turn.steps ?? []).flatMap((s) => s.toolCalls.map((c) => c.id));
        expect(messages.filter((m) => m.role === 'tool').map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual(calls);
      }),
    );
  });
  it('over a whole conversation no user message directly follows a tool message', () => {
    fc.assert(
      fc.property(fc.array(turnArb, { maxLength: 6 }), (turns) => {
        const live = liveConversation(turns);
        checkToolOrder([...live.turns.flat(), { role: 'user', content: 'next' }]);
      }),
    );
  });
  it('every message the user sent into a turn is sent to the model once: in its turn, or in front of the next prompt', () => {
    fc.assert(
      fc.property(fc.array(turnArb, { maxLength: 5 }), (turns) => {
        const marked = turns.map((turn, t) => ({
          ...turn,
          prompt: [{ type: 'text' as const, text: `P${t}.` }],
          ...(turn.steering ? { steering: turn.steering.map((s, i) => ({ ...s, prompt: [{ type: 'text' as const, text: `S${t}-${i}.` }] })) } : {}),
        }));
        const live = liveConversation(marked);
        const sent = JSON.stringify([...live.turns.flat(), live.unanswered]);
        for (const [t, turn] of marked.entries())
          for (const i of (turn.steering ?? []).keys()) expect(sent.split(`S${t}-${i}.`).length - 1, `S${t}-${i}`).toBe(1);
      }),
    );
  });
});
