/**
 * `conversation.ts`: what the model still sees (turns after the latest `/clear` or `/compact`,
 * with the summary only when a compact is the latest of the two) and what `session/load` replays.
 */
import type { ContentBlock, SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { CLEARED_TEXT, compactedText, liveConversation, withUnansweredOnce, type ConversationRecord } from '../../src/sessions/conversation.js';
import { replayUpdates } from '../../src/acp/replay.js';
import type { ClearRecord, CompactRecord, TurnRecord } from '../../src/sessions/session-records.js';

const at = '2025-01-01T00:00:00.000Z';
const turn = (question: string, answer = `answer to ${question}`, reasoning = ''): TurnRecord => ({
  type: 'turn',
  at,
  prompt: [{ type: 'text', text: question }],
  assistant: answer,
  reasoning,
  stopReason: 'end_turn',
});
const clear = (): ClearRecord => ({ type: 'clear', at });
const compact = (summary: string): CompactRecord => ({ type: 'compact', at, summary });
/** The messages one answered turn gives the model. */
const turnMessages = (record: TurnRecord) => liveConversation([record]).turns[0] ?? [];
const questions = (records: readonly ConversationRecord[]) => liveConversation(records).turns.map((messages) => messages[0]!.content);

describe('the messages of one turn', () => {
  it('gives the user message and the assistant message', () => {
    expect(turnMessages(turn('hi', 'hello'))).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
  });

  it('does not send the reasoning back', () => {
    const messages = turnMessages(turn('hi', 'hello', 'secret thoughts'));
    expect(JSON.stringify(messages)).not.toContain('secret thoughts');
  });

  it('sets several text blocks apart and keeps an image as a content part', () => {
    const prompt: ContentBlock[] = [
      { type: 'text', text: 'look at ' },
      { type: 'text', text: 'this' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ];
    const [user] = turnMessages({ ...turn('x'), prompt });
    expect(user).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'look at \n\nthis' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
    });
  });
});

describe('liveConversation', () => {
  it('sends every turn when there is no clear or compact', () => {
    const live = liveConversation([turn('a'), turn('b'), turn('c')]);
    expect(live.summary).toBeUndefined();
    expect(live.turns).toEqual([turnMessages(turn('a')), turnMessages(turn('b')), turnMessages(turn('c'))]);
  });

  it('is empty for no records', () => {
    expect(liveConversation([])).toEqual({ summary: undefined, turns: [], unanswered: [], stubbed: [] });
  });

  it('keeps only the turns after the latest /clear', () => {
    expect(questions([turn('a'), clear(), turn('b'), turn('c')])).toEqual(['b', 'c']);
    expect(questions([turn('a'), clear(), turn('b'), clear(), turn('c')])).toEqual(['c']);
    expect(liveConversation([turn('a'), clear(), turn('b')]).summary).toBeUndefined();
  });

  it('is empty right after a /clear', () => {
    expect(liveConversation([turn('a'), turn('b'), clear()])).toEqual({ summary: undefined, turns: [], unanswered: [], stubbed: [] });
  });

  it('keeps the turns after the latest /compact, with its summary', () => {
    const live = liveConversation([turn('a'), turn('b'), compact('we talked about a and b'), turn('c')]);
    expect(live.summary).toBe('we talked about a and b');
    expect(live.turns.map((messages) => messages[0]!.content)).toEqual(['c']);
  });

  it('uses the summary of the latest of several compacts', () => {
    const live = liveConversation([turn('a'), compact('first'), turn('b'), compact('second'), turn('c')]);
    expect(live.summary).toBe('second');
    expect(questions([turn('a'), compact('first'), turn('b'), compact('second'), turn('c')])).toEqual(['c']);
  });

  it('drops the summary when a /clear follows the /compact', () => {
    const live = liveConversation([turn('a'), compact('summary of a'), turn('b'), clear(), turn('c')]);
    expect(live.summary).toBeUndefined();
    expect(live.turns.map((messages) => messages[0]!.content)).toEqual(['c']);
  });

  it('keeps the summary of a /compact that follows a /clear', () => {
    const live = liveConversation([turn('a'), clear(), turn('b'), compact('summary of b'), turn('c')]);
    expect(live.summary).toBe('summary of b');
    expect(live.turns.map((messages) => messages[0]!.content)).toEqual(['c']);
  });

  it('keeps the summary even with no turn after the /compact', () => {
    expect(liveConversation([turn('a'), compact('summary')])).toEqual({ summary: 'summary', turns: [], unanswered: [], stubbed: [] });
  });

  it('folds the user message of a turn that got no answer into the next one, so roles alternate', () => {
    const live = liveConversation([turn('a', ''), turn('b', 'B')]);
    expect(live.turns).toEqual([
      [
        { role: 'user', content: 'a\n\nb' },
        { role: 'assistant', content: 'B' },
      ],
    ]);
    expect(live.unanswered).toEqual([]);
  });

  it('hands the prompt of trailing unanswered turns on to the next message', () => {
    const live = liveConversation([turn('a', 'A'), turn('b', ''), turn('c', '')]);
    expect(live.turns).toEqual([
      [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'A' },
      ],
    ]);
    expect(live.unanswered).toEqual([
      { type: 'text', text: 'b' },
      { type: 'text', text: '\n\n' },
      { type: 'text', text: 'c' },
    ]);
  });

  it('sends a prompt asked again after a cancel once, but keeps other unanswered prompts in front of it', () => {
    const cancelled = (question: string): TurnRecord => ({ ...turn(question, ''), stopReason: 'cancelled' });
    // Asked again, answered: the question once.
    expect(questions([turn('a', 'A'), cancelled('b'), turn('b', 'B')])).toEqual(['a', 'b']);
    // Asked twice more with no answer: still once, pending for the next message.
    expect(liveConversation([cancelled('b'), cancelled('b'), cancelled('b')]).unanswered).toEqual([{ type: 'text', text: 'b' }]);
    // Another question in between stays, the repeat of the latest joins it once.
    expect(questions([cancelled('a'), cancelled('b'), turn('b', 'B')])).toEqual(['a\n\nb']);
    // A repeat of an older unanswered prompt, or one that only ends like it, is a new message.
    expect(questions([cancelled('a'), cancelled('b'), turn('a', 'A')])).toEqual(['a\n\nb\n\na']);
    const blocks = (...texts: string[]): TurnRecord => ({ ...turn('', 'X'), prompt: texts.map((text) => ({ type: 'text', text })) });
    expect(questions([{ ...blocks('x', 'b'), assistant: '' }, blocks('b')])).toEqual(['x\n\nb\n\nb']);
  });

  it('does not send the prompt of a turn that failed before any answer again, unless messages were sent into it', () => {
    const failed = (question: string, extra: Partial<TurnRecord> = {}): TurnRecord => ({
      ...turn(question, ''),
      failed: { kind: 'http', status: 400 },
      ...extra,
    });
    expect(questions([turn('a', 'A'), failed('b'), turn('c', 'C')])).toEqual(['a', 'c']);
    expect(liveConversation([turn('a', 'A'), failed('b')]).unanswered).toEqual([]);
    // A cancelled prompt before the failure is still carried; the failure changes nothing of it.
    expect(liveConversation([turn('a', ''), failed('b')]).unanswered).toEqual([{ type: 'text', text: 'a' }]);
    expect(questions([turn('a', ''), failed('b'), turn('c', 'C')])).toEqual(['a\n\nc']);
    // The user's messages into the failed turn go on, with its prompt.
    const steering = [{ at, afterStep: 0, prompt: [{ type: 'text' as const, text: 'also d' }] }];
    expect(questions([failed('b', { steering }), turn('c', 'C')])).toEqual(['b\n\nalso d\n\nc']);
    // With what it showed before failing, it is a turn like any other.
    expect(questions([failed('b', { assistant: 'half' }), turn('c', 'C')])).toEqual(['b', 'c']);
  });

  it('puts an empty prompt after unanswered ones as any other, never taking it for a repeat', () => {
    expect(withUnansweredOnce([{ type: 'text', text: 'a' }], [])).toEqual([
      { type: 'text', text: 'a' },
      { type: 'text', text: '\n\n' },
    ]);
    expect(withUnansweredOnce([], [{ type: 'text', text: 'a' }])).toEqual([{ type: 'text', text: 'a' }]);
  });

  it('does not modify the records', () => {
    const records = [turn('a'), compact('s'), turn('b')];
    const copy = structuredClone(records);
    liveConversation(records);
    expect(records).toEqual(copy);
  });
});

describe('replayUpdates', () => {
  it('shows a turn as its prompt blocks, then the thought, then the answer', () => {
    const prompt: ContentBlock[] = [
      { type: 'text', text: 'see ' },
      { type: 'resource_link', uri: 'file:///a.ts', name: 'a.ts' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ];
    const updates = replayUpdates([{ ...turn('x', 'the answer', 'the thought'), prompt, id: 'T1' }]);
    // The message ids derive from the turn's saved id, as they did live (`stepMessageIds`).
    expect(updates).toEqual([
      { sessionUpdate: 'user_message_chunk', content: prompt[0], messageId: 'T1-u' },
      { sessionUpdate: 'user_message_chunk', content: prompt[1], messageId: 'T1-u' },
      { sessionUpdate: 'user_message_chunk', content: prompt[2], messageId: 'T1-u' },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'the thought' }, messageId: 'T1-0-r' },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'the answer' }, messageId: 'T1-0-m' },
    ]);
  });

  it('gives a record saved without an id the same message ids at every load', () => {
    const records = [turn('q', 'a', 'r'), turn('q2', 'a2')];
    const ids = (updates: SessionUpdate[]) => updates.map((u) => (u as { messageId?: string }).messageId);
    const first = ids(replayUpdates(records));
    expect(first.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(ids(replayUpdates(records))).toEqual(first);
    // Each message its own id: prompt, thought and answer of a turn differ, and so do turns.
    expect(new Set(first).size).toBe(first.length);
  });

  it('shows a compaction as a completed compaction_update in its place only for a client with session.compaction', () => {
    const record = { ...turn('q', 'done'), id: 'T', compactions: [{ id: 'T-c0', beforeStep: 0, summary: 'S' }] };
    const entity = replayUpdates([record, { ...compact('the summary'), id: 'C' }], { compaction: true });
    expect(entity.map((u) => u.sessionUpdate)).toEqual([
      'user_message_chunk',
      'compaction_update',
      'agent_message_chunk',
      'user_message_chunk',
      'compaction_update',
    ]);
    expect(entity[1]).toEqual({ sessionUpdate: 'compaction_update', compactionId: 'T-c0', status: 'completed', summary: [{ type: 'text', text: 'S' }] });
    expect(entity[4]).toEqual({ sessionUpdate: 'compaction_update', compactionId: 'C', status: 'completed', summary: [{ type: 'text', text: 'the summary' }] });
    const plain = replayUpdates([record, { ...compact('the summary'), id: 'C' }]);
    expect(plain.some((u) => u.sessionUpdate.startsWith('compaction'))).toBe(false);
    expect(plain.at(-1)).toMatchObject({ sessionUpdate: 'agent_message_chunk', content: { text: compactedText('the summary') }, messageId: 'C-0-m' });
  });

  it('shows no thought or answer chunk when the turn had none', () => {
    expect(replayUpdates([turn('q', '', '')])).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'q' }, messageId: expect.any(String) },
    ]);
    expect(replayUpdates([turn('q', 'a', '')]).map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'agent_message_chunk']);
    expect(replayUpdates([turn('q', '', 'r')]).map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'agent_thought_chunk']);
  });

  it('shows /clear and /compact as the command and its outcome, in record order', () => {
    const updates = replayUpdates([turn('a', 'A'), clear(), turn('b', 'B'), compact('the summary'), turn('c', 'C')]);
    const shown = updates.map((update) => [update.sessionUpdate, (update as Extract<SessionUpdate, { content: unknown }>).content]);
    expect(shown).toEqual([
      ['user_message_chunk', { type: 'text', text: 'a' }],
      ['agent_message_chunk', { type: 'text', text: 'A' }],
      ['user_message_chunk', { type: 'text', text: '/clear' }],
      ['agent_message_chunk', { type: 'text', text: CLEARED_TEXT }],
      ['user_message_chunk', { type: 'text', text: 'b' }],
      ['agent_message_chunk', { type: 'text', text: 'B' }],
      ['user_message_chunk', { type: 'text', text: '/compact' }],
      ['agent_message_chunk', { type: 'text', text: compactedText('the summary') }],
      ['user_message_chunk', { type: 'text', text: 'c' }],
      ['agent_message_chunk', { type: 'text', text: 'C' }],
    ]);
  });

  it('replays every record, including those no longer sent to the model', () => {
    const records = [turn('old'), clear(), turn('new')];
    const users = replayUpdates(records).filter((u) => u.sessionUpdate === 'user_message_chunk');
    expect(users).toHaveLength(3);
    expect(questions(records)).toEqual(['new']);
  });

  it('is empty for no records', () => {
    expect(replayUpdates([])).toEqual([]);
  });

  it('the compacted text contains the summary', () => {
    expect(compactedText('S-U-M')).toContain('S-U-M');
    expect(compactedText('S-U-M').endsWith('S-U-M')).toBe(true);
  });
});

describe('mode notes in the conversation', () => {
  it("puts a turn's note in front of its prompt; the mode last told is the latest answered turn's since a /clear", async () => {
    const { lastToldMode } = await import('../../src/sessions/conversation.js');
    const noted: TurnRecord = { ...turn('plan it'), modeNote: '[Session mode: Plan.]', mode: 'plan' };
    const live = liveConversation([turn('hi'), noted]);
    expect(live.turns[1]![0]).toEqual({ role: 'user', content: '[Session mode: Plan.]\n\nplan it' });
    expect(lastToldMode([turn('hi'), noted])).toBe('plan');
    expect(lastToldMode([noted, { ...turn('again'), mode: 'ask' }])).toBe('ask');
    // A cancelled turn with nothing shown was not seen by the model.
    expect(lastToldMode([noted, { ...turn('x', ''), mode: 'read-only', modeNote: '[Session mode: Read only.]' }])).toBe('plan');
    expect(lastToldMode([noted, { type: 'clear', at }])).toBeUndefined();
    expect(lastToldMode([turn('old')])).toBeUndefined();
    // Compacted inside a turn: the earlier notes are in the summary; that turn's own note still counts.
    expect(lastToldMode([noted, { ...turn('long'), mode: 'plan', context: { summary: 'S', summarizedSteps: 2 } }])).toBeUndefined();
    expect(lastToldMode([noted, { ...noted, context: { summary: 'S', summarizedSteps: 2 } }])).toBe('plan');
  });
});
