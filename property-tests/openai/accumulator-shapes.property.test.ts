/**
 * The SSE decoder's shape cache (`createSseDecoder({ shapes: true })`) skips `JSON.parse` for
 * chunks shaped like the last plain text chunk. Property: for any stream, a TurnAccumulator fed
 * by the decoder with shapes produces exactly the events and result it produces when fed by the
 * plain decoder (every event parsed). Streams are built from a base chunk whose leaves are
 * mutated per event, so that most events match a learned shape and the rest differ in a leaf the
 * accumulator reads (finish reason, choice index, reasoning, tool calls, usage, error), in a
 * number or string it ignores, in spelling (escapes, whitespace, duplicate keys) or in validity.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseItem } from '../../src/openai/sse.js';
import { TurnAccumulator, type TurnEvent } from '../../src/openai/turn-accumulator.js';

const text = fc.oneof(
  fc.constantFrom('', ' the', 'a', '<think>', '</think>', '<th', 'é👋', '"q"', 'back\\slash', 'line\nfeed', '\u0001', '\u2028'),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);
const smallInt = fc.integer({ min: -3, max: 100_000 });

/** One mutation of the base chunk, applied to a fresh copy per event. */
const mutation = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: fc.constant('content' as const), value: text }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('ignored' as const), value: fc.oneof(text, smallInt.map(String)) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('number' as const), value: smallInt }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('reasoning_content', 'reasoning', 'finish_reason', 'role') as fc.Arbitrary<string>, value: fc.oneof(text, fc.constant(null)) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('index' as const), value: fc.constantFrom(0, 1, null, undefined, '0') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('tool', 'usage', 'groq', 'error', 'second-choice', 'content-array', 'content-null') as fc.Arbitrary<string>, value: text }) },
);

/** How the chunk is written: plain JSON, spaced JSON, an escaped text, a duplicate key, broken. */
const spelling = fc.constantFrom('plain', 'plain', 'plain', 'spaced', 'escaped', 'duplicate', 'broken', 'error-event');

function chunkFor(base: { id: string; created: number; obfuscation: boolean; reasoningField: string | undefined }, m: { op: string; value: unknown }): Record<string, any> {
  const delta: Record<string, any> = { content: 'x' };
  if (base.reasoningField) {
    delta[base.reasoningField] = 'r';
    delta['content'] = null;
  }
  const choice: Record<string, any> = { index: 0, delta, logprobs: null, finish_reason: null };
  const chunk: Record<string, any> = { id: base.id, object: 'chat.completion.chunk', created: base.created, model: 'm', choices: [choice] };
  if (base.obfuscation) chunk['obfuscation'] = 'abc';
  const v = m.value;
  switch (m.op) {
    case 'content':
      delta[base.reasoningField ?? 'content'] = v;
      break;
    case 'ignored':
      chunk['id'] = v;
      if (base.obfuscation) chunk['obfuscation'] = `${v}z`;
      break;
    case 'number':
      chunk['created'] = v;
      delta['token_id'] = v;
      break;
    case 'index':
      if (v === undefined) delete choice['index'];
      else choice['index'] = v;
      break;
    case 'tool':
      delta['tool_calls'] = [{ index: 0, id: 'call', function: { name: 'f', arguments: v } }];
      break;
    case 'usage':
      chunk['usage'] = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
      break;
    case 'groq':
      chunk['x_groq'] = { id: v, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
      break;
    case 'error':
      chunk['error'] = { message: v };
      break;
    case 'second-choice':
      chunk['choices'] = [{ index: 1, delta: { content: v }, finish_reason: null }, choice];
      break;
    case 'content-array':
      delta['content'] = [{ type: 'text', text: v }];
      break;
    case 'content-null':
      delta['content'] = null;
      break;
    default:
      delta[m.op] = v;
      if (m.op === 'finish_reason') choice['finish_reason'] = v;
  }
  return chunk;
}

function spell(chunk: Record<string, any>, how: string): string {
  switch (how) {
    case 'spaced':
      return JSON.stringify(chunk, null, 1).replaceAll('\n', ' ');
    case 'escaped':
      // `\u0041`-style escapes for every letter of the text: the same value, spelled differently.
      return JSON.stringify(chunk).replace(/"content":"((?:[^"\\]|\\.)*)"/, (_, body: string) => `"content":"${body.replace(/[a-z]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`);
    case 'duplicate':
      return JSON.stringify(chunk).replace('"delta":{', '"delta":{"content":"shadowed",');
    case 'broken':
      return JSON.stringify(chunk).replace(/"content":"/, '"content":"\u0007');
    default:
      return JSON.stringify(chunk);
  }
}

function run(items: SseItem[]) {
  const acc = new TurnAccumulator();
  const events: TurnEvent[] = [];
  for (const item of items) acc.pushInto(item, events);
  events.push(...acc.flush());
  return { events, result: acc.result() };
}

function decode(stream: string, shapes: boolean): SseItem[] {
  const decoder = createSseDecoder({ shapes });
  return [...decoder.push(new TextEncoder().encode(stream)), ...decoder.end()];
}

describe('SSE shape cache', () => {
  it('feeds a TurnAccumulator exactly what parsing every event would', () => {
    fc.assert(
      fc.property(
        fc.record({
          id: fc.constantFrom('chatcmpl-1', 'x'),
          created: smallInt,
          obfuscation: fc.boolean(),
          reasoningField: fc.constantFrom(undefined, undefined, 'reasoning_content', 'reasoning'),
        }),
        fc.array(fc.tuple(mutation, spelling), { minLength: 1, maxLength: 40 }),
        (base, steps) => {
          const stream = steps
            .map(([m, how]) => {
              const data = spell(chunkFor(base, m), how);
              return how === 'error-event' ? `event: error\ndata: ${data}\n\n` : `data: ${data}\n\n`;
            })
            .join('');
          const fast = decode(`${stream}data: [DONE]\n\n`, true);
          const slow = decode(`${stream}data: [DONE]\n\n`, false);
          expect(run(fast)).toEqual(run(slow));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('actually skips parsing for a stream of plain text chunks', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 3, maxLength: 30 }), (texts) => {
        const stream = texts.map((t, i) => `data: ${JSON.stringify({ id: `c${i}`, created: i, choices: [{ index: 0, delta: { content: t || '.' }, finish_reason: null }] })}\n\n`).join('');
        const items = decode(stream, true);
        // The first chunk teaches the shape; every later one matches it.
        expect(items.slice(1).every((item) => item.kind === 'delta')).toBe(true);
        expect(run(items)).toEqual(run(decode(stream, false)));
      }),
    );
  });
});
