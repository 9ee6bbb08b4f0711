/**
 * Properties of the Mistral tool-call id respelling: the shape is always valid, assistant and
 * tool messages stay matched, distinct ids stay distinct, and other providers see no change.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROVIDER_IDS } from '../../src/config/providers.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { MISTRAL_TOOL_CALL_ID, mistralToolCallId, respellToolCallIds, uniqueToolCallIds } from '../../src/context/tool-call-ids.js';
import { toolMessageRules } from '../../src/context/tool-messages.js';
import { PROVIDER_PROFILES } from '../../src/config/provider-profiles.js';

const anyId = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.stringMatching(/^[a-zA-Z0-9]{9}$/), fc.stringMatching(/^call_[A-Za-z0-9]{24}$/));

/** A conversation of steps, each an assistant message with calls followed by one tool message per call. */
const conversation = fc
  .array(fc.uniqueArray(anyId, { minLength: 1, maxLength: 4 }), { maxLength: 5 })
  .map((steps) =>
    steps.flatMap((ids, step): ChatMessage[] => [
      { role: 'user', content: `step ${step}` },
      { role: 'assistant', content: null, tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } })) },
      ...ids.map((id): ChatMessage => ({ role: 'tool', tool_call_id: id, content: id })),
    ]),
  );

describe('Mistral tool-call ids', () => {
  it('any id maps to 9 characters [a-zA-Z0-9], deterministically', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        const short = mistralToolCallId(id);
        expect(short).toMatch(MISTRAL_TOOL_CALL_ID);
        expect(mistralToolCallId(id)).toBe(short);
        if (MISTRAL_TOOL_CALL_ID.test(id)) expect(short).toBe(id);
      }),
      { numRuns: 2000 },
    );
  });

  it('distinct ids stay distinct', () => {
    fc.assert(
      fc.property(fc.uniqueArray(anyId, { minLength: 2, maxLength: 50 }), (ids) => {
        expect(new Set(ids.map(mistralToolCallId)).size).toBe(ids.length);
      }),
      { numRuns: 500 },
    );
  });

  it('respelled for Mistral: every id valid, each tool message names its call, in order', () => {
    fc.assert(
      fc.property(conversation, (messages) => {
        const out = respellToolCallIds(messages, toolMessageRules(PROVIDER_PROFILES.mistral));
        expect(out).toHaveLength(messages.length);
        let pending: string[] = [];
        for (const [i, message] of out.entries()) {
          const original = messages[i]!;
          expect(message.role).toBe(original.role);
          if (message.role === 'assistant') {
            pending = (message.tool_calls ?? []).map((c) => c.id);
            for (const id of pending) expect(id).toMatch(MISTRAL_TOOL_CALL_ID);
          } else if (message.role === 'tool') {
            expect(message.tool_call_id).toBe(pending.shift());
            expect(message.content).toBe(original.role === 'tool' ? original.content : undefined);
          } else expect(message).toBe(original);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('every other provider gets the very same messages', () => {
    fc.assert(
      fc.property(conversation, fc.constantFrom(...PROVIDER_IDS.filter((id) => id !== 'mistral')), (messages, provider) => {
        expect(respellToolCallIds(messages, toolMessageRules(PROVIDER_PROFILES[provider]))).toBe(messages);
      }),
      { numRuns: 200 },
    );
  });
});

describe('uniqueToolCallIds', () => {
  it('over any steps, every id is non-empty and unique, and a fresh provider id is kept', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.oneof(fc.constant(''), fc.constantFrom('0', 'call_1', 'functions.f:0'), fc.string({ maxLength: 6 })), { maxLength: 5 }), {
          maxLength: 6,
        }),
        (steps) => {
          const taken = new Set<string>();
          const all: string[] = [];
          for (const ids of steps) {
            const before = new Set(taken);
            const out = uniqueToolCallIds(ids, taken);
            expect(out).toHaveLength(ids.length);
            out.forEach((id, i) => {
              const src = ids[i]!;
              if (src !== '' && !before.has(src) && !ids.slice(0, i).includes(src)) expect(id).toBe(src);
            });
            all.push(...out);
          }
          expect(all.every((id) => id !== '')).toBe(true);
          expect(new Set(all).size).toBe(all.length);
        },
      ),
      { numRuns: 500 },
    );
  });
});
