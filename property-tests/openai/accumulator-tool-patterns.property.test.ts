/**
 * Properties of tool-call assembly under the `index`/`id` patterns real providers use (see
 * `test/fixtures/providers/README.md` and `/work/shared/TOOLS-NOTES.md` §3): however the same
 * calls' arguments are cut into fragments, and whichever pattern carries them, the accumulator
 * gives the same calls, in order, with their `extra_content`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatToolCallDelta } from '../../src/openai/openai-types.js';
import type { SseItem } from '../../src/openai/sse.js';
import { ChatStreamAccumulator, type ToolCallResult } from '../../src/openai/chat-stream-accumulator.js';
import { splitAt } from '../../test/helpers/split.js';

const chunk = (calls: ChatToolCallDelta[]): SseItem => ({
  kind: 'chunk',
  chunk: { choices: [{ index: 0, delta: { tool_calls: calls }, finish_reason: null }] },
});

/**
 * How a provider spells the fragments of call number `i` (first fragment or continuation).
 * - `openai`: index on every fragment, id and name on the first only (OpenAI, Azure, vLLM).
 * - `empty-ids`: as openai, continuations carry `id: ""` (Alibaba Qwen).
 * - `repeat-ids`: index and the same id on every fragment.
 * - `gemini-index-0`: every call at `index: 0`, id on its first fragment (Gemini through gateways).
 * - `gemini-index-0-ids`: every call at `index: 0`, its id on every fragment.
 * - `no-index`: no index, the id on every fragment (Mistral, Ollama `/v1`).
 * - `position`: neither index nor id after the first fragment (matched by position in the array).
 */
const PATTERNS = ['openai', 'empty-ids', 'repeat-ids', 'gemini-index-0', 'gemini-index-0-ids', 'no-index', 'position'] as const;
type Pattern = (typeof PATTERNS)[number];
/** Patterns whose fragments say which call they belong to, so calls may interleave. */
const INTERLEAVABLE: ReadonlySet<Pattern> = new Set(['openai', 'empty-ids', 'repeat-ids', 'gemini-index-0-ids', 'no-index']);

function fragment(pattern: Pattern, i: number, id: string, first: boolean, name: string, args: string): ChatToolCallDelta {
  const fn = first ? { name, arguments: args } : { arguments: args };
  switch (pattern) {
    case 'openai':
      return first ? { index: i, id, type: 'function', function: fn } : { index: i, function: fn };
    case 'empty-ids':
      return first ? { index: i, id, type: 'function', function: fn } : { index: i, id: '', function: fn };
    case 'repeat-ids':
      return { index: i, id, function: fn };
    case 'gemini-index-0':
      return first ? { index: 0, id, type: 'function', function: fn } : { index: 0, function: fn };
    case 'gemini-index-0-ids':
      return { index: 0, id, function: fn };
    case 'no-index':
      return { id, function: fn };
    case 'position':
      return first ? { id, type: 'function', function: fn } : { function: fn };
  }
}

/** Interleave queues, taking from queue `schedule[i] % (non-empty queues)` each step. */
function interleave<T>(queues: T[][], schedule: number[]): T[] {
  const qs = queues.map((q) => [...q]);
  const out: T[] = [];
  for (let step = 0; ; step++) {
    const live = qs.filter((q) => q.length > 0);
    if (live.length === 0) return out;
    out.push(live[(schedule[step % Math.max(schedule.length, 1)] ?? 0) % live.length]!.shift()!);
  }
}

const idArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const argsArb = fc.oneof(fc.json({ maxDepth: 2 }), fc.string({ unit: 'grapheme', maxLength: 20 }));
const extraArb = fc.option(
  fc.base64String({ minLength: 4, maxLength: 24 }).map((signature) => ({ google: { thought_signature: signature } })),
  { nil: undefined },
);

describe('tool-call assembly across provider patterns', () => {
  it('any split of the same calls, in any provider pattern, gives the same calls', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(idArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.record({ name: fc.stringMatching(/^[a-z_]{1,10}$/), args: argsArb, cuts: fc.array(fc.nat(), { maxLength: 6 }), extra: extraArb }), {
          minLength: 4,
          maxLength: 4,
        }),
        fc.constantFrom(...PATTERNS),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.boolean(),
        (ids, specs, pattern, schedule, batched) => {
          const calls = ids.map((id, i) => ({ id, ...specs[i]! }));
          const queues = calls.map((call, i) =>
            splitAt(call.args, call.cuts).map((piece, k) => {
              const delta = fragment(pattern, i, call.id, k === 0, call.name, piece);
              if (k === 0 && call.extra) delta.extra_content = call.extra;
              return delta;
            }),
          );
          const ordered = INTERLEAVABLE.has(pattern) ? interleave(queues, schedule) : queues.flat();
          // Whole calls in one chunk's array (Groq) or one fragment per chunk.
          const items = batched && pattern !== 'position' ? [chunk(ordered)] : ordered.map((d) => chunk([d]));
          const acc = new ChatStreamAccumulator();
          for (const item of items) acc.push(item);
          const want: ToolCallResult[] = calls.map((c) =>
            c.extra ? { id: c.id, name: c.name, arguments: c.args, extra: c.extra } : { id: c.id, name: c.name, arguments: c.args },
          );
          // Calls are numbered by first appearance.
          const firstSeen = [...new Set(ordered.map((d) => d.id).filter((id): id is string => typeof id === 'string' && id !== ''))];
          want.sort((a, b) => firstSeen.indexOf(a.id) - firstSeen.indexOf(b.id));
          expect(acc.result().toolCalls).toStrictEqual(want);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('extra_content on several fragments is merged, the first value of a key winning', () => {
    const acc = new ChatStreamAccumulator();
    acc.push(chunk([{ index: 0, id: 'a', function: { name: 'f', arguments: '{' }, extra_content: { google: { thought_signature: 'sig1' } } }]));
    acc.push(chunk([{ index: 0, function: { arguments: '}' }, extra_content: { google: { thought_signature: 'other' }, x: 1 } }]));
    expect(acc.result().toolCalls).toStrictEqual([{ id: 'a', name: 'f', arguments: '{}', extra: { google: { thought_signature: 'sig1' }, x: 1 } }]);
  });

  it('a call resumed by its id after another took its index goes back to that call', () => {
    const acc = new ChatStreamAccumulator();
    acc.push(chunk([{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x":' } }]));
    acc.push(chunk([{ index: 0, id: 'b', function: { name: 'g', arguments: '{"y":' } }]));
    acc.push(chunk([{ index: 0, id: 'a', function: { arguments: '1}' } }]));
    acc.push(chunk([{ index: 0, id: 'b', function: { arguments: '2}' } }]));
    expect(acc.result().toolCalls).toStrictEqual([
      { id: 'a', name: 'f', arguments: '{"x":1}' },
      { id: 'b', name: 'g', arguments: '{"y":2}' },
    ]);
  });
});
