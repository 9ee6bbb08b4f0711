/**
 * Properties of the text path's spelling: whatever the conversation (tool steps with any number
 * of calls, images, earlier turns), no message has the `tool` role or `tool_calls`, no two user
 * messages follow each other, every call comes back from the text as the same call, and every
 * result's text is in a user message.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toTextToolPath } from '../../src/context/text-tool-path.js';
import { readTextCalls } from '../../src/tools/calls/text/read-text-calls.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';

const NAMES = ['read_file', 'write_file', 'list_directory', 'fx__echo'];
const tools = NAMES.map((name) => ({
  type: 'function' as const,
  function: { name, description: `The ${name} tool.`, parameters: { type: 'object', properties: { path: { type: 'string' } } } },
}));
const args = fc
  .dictionary(fc.constantFrom('path', 'content', 'n'), fc.oneof(fc.string({ maxLength: 20 }), fc.integer()), { maxKeys: 3 })
  .map((o) => JSON.stringify(o));
const text = fc.string({ maxLength: 30 });

/** One turn: the user's message, tool steps (assistant with calls, then their results, maybe images), then maybe an answer. */
const turn = fc.record({
  user: text,
  steps: fc.array(
    fc.record({
      text: fc.oneof(fc.constant(''), text),
      calls: fc.array(fc.record({ name: fc.constantFrom(...NAMES), args, result: text }), { minLength: 1, maxLength: 3 }),
      image: fc.boolean(),
    }),
    { maxLength: 3 },
  ),
  answer: fc.option(text, { nil: undefined }),
});

type Turn = typeof turn extends fc.Arbitrary<infer T> ? T : never;

function conversation(turns: Turn[]): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: 'sys' }];
  let id = 0;
  for (const t of turns) {
    out.push({ role: 'user', content: t.user });
    for (const step of t.steps) {
      const calls = step.calls.map((c) => ({ id: `c${id++}`, type: 'function' as const, function: { name: c.name, arguments: c.args } }));
      out.push({ role: 'assistant', content: step.text || null, tool_calls: calls });
      for (const [i, c] of step.calls.entries()) out.push({ role: 'tool', tool_call_id: calls[i]!.id, content: c.result });
      if (step.image)
        out.push({
          role: 'user',
          content: [
            { type: 'text', text: 'Images returned by the tool calls above:' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
          ],
        });
    }
    if (t.answer !== undefined) out.push({ role: 'assistant', content: t.answer || '(done)' });
  }
  return out;
}

describe('toTextToolPath', () => {
  it('leaves no tool shape, joins user messages, and keeps every call and result', () => {
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 4 }), (turns) => {
        const input = conversation(turns);
        const out = toTextToolPath(input, tools);
        expect(out.some((m) => m.role === 'tool' || (m.role === 'assistant' && 'tool_calls' in m))).toBe(false);
        for (let i = 1; i < out.length; i++) expect(out[i]!.role === 'user' && out[i - 1]!.role === 'user').toBe(false);
        const userText = out
          .filter((m) => m.role === 'user')
          .map((m) => (typeof m.content === 'string' ? m.content : (m.content as { type: string; text?: string }[]).map((p) => p.text ?? '').join('')))
          .join('\n');
        const named = new Map(input.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => [c.id, c.function.name] as const) : [])));
        for (const m of input) if (m.role === 'tool') expect(userText).toContain(`Result of ${named.get(m.tool_call_id)}:\n${m.content}`);
        // Each assistant message with calls reads back, from its blocks, as the same calls.
        const withCalls = input.filter((m): m is Extract<ChatMessage, { role: 'assistant' }> => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0);
        const spelled = out.filter((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content.includes('<tool_call>'));
        expect(spelled).toHaveLength(withCalls.length);
        withCalls.forEach((m, i) => {
          const content = spelled[i]!.content as string;
          const blocks = content.slice(content.indexOf('<tool_call>'));
          const read = readTextCalls(blocks, new Map(NAMES.map((name) => [name, {}]))).calls;
          expect(read?.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual(m.tool_calls!.map((c) => [c.function.name, JSON.parse(c.function.arguments)]));
        });
      }),
    );
  });
});
