/**
 * Properties of the one reader of a model's answer: however the same stream is cut into deltas
 * and network reads, the answer and the text shown are the same; what is shown is at every moment
 * a prefix of the answer's text, and in the end all of it; a call written as text is run or shown,
 * never both.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerReader } from '../../src/loop/answer-reader.js';
import { textToolCallRecogniser } from '../../src/loop/fitted-request.js';
import type { ChatDelta } from '../../src/openai/openai-types.js';
import type { SseItem } from '../../src/openai/sse.js';
import { splitAt } from '../../test/helpers/split.js';

const NAMES = ['read_file', 'write_file'];
const definitions = NAMES.map((name) => ({
  type: 'function' as const,
  function: { name, description: '', parameters: { type: 'object' as const, properties: { path: { type: 'string' } }, required: [] } },
}));

/** Prose without any marker's characters. */
const prose = fc.stringMatching(/^[A-Za-z][A-Za-z ,.!?'\n]{0,40}[.!?]$/).filter((p) => !/to=|commentary|call:|Action/.test(p));
const value = fc.stringMatching(/^[A-Za-z0-9_./-]{1,12}$/);
/** A call written as text in a few formats, or a marker mentioned in prose (no call). */
const written = fc.oneof(
  fc.tuple(fc.constantFrom(...NAMES), value).map(([n, v]) => `<tool_call>\n{"name": "${n}", "arguments": {"path": "${v}"}}\n</tool_call>`),
  fc.tuple(fc.constantFrom(...NAMES), value).map(([n, v]) => `[TOOL_CALLS]${n}[ARGS]{"path": "${v}"}`),
  fc.tuple(fc.constantFrom(...NAMES), value).map(([n, v]) => `Action: ${n}\nAction Input: {"path": "${v}"}`),
  fc.constant('Calls go in <tool_call> tags.'),
);
const stream = fc.record({
  before: fc.option(prose, { nil: '' }),
  call: fc.option(written, { nil: undefined }),
  after: fc.option(prose, { nil: '' }),
  reasoning: fc.option(prose, { nil: '' }),
  structured: fc.array(fc.tuple(fc.constantFrom(...NAMES), value), { maxLength: 2 }),
  recognise: fc.boolean(),
});
const cuts = fc.record({
  content: fc.array(fc.nat(200), { maxLength: 8 }),
  reasoning: fc.array(fc.nat(60), { maxLength: 3 }),
  reads: fc.array(fc.nat(20), { maxLength: 4 }),
});

type Stream = typeof stream extends fc.Arbitrary<infer T> ? T : never;
type Cuts = typeof cuts extends fc.Arbitrary<infer T> ? T : never;

const chunk = (delta: ChatDelta, finish: string | null = null): SseItem => ({
  kind: 'chunk',
  chunk: { choices: [{ index: 0, delta, finish_reason: finish }] },
});
const contentOf = (s: Stream) => (s.call === undefined ? s.before : `${s.before}${s.before ? '\n\n' : ''}${s.call}${s.after ? `\n${s.after}` : ''}`);

/** The stream's items, its text and reasoning cut at `cut`, grouped into network reads. */
function batches(s: Stream, cut: Cuts): SseItem[][] {
  const items: SseItem[] = [
    ...splitAt(s.reasoning, cut.reasoning).map((r) => chunk({ reasoning_content: r })),
    ...splitAt(contentOf(s), cut.content).map((c) => chunk({ content: c })),
    ...s.structured.map(([name, v], index) =>
      chunk({ tool_calls: [{ index, id: `c${index}`, type: 'function', function: { name, arguments: `{"path":"${v}"}` } }] }),
    ),
    chunk({}, s.structured.length > 0 ? 'tool_calls' : 'stop'),
  ];
  const points = [...new Set(cut.reads.map((r) => r % (items.length + 1)))].sort((a, b) => a - b);
  return [...points, items.length].map((p, i, all) => items.slice(i === 0 ? 0 : all[i - 1], p)).filter((b) => b.length > 0);
}

/** Reads the stream; the text shown after each read and at the end, and the answer. */
function read(s: Stream, cut: Cuts) {
  const reader = new AnswerReader(s.recognise ? textToolCallRecogniser(definitions) : undefined);
  let shown = '';
  const moments: string[] = [];
  const take = (events: ReturnType<AnswerReader['push']>) => {
    for (const event of events) if (event.type === 'text') shown += event.text;
    moments.push(shown);
  };
  for (const batch of batches(s, cut)) take(reader.push(batch));
  take(reader.flush());
  const end = reader.end();
  take(end.show);
  return { shown, moments, answer: end.answer };
}

describe('the answer reader', () => {
  it('any split of the same stream gives the same answer and the same text shown', () => {
    fc.assert(
      fc.property(stream, cuts, cuts, (s, a, b) => {
        const one = read(s, a);
        const other = read(s, b);
        expect(other.answer).toEqual(one.answer);
        expect(other.shown).toBe(one.shown);
      }),
      { numRuns: 400 },
    );
  });

  it("what is shown is always a prefix of the answer's text, and in the end all of it", () => {
    fc.assert(
      fc.property(stream, cuts, (s, cut) => {
        const r = read(s, cut);
        for (const moment of r.moments) expect(r.answer.text.startsWith(moment)).toBe(true);
        expect(r.shown).toBe(r.answer.text);
        expect(r.answer.reasoning).toBe(s.reasoning);
      }),
      { numRuns: 400 },
    );
  });

  it('a call written as text is run or shown, never both', () => {
    fc.assert(
      fc.property(stream, cuts, (s, cut) => {
        const r = read(s, cut);
        const fromText = r.answer.toolCalls.filter((call) => call.id === '');
        // Told whenever calls were read from the text, also when each repeats a structured one (run once, as that one).
        if (fromText.length > 0) expect(r.answer.fromText).toBe(true);
        if (r.answer.fromText) {
          // Only the prose before the call was shown, none of the call and nothing after it.
          expect(`${s.before}\n\n`.startsWith(r.shown)).toBe(true);
          expect(fromText.map((call) => JSON.parse(call.arguments).path).every((v) => s.call?.includes(`"${v}"`))).toBe(true);
        } else if (s.call !== undefined) expect(r.shown).toContain(s.call);
        if (s.recognise && s.call !== undefined && !s.call.startsWith('Calls go')) expect(r.answer.fromText).toBe(true);
        // The structured calls always run, after those read from the text.
        expect(r.answer.toolCalls.slice(fromText.length).map((call) => call.id)).toEqual(s.structured.map((_, i) => `c${i}`));
      }),
      { numRuns: 400 },
    );
  });
});
