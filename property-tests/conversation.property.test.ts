/**
 * Properties of `conversation.ts` over arbitrary record sequences (turns with any prompt blocks,
 * clears, compacts in any order).
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { CLEARED_TEXT, compactedText, liveConversation, replayUpdates, turnMessages, type ConversationRecord } from '../src/conversation.js';
import type { TurnRecord } from '../src/session-store.js';

const at = '2025-01-01T00:00:00.000Z';
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.string({ maxLength: 20 }).map((text): ContentBlock => ({ type: 'text', text })),
  fc.base64String({ maxLength: 12 }).map((data): ContentBlock => ({ type: 'image', data, mimeType: 'image/png' })),
  fc.webUrl().map((uri): ContentBlock => ({ type: 'resource_link', uri, name: 'r' })),
  fc.string({ maxLength: 20 }).map((text): ContentBlock => ({ type: 'resource', resource: { uri: 'file:///x.txt', text } })),
);
const turn: fc.Arbitrary<TurnRecord> = fc.record({
  type: fc.constant('turn' as const),
  at: fc.constant(at),
  prompt: fc.array(block, { maxLength: 4 }),
  assistant: fc.string({ maxLength: 20 }),
  reasoning: fc.string({ maxLength: 20 }),
  stopReason: fc.constantFrom('end_turn', 'cancelled', 'max_tokens'),
});
const record: fc.Arbitrary<ConversationRecord> = fc.oneof(
  { weight: 5, arbitrary: turn },
  { weight: 1, arbitrary: fc.constant({ type: 'clear' as const, at }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((summary) => ({ type: 'compact' as const, at, summary })) },
);
const records = fc.array(record, { maxLength: 25 });

it('replay shows one user_message_chunk per prompt block per turn, in order, each turn followed by its thought then its answer', () => {
  fc.assert(
    fc.property(records, (list) => {
      const updates = replayUpdates(list);
      const expected = list.flatMap((r) => {
        if (r.type === 'clear') return [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: '/clear' } }, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: CLEARED_TEXT } }];
        if (r.type === 'compact') return [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: '/compact' } }, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: compactedText(r.summary) } }];
        return [
          ...r.prompt.map((content) => ({ sessionUpdate: 'user_message_chunk', content })),
          ...(r.reasoning ? [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: r.reasoning } }] : []),
          ...(r.assistant ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: r.assistant } }] : []),
        ];
      });
      expect(updates).toEqual(expected);
      const userChunks = updates.filter((u) => u.sessionUpdate === 'user_message_chunk');
      const blocks = list.reduce((n, r) => n + (r.type === 'turn' ? r.prompt.length : 1), 0);
      expect(userChunks).toHaveLength(blocks);
    }),
  );
});

it('the live turns are always a suffix of the turn records, starting right after the latest clear or compact', () => {
  fc.assert(
    fc.property(records, (list) => {
      const live = liveConversation(list);
      const allTurns = list.filter((r): r is TurnRecord => r.type === 'turn');
      const suffix = allTurns.slice(allTurns.length - live.turns.length).map(turnMessages);
      expect(live.turns).toEqual(suffix);
      const lastMark = list.findLastIndex((r) => r.type !== 'turn');
      expect(live.turns).toHaveLength(list.slice(lastMark + 1).length);
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

it('appending a turn adds exactly that turn to what is live; appending a clear empties it', () => {
  fc.assert(
    fc.property(records, turn, (list, next) => {
      const before = liveConversation(list);
      const after = liveConversation([...list, next]);
      expect(after.turns).toEqual([...before.turns, turnMessages(next)]);
      expect(after.summary).toBe(before.summary);
      expect(liveConversation([...list, { type: 'clear', at }])).toEqual({ summary: undefined, turns: [] });
    }),
  );
});
