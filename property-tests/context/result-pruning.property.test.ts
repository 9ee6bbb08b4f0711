/**
 * Stubbing one tool result (`stubSlot`, result-pruning.ts): the tokens it says it saved are the
 * difference of the whole list's estimate before and after, whatever the list holds (results with
 * or without their call, long arguments, images after a result).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { stubbableSlots, stubSlot, sumTokens } from '../../src/context/result-pruning.js';
import type { ChatMessage, ChatToolCall } from '../../src/openai/openai-types.js';

const text = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 60 }));
/** A call's content argument: often over the 200 characters after which a stub's call is shortened. */
const content = fc.oneof(text, fc.string({ minLength: 190, maxLength: 700 }));
/** One step: an assistant message with 1–3 calls (ids from a small pool, so some repeat or go missing), their results, maybe images. */
const step = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom('c1', 'c2', 'c3', 'c4'), fc.constantFrom('read_file', 'write_file'), content, text), { minLength: 1, maxLength: 3 }),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([calls, withCall, images]): ChatMessage[] => {
    const messages: ChatMessage[] = [];
    if (withCall)
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: calls.map(([id, name, content]) => ({
          id,
          type: 'function' as const,
          function: { name, arguments: JSON.stringify({ path: 'a', content }) },
        })),
      });
    for (const [id, , , out] of calls) messages.push({ role: 'tool', tool_call_id: id, content: out });
    if (images) messages.push({ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] });
    return messages;
  });

it('saves exactly what the whole list loses, for any result stubbed', () => {
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 4 }), fc.nat(), (steps, pick) => {
      const list = steps.flat();
      const calls = new Map<string, ChatToolCall>();
      for (const m of list) if (m.role === 'assistant') for (const call of m.tool_calls ?? []) calls.set(call.id, call);
      const slots = stubbableSlots([list]);
      const slot = slots[pick % slots.length]!;
      const before = sumTokens(list);
      const saved = stubSlot(slot, calls);
      expect(saved).toBe(before - sumTokens(list));
    }),
    { numRuns: 300 },
  );
});
