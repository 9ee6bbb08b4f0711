/**
 * Messages the user sent into a running turn (`_session/steering`) in the saved turn: where they
 * sit in what the model is sent again, which ones go in front of the next prompt, how a replay
 * shows them, and how they read back from a session file.
 */
import { describe, expect, it } from 'vitest';
import { replayUpdates } from '../../src/acp/replay.js';
import { answerMessages, liveConversation, STEERED_AFTER_TOOLS, unansweredSteering } from '../../src/sessions/conversation.js';
import type { StepRecord, SteeringRecord, TurnRecord } from '../../src/sessions/session-records.js';
import { parseRecord } from '../../src/sessions/parse-record.js';

const at = '2026-11-23T10:00:00.000Z';
const toolStep = (id: string): StepRecord => ({
  text: '',
  reasoning: '',
  toolCalls: [{ id, name: 'read_file', arguments: '{}' }],
  results: [{ id, toolCallId: `acp-${id}`, title: `Read ${id}`, kind: 'read', status: 'completed', content: [], forModel: `contents of ${id}` }],
});
const textStep = (text: string): StepRecord => ({ text, reasoning: '', toolCalls: [], results: [] });
const steer = (text: string, afterStep: number): SteeringRecord => ({ at, afterStep, prompt: [{ type: 'text', text }] });
const turn = (fields: Partial<TurnRecord>): TurnRecord => ({
  type: 'turn',
  at,
  id: 't1',
  prompt: [{ type: 'text', text: 'the task' }],
  assistant: 'done',
  reasoning: '',
  stopReason: 'end_turn',
  ...fields,
});
/** Each message as `role: content` (`calls` for an assistant message that only calls tools). */
const roles = (record: TurnRecord) => answerMessages(record).map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : 'calls'}`);

describe('answerMessages with steering', () => {
  it('puts a message sent during a tool step after its results, with the note that keeps user from following tool', () => {
    expect(roles(turn({ steps: [toolStep('a')], steering: [steer('use tabs', 1)] }))).toEqual([
      'assistant: calls',
      'tool: contents of a',
      `assistant: ${STEERED_AFTER_TOOLS}`,
      'user: use tabs',
      'assistant: done',
    ]);
  });

  it('puts a message sent while the model answered in text right after that answer, and two in a row into one user message', () => {
    const record = turn({ steps: [textStep('Here is a plan')], steering: [steer('shorter', 1), steer('in French', 1)] });
    expect(roles(record)).toEqual(['assistant: Here is a plan', 'user: shorter\n\nin French', 'assistant: done']);
  });

  it('leaves out, for the next prompt, a message no answer of the turn followed', () => {
    const cancelled = turn({ steps: [toolStep('a')], steering: [steer('seen', 1), steer('too late', 1)], assistant: '', stopReason: 'cancelled' });
    // Both came after the only step, but no answer followed them: the turn ends after the tool results.
    expect(roles(cancelled).slice(-1)).toEqual(['assistant: (The turn ended here, after the tool results above.)']);
    expect(unansweredSteering(cancelled)).toEqual([
      { type: 'text', text: 'seen' },
      { type: 'text', text: '\n\n' },
      { type: 'text', text: 'too late' },
    ]);
    const afterFinal = turn({ steps: [toolStep('a')], steering: [steer('after the answer', 2)] });
    expect(roles(afterFinal).at(-1)).toBe('assistant: done');
    expect(unansweredSteering(afterFinal)).toEqual([{ type: 'text', text: 'after the answer' }]);
  });

  it('never ends a turn with two assistant messages when a text step was followed by an unanswered message', () => {
    const record = turn({ steps: [textStep('half an answer')], steering: [steer('wait', 1)], assistant: '', stopReason: 'cancelled' });
    expect(roles(record)).toEqual(['assistant: half an answer']);
  });
});

describe('liveConversation with steering', () => {
  it('folds unanswered steering into the next user message, after the turn it came in', () => {
    const cancelled = turn({ steps: [toolStep('a')], steering: [steer('stop, use tabs', 1)], assistant: '', stopReason: 'cancelled' });
    const live = liveConversation([cancelled, turn({ id: 't2', prompt: [{ type: 'text', text: 'go on' }] })]);
    expect(live.turns).toHaveLength(2);
    expect(live.turns[1]![0]).toEqual({ role: 'user', content: 'stop, use tabs\n\ngo on' });
    expect(liveConversation([cancelled]).unanswered).toEqual([{ type: 'text', text: 'stop, use tabs' }]);
  });

  it('a turn with no answer at all carries its prompt and its steering, in order', () => {
    const unanswered = turn({ assistant: '', stopReason: 'cancelled', steering: [steer('also this', 0)] });
    expect(liveConversation([unanswered]).unanswered).toEqual([
      { type: 'text', text: 'the task' },
      { type: 'text', text: '\n\n' },
      { type: 'text', text: 'also this' },
    ]);
  });
});

describe('replayUpdates with steering', () => {
  it('shows each message the user sent after the answer it followed, with its own message id', () => {
    const record = turn({ steps: [toolStep('a'), textStep('thinking aloud')], steering: [steer('one', 1), steer('two', 2), steer('late', 3)] });
    const shown = replayUpdates([record]).map((u) =>
      u.sessionUpdate === 'user_message_chunk' || u.sessionUpdate === 'agent_message_chunk'
        ? `${u.sessionUpdate}:${(u.content as { text: string }).text}:${u.messageId}`
        : u.sessionUpdate,
    );
    expect(shown).toEqual([
      'user_message_chunk:the task:t1-u',
      'tool_call',
      'tool_call_update',
      'user_message_chunk:one:t1-s0',
      'agent_message_chunk:thinking aloud:t1-1-m',
      'user_message_chunk:two:t1-s1',
      'agent_message_chunk:done:t1-2-m',
      'user_message_chunk:late:t1-s2',
    ]);
  });
});

describe('parseRecord with steering', () => {
  it('keeps valid steering and drops a malformed list, not the turn', () => {
    const record = turn({ steps: [toolStep('a')], steering: [steer('x', 1)] });
    expect((parseRecord(JSON.parse(JSON.stringify(record))) as TurnRecord).steering).toEqual([steer('x', 1)]);
    for (const bad of [[{ at, afterStep: -1, prompt: [] }], [{ at, afterStep: 1, prompt: 'x' }], 'x', [{ afterStep: 1, prompt: [] }]]) {
      const parsed = parseRecord({ ...record, steering: bad }) as TurnRecord;
      expect(parsed).toBeDefined();
      expect(parsed.steering).toBeUndefined();
    }
  });
});
