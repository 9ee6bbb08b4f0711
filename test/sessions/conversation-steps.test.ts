import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayUpdates } from '../../src/acp/replay.js';
import { createLogger } from '../../src/shared/log.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { answerMessages, ENDED_AFTER_TOOLS, liveConversation } from '../../src/sessions/conversation.js';
import type { StepRecord, TurnRecord } from '../../src/sessions/session-records.js';
import { parseRecord } from '../../src/sessions/parse-record.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { fitContext } from '../../src/context/context-fit.js';

const result = (id: string, forModel: string, status: 'completed' | 'failed' = 'completed') => ({
  id,
  toolCallId: `acp-${id}`,
  title: `Read ${id}`,
  kind: 'read',
  status,
  rawInput: { path: `${id}.txt` },
  content: [{ type: 'content', content: { type: 'text', text: forModel } }],
  locations: [{ path: `/p/${id}.txt` }],
  forModel,
});
const step = (ids: string[], text = ''): StepRecord => ({
  text,
  reasoning: '',
  toolCalls: ids.map((id) => ({ id, name: 'read_file', arguments: JSON.stringify({ path: `${id}.txt` }) })),
  results: ids.map((id) => result(id, `contents of ${id}`)),
});
const turn = (prompt: string, assistant: string, steps?: StepRecord[]): TurnRecord => ({
  type: 'turn',
  at: '2026-11-23T10:00:00.000Z',
  prompt: [{ type: 'text', text: prompt }],
  assistant,
  reasoning: '',
  stopReason: 'end_turn',
  ...(steps ? { steps } : {}),
});

describe('answerMessages with steps', () => {
  it('gives each step as an assistant tool_calls message then its tool messages in order, then the answer', () => {
    const messages = answerMessages(turn('q', 'final', [step(['a', 'b'], 'looking'), step(['c'])]));
    expect(messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant']);
    const first = messages[0] as Extract<ChatMessage, { role: 'assistant' }>;
    expect(first.content).toBe('looking');
    expect(first.tool_calls?.map((c) => c.id)).toEqual(['a', 'b']);
    expect(messages.slice(1, 3)).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'contents of a' },
      { role: 'tool', tool_call_id: 'b', content: 'contents of b' },
    ]);
    expect((messages[3] as Extract<ChatMessage, { role: 'assistant' }>).content).toBeNull();
    expect(messages[5]).toEqual({ role: 'assistant', content: 'final' });
  });
  it('ends a turn that stopped after tools with ENDED_AFTER_TOOLS', () => {
    const messages = answerMessages(turn('q', '', [step(['a'])]));
    expect(messages.at(-1)).toEqual({ role: 'assistant', content: ENDED_AFTER_TOOLS });
  });
  it('a turn with neither steps nor text gives nothing', () => {
    expect(answerMessages(turn('q', ''))).toEqual([]);
  });
});

describe('liveConversation with steps', () => {
  it('keeps tool turns as answered and puts the next user message after an assistant message', () => {
    const live = liveConversation([turn('one', '', [step(['a'])]), turn('two', 'ok')]);
    expect(live.turns).toHaveLength(2);
    expect(live.turns[0]!.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(live.unanswered).toEqual([]);
  });
  it('context fitting drops a turn with its tool messages (once stubs are not enough), never a part of it', () => {
    const big = 'x'.repeat(4000);
    const old = turn('old', 'done', [{ ...step(['a']), results: [result('a', big)] }]);
    const recent = turn('recent', 'fine', [step(['b'])]);
    const live = liveConversation([old, recent]);
    const current: ChatMessage = { role: 'user', content: 'now' };
    // room for the recent turn and the current message, not for the old turn too
    const needed = fitContext({ turns: live.turns.slice(1), task: current, contextWindow: undefined }).rawEstimatedTokens;
    const plan = fitContext({ turns: live.turns, task: current, contextWindow: needed + 10, reserveTokens: 0 });
    expect(plan.droppedTurns).toBe(1);
    expect(plan.messages).toEqual([...live.turns[1]!, current]);
    // every tool message kept still has its assistant tool_calls message before it
    const ids = new Set<string>();
    for (const m of plan.messages) {
      if (m.role === 'assistant') for (const c of m.tool_calls ?? []) ids.add(c.id);
      if (m.role === 'tool') expect(ids.has(m.tool_call_id)).toBe(true);
    }
  });
});

describe('replayUpdates with steps', () => {
  it('shows each call as tool_call then tool_call_update with status and content, before the answer', () => {
    const failed = { ...step(['b']), results: [result('b', 'no such file', 'failed')] };
    const updates = replayUpdates([turn('q', 'answer', [step(['a'], 'checking'), failed])]);
    expect(updates.map((u) => u.sessionUpdate)).toEqual([
      'user_message_chunk',
      'agent_message_chunk',
      'tool_call',
      'tool_call_update',
      'tool_call',
      'tool_call_update',
      'agent_message_chunk',
    ]);
    expect(updates[2]).toMatchObject({
      toolCallId: 'acp-a',
      title: 'Read a',
      kind: 'read',
      status: 'pending',
      rawInput: { path: 'a.txt' },
      locations: [{ path: '/p/a.txt' }],
    });
    expect(updates[3]).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'acp-a',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'contents of a' } }],
    });
    expect(updates[5]).toMatchObject({ toolCallId: 'acp-b', status: 'failed' });
    expect(updates[6]).toMatchObject({ content: { text: 'answer' } });
  });
});

describe('replayUpdates of a cancelled step', () => {
  it('shows no tool_call for calls that were never run (no toolCallId): the client never saw them', () => {
    const notRun = {
      id: 'b',
      toolCallId: '',
      title: '',
      kind: 'other',
      status: 'failed' as const,
      content: [],
      forModel: 'Not run: the user cancelled the turn.',
    };
    const cancelled = { ...step(['a', 'b']), results: [result('a', 'x'), notRun] };
    const updates = replayUpdates([{ ...turn('q', '', [cancelled]), stopReason: 'cancelled' }]);
    expect(updates.map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'tool_call', 'tool_call_update']);
    expect(updates.every((u) => !('toolCallId' in u) || (u as { toolCallId: string }).toolCallId !== '')).toBe(true);
  });
});

describe('parseRecord with steps', () => {
  const valid = turn('q', 'a', [step(['a', 'b'])]);
  it('accepts valid steps', () => {
    expect(parseRecord(JSON.parse(JSON.stringify(valid)))).toEqual(valid);
  });
  it.each([
    ['steps not an array', { steps: {} }],
    ['a step without text', { steps: [{ ...step(['a']), text: undefined }] }],
    ['a call without arguments', { steps: [{ ...step(['a']), toolCalls: [{ id: 'a', name: 'read_file' }] }] }],
    ['a result without forModel', { steps: [{ ...step(['a']), results: [{ ...result('a', 'x'), forModel: 1 }] }] }],
    ['a result whose content is not an array', { steps: [{ ...step(['a']), results: [{ ...result('a', 'x'), content: 'x' }] }] }],
    ['fewer results than calls', { steps: [{ ...step(['a', 'b']), results: [result('a', 'x')] }] }],
    ['a result for another call', { steps: [{ ...step(['a']), results: [result('z', 'x')] }] }],
    ['a result with an unknown status', { steps: [{ ...step(['a']), results: [{ ...result('a', 'x'), status: 'pending' }] }] }],
  ])('rejects %s', (_, change) => {
    expect(parseRecord(JSON.parse(JSON.stringify({ ...valid, ...change })))).toBeUndefined();
  });
});

describe('a turn with steps in the file store', () => {
  it('round-trips through append and load', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'steps-store-'));
    try {
      const store = await openSessionStore({ stateDir: dir, env: {}, logger: createLogger({ level: 'error', write: () => undefined }) });
      await store.create({ sessionId: 's1', cwd: '/p', createdAt: '2026-11-23T09:00:00.000Z' });
      const record = turn('q', 'a', [step(['a', 'b'], 'text'), step(['c'])]);
      await store.append('s1', record);
      const loaded = await store.load('s1');
      expect(loaded?.records).toEqual([record]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('liveConversation after a compaction inside a turn', () => {
  it("starts from the summary, that turn verbatim from its first step not summarised, and keeps the stubs (an old file's count: the first ones)", () => {
    const compacted: TurnRecord = {
      ...turn('the task', 'found it', [step(['a']), step(['b']), step(['c'])]),
      context: { summary: 'read a and b', summarizedSteps: 2, stubbed: 1 },
    };
    const live = liveConversation([turn('older', 'ok'), compacted]);
    expect(live.summary).toBe('read a and b');
    expect(live.turns).toHaveLength(1);
    expect(live.turns[0]![0]).toMatchObject({ role: 'user', content: 'the task' });
    const calls = live.turns[0]!.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []));
    expect(calls).toHaveLength(1);
    expect(live.turns[0]!.at(-1)).toEqual({ role: 'assistant', content: 'found it' });
    expect(live.stubbed).toEqual([[0, 1]]);
    expect(liveConversation([{ ...compacted, context: { ...compacted.context, stubbed: [[2, 4]] } }]).stubbed).toEqual([[2, 4]]);
    // A later turn keeps the summary; a /clear or /compact after it drops it.
    expect(liveConversation([turn('older', 'ok'), compacted, turn('next', 'ok')]).turns).toHaveLength(2);
    expect(liveConversation([compacted, { type: 'clear', at: '2026-01-01T00:00:00.000Z' }]).summary).toBeUndefined();
  });
});

describe('parseRecord with a context', () => {
  it('accepts a turn with its context state and rejects a malformed one', () => {
    const base = turn('q', 'a', [step(['a'])]);
    expect(parseRecord({ ...base, context: { summary: 's', summarizedSteps: 1, stubbed: 2 } })).toBeDefined();
    expect(
      parseRecord({
        ...base,
        context: {
          stubbed: [
            [0, 2],
            [5, 9],
          ],
        },
      }),
    ).toBeDefined();
    expect(parseRecord({ ...base, context: { stubbed: 'many' } })).toBeUndefined();
    for (const stubbed of [
      [[2, 1]],
      [
        [0, 2],
        [2, 3],
      ],
      [
        [3, 4],
        [0, 1],
      ],
      [[0.5, 2]],
      [[-1, 2]],
      [[1]],
    ])
      expect(parseRecord({ ...base, context: { stubbed } })).toBeUndefined();
    expect(parseRecord({ ...base, context: 'x' })).toBeUndefined();
  });
});
