/**
 * Properties of `conversation.ts` over arbitrary record sequences (turns with any prompt blocks,
 * clears, compacts in any order).
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { webUrl } from '../../test/helpers/web-url.js';
import { expect, it } from 'vitest';
import { answerMessages, CLEARED_TEXT, compactedText, liveConversation, type ConversationRecord } from '../../src/sessions/conversation.js';
import { promptToUserContent } from '../../src/context/prompt-content.js';
import { replayUpdates } from '../../src/acp/replay.js';
import type { TurnRecord } from '../../src/sessions/session-records.js';

const at = '2025-01-01T00:00:00.000Z';
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.string({ maxLength: 20 }).map((text): ContentBlock => ({ type: 'text', text })),
  fc.base64String({ maxLength: 12 }).map((data): ContentBlock => ({ type: 'image', data, mimeType: 'image/png' })),
  webUrl().map((uri): ContentBlock => ({ type: 'resource_link', uri, name: 'r' })),
  fc.string({ maxLength: 20 }).map((text): ContentBlock => ({ type: 'resource', resource: { uri: 'file:///x.txt', text } })),
);
const turn: fc.Arbitrary<TurnRecord> = fc
  .record({
    type: fc.constant('turn' as const),
    at: fc.constant(at),
    prompt: fc.array(block, { maxLength: 4 }),
    assistant: fc.string({ maxLength: 20 }),
    reasoning: fc.string({ maxLength: 20 }),
    stopReason: fc.constantFrom('end_turn', 'cancelled', 'max_tokens'),
    failed: fc.boolean(),
  })
  .map(({ failed, ...record }): TurnRecord => (failed ? { ...record, failed: { kind: 'http', status: 500 } } : record));
const record: fc.Arbitrary<ConversationRecord> = fc.oneof(
  { weight: 5, arbitrary: turn },
  { weight: 1, arbitrary: fc.constant({ type: 'clear' as const, at }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((summary) => ({ type: 'compact' as const, at, summary })) },
);
const records = fc.array(record, { maxLength: 25 });

/** A prompt's blocks as replayed: a blank line between two text blocks that follow each other, the first not ending its line. */
const withBreaks = (blocks: readonly any[]): any[] =>
  blocks.flatMap((block, i) => {
    const before = blocks[i - 1];
    const joins = block.type === 'text' && before?.type === 'text' && before.text !== '' && !before.text.endsWith('\n');
    return joins ? [{ type: 'text', text: '\n\n' }, block] : [block];
  });

it('replay shows one user_message_chunk per prompt block per turn (a blank line between text blocks), in order, each turn followed by its thought then its answer', () => {
  fc.assert(
    fc.property(records, (list) => {
      const updates = replayUpdates(list);
      // Every chunk carries a message id; the chunks of one record's prompt share one, its thought and answer each their own.
      for (const update of updates) expect((update as { messageId?: unknown }).messageId).toEqual(expect.any(String));
      expect(replayUpdates(list)).toEqual(updates);
      const expected = list.flatMap((r) => {
        if (r.type === 'clear')
          return [
            { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: '/clear' } },
            { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: CLEARED_TEXT } },
          ];
        if (r.type === 'compact')
          return [
            { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: '/compact' } },
            { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: compactedText(r.summary) } },
          ];
        return [
          ...withBreaks(r.prompt).map((content) => ({ sessionUpdate: 'user_message_chunk', content })),
          ...(r.reasoning ? [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: r.reasoning } }] : []),
          ...(r.assistant ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: r.assistant } }] : []),
        ];
      });
      expect(updates.map(({ messageId: _id, ...rest }: any) => rest)).toEqual(expected);
      const userChunks = updates.filter((u) => u.sessionUpdate === 'user_message_chunk');
      const blocks = list.reduce((n, r) => n + (r.type === 'turn' ? withBreaks(r.prompt).length : 1), 0);
      expect(userChunks).toHaveLength(blocks);
    }),
  );
});

it('the live turns are the answered turns after the latest clear or compact, in order, alternating user and assistant', () => {
  fc.assert(
    fc.property(records, (list) => {
      const live = liveConversation(list);
      const lastMark = list.findLastIndex((r) => r.type !== 'turn');
      const after = list.slice(lastMark + 1) as TurnRecord[];
      expect(live.turns.map((messages) => messages[1]?.content)).toEqual(after.filter((t) => t.assistant).map((t) => t.assistant));
      for (const messages of live.turns) expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      // Every prompt block after the mark is sent once: in its own turn, folded into a later one, or
      // pending; a prompt asked again right after its unanswered self is not sent twice, and the
      // prompt of a turn that failed with no answer is not sent again.
      const lastAnswered = after.findLastIndex((t) => t.assistant);
      const waiting = after.slice(lastAnswered + 1).filter((t) => !t.failed);
      const pending = waiting.filter((t, i) => t.prompt.length === 0 || !isDeepStrictEqual(t.prompt, waiting[i - 1]?.prompt)).flatMap((t) => t.prompt);
      expect(live.unanswered.filter((b) => !(b.type === 'text' && b.text === '\n\n'))).toEqual(
        pending.filter((b) => !(b.type === 'text' && b.text === '\n\n')),
      );
    }),
  );
});

it('the summary is that of the latest compact exactly when it is the latest clear or compact', () => {
  fc.assert(
    fc.property(records, (list) => {
      const last = list.findLast((r) => r.type !== 'turn');
      expect(liveConversation(list).summary).toBe(last?.type === 'compact' ? last.summary : undefined);
    }),
  );
});

it('after an answered turn, appending an answered turn adds exactly that turn; appending a clear empties everything', () => {
  const answered = turn.filter((t) => t.assistant !== '');
  fc.assert(
    fc.property(records, answered, answered, (list, last, next) => {
      const before = liveConversation([...list, last]);
      const after = liveConversation([...list, last, next]);
      expect(after.turns).toEqual([...before.turns, [{ role: 'user', content: promptToUserContent(next.prompt) }, ...answerMessages(next)]]);
      expect(after.summary).toBe(before.summary);
      expect(liveConversation([...list, { type: 'clear', at }])).toEqual({ summary: undefined, turns: [], unanswered: [], stubbed: [] });
    }),
  );
});
