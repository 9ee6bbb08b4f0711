/**
 * Properties of the native Ollama chat decoder: for any answer (thinking, text with any
 * characters, whole tool calls, a done line) and any way of cutting its bytes, the accumulated
 * result is the same, and it is what the lines say (texts concatenated, one call per native
 * call with its arguments as JSON, usage from the counts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createOllamaChatDecoder } from '../../src/openai/ollama-chat-items.js';
import { ChatStreamAccumulator } from '../../src/openai/chat-stream-accumulator.js';
import { splitAt } from '../../test/helpers/split.js';

const text = fc.string({ unit: fc.constantFrom('a', ' ', 'é', '日', '👋', '"', '\\', '\n', '\r', '<', '}'), maxLength: 10 });
const call = fc.record({
  name: fc.constantFrom('read_file', 'run_command', 'x'),
  args: fc.dictionary(fc.constantFrom('path', 'command', 'n'), fc.oneof(text, fc.integer())),
});
const line = fc.oneof(
  fc.record({ kind: fc.constant('content' as const), text }),
  fc.record({ kind: fc.constant('thinking' as const), text }),
  fc.record({ kind: fc.constant('calls' as const), calls: fc.array(call, { minLength: 1, maxLength: 2 }) }),
);

describe('the native chat decoder', () => {
  it('gives the same result however the bytes are cut, and the result the lines say', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }),
        fc.nat(1000),
        fc.nat(1000),
        fc.array(fc.nat(10_000), { maxLength: 6 }),
        (lines, prompt, evalCount, cuts) => {
          const done = {
            model: 'm',
            message: { role: 'assistant', content: '' },
            done: true,
            done_reason: 'stop',
            prompt_eval_count: prompt,
            eval_count: evalCount,
          };
          const body =
            lines
              .map((l) =>
                JSON.stringify({
                  model: 'm',
                  message:
                    l.kind === 'calls'
                      ? { role: 'assistant', content: '', tool_calls: l.calls.map((c) => ({ function: { name: c.name, arguments: c.args } })) }
                      : { role: 'assistant', content: l.kind === 'content' ? l.text : '', ...(l.kind === 'thinking' ? { thinking: l.text } : {}) },
                  done: false,
                }),
              )
              .join('\n') + `\n${JSON.stringify(done)}\n`;
          const bytes = new TextEncoder().encode(body);
          const results = [[bytes], splitAt(bytes, cuts)].map((pieces) => {
            const decoder = createOllamaChatDecoder();
            const accumulator = new ChatStreamAccumulator({ splitThinkTags: false });
            for (const piece of pieces) for (const item of decoder.push(piece)) accumulator.push(item);
            for (const item of decoder.end()) accumulator.push(item);
            return accumulator.result();
          });
          expect(results[1]).toEqual(results[0]);
          const calls = lines.flatMap((l) => (l.kind === 'calls' ? l.calls : []));
          expect(results[0]!.text).toBe(lines.map((l) => (l.kind === 'content' ? l.text : '')).join(''));
          expect(results[0]!.reasoning).toBe(lines.map((l) => (l.kind === 'thinking' ? l.text : '')).join(''));
          expect(results[0]!.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual(calls.map((c) => [c.name, c.args]));
          expect(results[0]!.finishReason).toBe(calls.length > 0 ? 'tool_calls' : 'stop');
          expect(results[0]!.usage).toEqual({ prompt_tokens: prompt, completion_tokens: evalCount, total_tokens: prompt + evalCount });
        },
      ),
      { numRuns: 300 },
    );
  });
});
