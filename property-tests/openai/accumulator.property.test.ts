/**
 * Properties of the chat stream accumulator: however text, reasoning, `<think>`-tagged content and
 * tool arguments are cut into deltas (and interleaved), the result reassembles the originals,
 * and so do the streamed events.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatDelta } from '../../src/openai/openai-types.js';
import type { SseItem } from '../../src/openai/sse.js';
import { ChatStreamAccumulator, type StreamEvent } from '../../src/openai/chat-stream-accumulator.js';
import { splitAt } from '../../test/helpers/split.js';

/** Strings rich in tag characters, so partial tags and near-misses are common. */
const tagChars = fc.constantFrom('<', '/', 't', 'h', 'i', 'n', 'k', '>', 'a', ' ', '\n', 'é', '👋');
const tagText = fc.array(tagChars, { maxLength: 24 }).map((cs) => cs.join(''));
const anyText = fc.string({ unit: 'grapheme', maxLength: 30 });

/** Cut a string at the given offsets (code unit offsets modulo its length). */
const split = splitAt;

const chunk = (delta: ChatDelta): SseItem => ({ kind: 'chunk', chunk: { choices: [{ index: 0, delta, finish_reason: null }] } });

function run(items: SseItem[], splitThinkTags: boolean) {
  const acc = new ChatStreamAccumulator({ splitThinkTags });
  const events: StreamEvent[] = [...items.flatMap((i) => acc.push(i)), ...acc.flush()];
  const streamed = (type: 'text' | 'reasoning') => events.map((e) => (e.type === type ? e.text : '')).join('');
  return { result: acc.result(), text: streamed('text'), reasoning: streamed('reasoning') };
}

/** Interleave queues, taking from queue `schedule[i] % (non-empty queues)` each step. */
function interleave<T>(queues: T[][], schedule: number[]): T[] {
  const qs = queues.map((q) => [...q]);
  const out: T[] = [];
  let step = 0;
  for (;;) {
    const live = qs.filter((q) => q.length > 0);
    if (live.length === 0) return out;
    const q = live[(schedule[step++ % Math.max(schedule.length, 1)] ?? 0) % live.length]!;
    out.push(q.shift()!);
  }
}

describe('ChatStreamAccumulator properties', () => {
  it('text and reasoning pieces in any interleaving reassemble separately', () => {
    fc.assert(
      fc.property(
        anyText,
        anyText,
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.array(fc.nat({ max: 3 }), { maxLength: 20 }),
        (text, reasoning, textCuts, reasoningCuts, schedule, styles) => {
          const textItems = split(text, textCuts).map((c) => chunk({ content: c }));
          const reasoningItems = split(reasoning, reasoningCuts).map((r, i) => {
            switch (styles[i % Math.max(styles.length, 1)] ?? 0) {
              case 0:
                return chunk({ reasoning_content: r, content: null });
              case 1:
                return chunk({ reasoning: r });
              case 2:
                return chunk({ reasoning_content: '', reasoning: r });
              default:
                return chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: r }] }] });
            }
          });
          const items = interleave([textItems, reasoningItems], schedule);
          const out = run(items, false);
          expect(out.result.text).toBe(text);
          expect(out.result.reasoning).toBe(reasoning);
          expect({ text: out.text, reasoning: out.reasoning }).toEqual({ text, reasoning });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('<think>-tagged content cut anywhere splits into the original reasoning and text', () => {
    fc.assert(
      fc.property(
        tagText.filter((s) => !s.includes('<think>')),
        tagText.filter((s) => !s.includes('</think>')),
        tagText.filter((s) => !s.includes('<think>')),
        fc.array(fc.nat(), { maxLength: 16 }),
        (before, reasoning, after, cuts) => {
          const full = `${before}<think>${reasoning}</think>${after}`;
          const items = split(full, cuts).map((c) => chunk({ content: c }));
          const out = run(items, true);
          expect(out.result.text).toBe(before + after);
          expect(out.result.reasoning).toBe(reasoning);
          expect({ text: out.text, reasoning: out.reasoning }).toEqual({ text: before + after, reasoning });
          const raw = run(items, false);
          expect(raw.result).toMatchObject({ text: full, reasoning: '' });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('content without a complete tag is never altered', () => {
    fc.assert(
      fc.property(
        tagText.filter((s) => !s.includes('<think>')),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, cuts) => {
          const out = run(
            split(text, cuts).map((c) => chunk({ content: c })),
            true,
          );
          expect(out.result).toMatchObject({ text, reasoning: '' });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('tool arguments cut and interleaved across calls reassemble per call', () => {
    const call = fc.record({
      id: fc.string({ minLength: 1, maxLength: 8 }),
      name: fc.string({ minLength: 1, maxLength: 8 }),
      args: anyText,
      cuts: fc.array(fc.nat(), { maxLength: 8 }),
    });
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 30 }), fc.boolean(), (calls, schedule, emptyIds) => {
        const headers = calls.map((c, index) => chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
        const fragments = calls.map((c, index) =>
          split(c.args, c.cuts).map((a) => chunk({ tool_calls: [{ index, ...(emptyIds ? { id: '' } : {}), function: { arguments: a } }] })),
        );
        const out = run([...headers, ...interleave(fragments, schedule)], true);
        expect(out.result.toolCalls).toEqual(calls.map((c) => ({ id: c.id, name: c.name, arguments: c.args })));
        expect(out.result.text).toBe('');
      }),
      { numRuns: 500 },
    );
  });
});
