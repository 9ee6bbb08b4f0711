/**
 * Properties of the SSE decoder: splitting the bytes anywhere never changes the items, and the
 * items are the WHATWG interpretation of the events that were written.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { binaryUnit } from '../../test/helpers/binary-unit.js';
import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseItem } from '../../src/openai/sse.js';
import { classifySseEvent } from '../../src/openai/sse-items.js';
import { splitAt } from '../../test/helpers/split.js';

const enc = new TextEncoder();

function decode(pieces: Uint8Array[]): SseItem[] {
  const decoder = createSseDecoder();
  const items: SseItem[] = [];
  for (const piece of pieces) items.push(...decoder.push(piece));
  items.push(...decoder.end());
  return items;
}

/** Cut `bytes` at the given offsets (taken modulo the length, sorted). */
const cut = splitAt;

/** A line value: any Unicode (astral too, no lone surrogates) or SSE-ish characters; no CR or LF. */
const lineValue = fc.oneof(
  fc.string({ unit: binaryUnit, maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ' ')),
  fc.string({ unit: fc.constantFrom(' ', 'a', ':', 'é', '👋', '\u2028', '\0', '{', 'data'), maxLength: 8 }),
);
const content = fc.string({ unit: fc.constantFrom('a', ' ', 'é', '日', '👋', '"', '\\', '\n', '<', 'ß'), maxLength: 10 });
const jsonData = content.map((c) => JSON.stringify({ choices: [{ index: 0, delta: { content: c } }] }));
/** Data lines of one event: JSON split over lines, [DONE], an error object, or arbitrary text. */
const dataLines: fc.Arbitrary<string[]> = fc.oneof<fc.Arbitrary<string[]>[]>(
  jsonData.map((d) => [d]),
  jsonData.map((d) => {
    const i = d.indexOf(':') + 1;
    return [d.slice(0, i), d.slice(i)];
  }),
  fc.constant(['[DONE]']),
  lineValue.map((m) => [JSON.stringify({ error: { message: m } })]),
  fc.array(lineValue, { minLength: 1, maxLength: 3 }),
);
const sseEvent = fc.record({
  comments: fc.array(lineValue, { maxLength: 2 }),
  type: fc.option(fc.constantFrom('error', 'message', 'ping'), { nil: undefined }),
  data: dataLines,
  space: fc.boolean(),
});
type SseEvent = typeof sseEvent extends fc.Arbitrary<infer T> ? T : never;

function serialize(events: SseEvent[], eol: (i: number) => string): string {
  let n = 0;
  const line = (s: string) => s + eol(n++);
  let out = '';
  for (const e of events) {
    for (const c of e.comments) out += line(`:${c}`);
    if (e.type !== undefined) out += line(`event: ${e.type}`);
    for (const d of e.data) out += line(`data:${e.space ? ' ' : ''}${d}`);
    out += line('');
  }
  return out;
}

/** What a WHATWG parser must produce for these events. */
function model(events: SseEvent[]): SseItem[] {
  // Without the space after `data:`, a value's own leading space is the one that is stripped.
  const value = (e: SseEvent, d: string) => (!e.space && d.startsWith(' ') ? d.slice(1) : d);
  return events.map((e) => classifySseEvent({ event: e.type, data: e.data.map((d) => value(e, d)).join('\n') }));
}

describe('SSE decoder properties', () => {
  it('any byte split of a stream with one line ending gives the written events', () => {
    fc.assert(
      fc.property(
        fc.array(sseEvent, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(), { maxLength: 12 }),
        (events, eol, offsets) => {
          const bytes = enc.encode(serialize(events, () => eol));
          expect(decode([bytes])).toEqual(model(events));
          expect(decode(cut(bytes, offsets))).toEqual(model(events));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('any byte split of a stream with mixed line endings gives the unsplit items', () => {
    fc.assert(
      fc.property(
        fc.array(sseEvent, { minLength: 1, maxLength: 6 }),
        fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        (events, eols, offsets, unterminated) => {
          let text = serialize(events, (i) => eols[i % eols.length] ?? '\n');
          if (unterminated) text = text.replace(/(\r\n|\r|\n)+$/, '');
          const bytes = enc.encode(text);
          expect(decode(cut(bytes, offsets))).toEqual(decode([bytes]));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('one byte at a time equals whole', () => {
    fc.assert(
      fc.property(fc.array(sseEvent, { minLength: 1, maxLength: 4 }), (events) => {
        const bytes = enc.encode(serialize(events, () => '\r\n'));
        expect(decode(Array.from(bytes, (b) => new Uint8Array([b])))).toEqual(model(events));
      }),
      { numRuns: 100 },
    );
  });

  it('any split of a real recorded stream gives the same items (OpenRouter, with comments and emoji)', () => {
    const bytes = new Uint8Array(readFileSync(new URL('../../test/fixtures/providers/openrouter__anthropic_text_processing_comment.sse', import.meta.url)));
    const whole = decode([bytes]);
    expect(whole.filter((i) => i.kind === 'chunk').length).toBeGreaterThan(3);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 40 }), (offsets) => {
        expect(decode(cut(bytes, offsets))).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });
});
