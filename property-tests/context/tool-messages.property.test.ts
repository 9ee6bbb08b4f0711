/**
 * Properties of the assistant tool-call message: whatever the step, `content` is null exactly
 * when there is no text but there are calls, calls keep their order, ids, names and extras,
 * arguments are never blank, and `reasoning_content` appears only for DeepSeek.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROVIDER_IDS } from '../../src/config/providers.js';
import { assistantToolCallMessage, toolMessageRules, toolResultMessage } from '../../src/context/tool-messages.js';
import { PROVIDER_PROFILES } from '../../src/config/provider-profiles.js';

const call = fc.record(
  {
    id: fc.string({ maxLength: 12 }),
    name: fc.stringMatching(/^[a-z_]{1,12}$/),
    arguments: fc.oneof(fc.constantFrom('', ' ', '\n', '{}'), fc.json({ maxDepth: 2 }), fc.string({ maxLength: 20 })),
    extra: fc.option(fc.record({ google: fc.record({ thought_signature: fc.base64String({ maxLength: 16 }) }) }), { nil: undefined }),
  },
  { requiredKeys: ['id', 'name', 'arguments'] },
);
const step = fc.record({
  text: fc.oneof(fc.constant(''), fc.string({ maxLength: 30 })),
  reasoning: fc.oneof(fc.constant(''), fc.string({ maxLength: 30 })),
  toolCalls: fc.array(call, { maxLength: 4 }),
});

describe('assistantToolCallMessage', () => {
  it('spells every step the way every provider accepts', () => {
    fc.assert(
      fc.property(step, fc.constantFrom(...PROVIDER_IDS), (s, provider) => {
        const rules = toolMessageRules(PROVIDER_PROFILES[provider]);
        const message = assistantToolCallMessage(s, rules);
        expect(message.role).toBe('assistant');
        expect(message.content === null).toBe(s.text === '' && s.toolCalls.length > 0);
        if (message.content !== null) expect(message.content).toBe(s.text);
        expect(message.tool_calls?.length ?? 0).toBe(s.toolCalls.length);
        expect('tool_calls' in message).toBe(s.toolCalls.length > 0);
        message.tool_calls?.forEach((out, i) => {
          const src = s.toolCalls[i]!;
          expect(out).toMatchObject({ id: src.id, type: 'function', function: { name: src.name } });
          expect(out.function.arguments.trim()).not.toBe('');
          if (src.arguments.trim() !== '') expect(out.function.arguments).toBe(src.arguments);
          expect(out.extra_content).toEqual(src.extra);
        });
        expect('reasoning_content' in message).toBe(provider === 'deepseek');
        if (provider === 'deepseek') expect(message.reasoning_content).toBe(s.reasoning);
        // What goes on the wire survives JSON unchanged.
        expect(JSON.parse(JSON.stringify(message))).toEqual(message);
      }),
      { numRuns: 1000 },
    );
  });

  it('a tool result is always a string content naming its call', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (id, text) => {
        expect(toolResultMessage(id, text)).toStrictEqual({ role: 'tool', tool_call_id: id, content: text });
      }),
    );
  });
});
