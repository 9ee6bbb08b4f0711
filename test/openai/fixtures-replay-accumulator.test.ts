/**
 * Every recorded provider stream in `test/fixtures/providers/` (see its README.md for
 * provenance) decoded by `createSseDecoder` and accumulated by `ChatStreamAccumulator`, whole and in
 * random small pieces, must give exactly the `.json`'s `expected` extraction
 * (`expected_if_think_tags_split` for text and reasoning when think tags are split).
 * `_chunks-only/*.chunks.jsonl` (chunks without SSE framing) are replayed as chunk items.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseItem } from '../../src/openai/sse.js';
import { ChatStreamAccumulator, type ChatStreamResult } from '../../src/openai/chat-stream-accumulator.js';

const dir = new URL('../fixtures/providers/', import.meta.url);
const chunksDir = new URL('../fixtures/providers/_chunks-only/', import.meta.url);
const sseCases = readdirSync(dir)
  .filter((n) => n.endsWith('.sse'))
  .map((n) => n.slice(0, -4))
  .sort();
const chunkCases = readdirSync(chunksDir)
  .filter((n) => n.endsWith('.chunks.jsonl'))
  .map((n) => n.slice(0, -'.chunks.jsonl'.length))
  .sort();

interface Expected {
  text: string;
  reasoning: string;
  tool_calls: { id: string; name: string; arguments: string }[];
  finish_reason: string | null;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
  error: Record<string, unknown> | null;
}
interface Meta {
  expected: Expected;
  expected_if_think_tags_split?: { text: string; reasoning: string };
}

/** A deterministic PRNG (mulberry32) so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function decode(bytes: Uint8Array, pieces: Uint8Array[] = [bytes]): SseItem[] {
  const decoder = createSseDecoder();
  const items: SseItem[] = [];
  for (const piece of pieces) items.push(...decoder.push(piece));
  items.push(...decoder.end());
  return items;
}

function randomPieces(bytes: Uint8Array, seed: number, max: number): Uint8Array[] {
  const next = rng(seed);
  const pieces: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; ) {
    const size = 1 + Math.floor(next() * max);
    pieces.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return pieces;
}

function accumulate(items: SseItem[], splitThinkTags: boolean): { result: ChatStreamResult; streamed: { text: string; reasoning: string } } {
  const acc = new ChatStreamAccumulator({ splitThinkTags });
  let text = '';
  let reasoning = '';
  for (const item of [...items.map((i) => acc.push(i)), acc.flush()].flat()) {
    if (item.type === 'text') text += item.text;
    else if (item.type === 'reasoning') reasoning += item.text;
  }
  return { result: acc.result(), streamed: { text, reasoning } };
}

function check(items: SseItem[], meta: Meta): void {
  for (const split of [true, false]) {
    const want = meta.expected;
    const words = split && meta.expected_if_think_tags_split ? meta.expected_if_think_tags_split : want;
    const { result, streamed } = accumulate(items, split);
    expect(result.text, `text (split=${split})`).toBe(words.text);
    expect(result.reasoning, `reasoning (split=${split})`).toBe(words.reasoning);
    expect(streamed, `events (split=${split})`).toEqual({ text: words.text, reasoning: words.reasoning });
    expect(result.toolCalls).toEqual(want.tool_calls);
    expect(result.finishReason).toBe(want.finish_reason);
    if (want.usage === null) expect(result.usage).toBeNull();
    else {
      expect({
        prompt_tokens: result.usage?.prompt_tokens,
        completion_tokens: result.usage?.completion_tokens,
        total_tokens: result.usage?.total_tokens,
      }).toEqual(want.usage);
    }
    if (want.error === null) expect(result.error).toBeNull();
    else expect(result.error).toEqual(want.error);
  }
}

describe('SSE fixtures → createSseDecoder → ChatStreamAccumulator', () => {
  it('has the recorded fixtures', () => {
    expect(sseCases.length).toBeGreaterThanOrEqual(30);
  });

  for (const name of sseCases) {
    it(name, () => {
      const meta = JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8')) as Meta;
      const bytes = new Uint8Array(readFileSync(new URL(`${name}.sse`, dir)));
      const whole = decode(bytes);
      check(whole, meta);
      expect(whole.filter((i) => i.kind === 'chunk' || i.kind === 'error').length).toBeGreaterThan(0);
      // Random small pieces (1..7 and 1..97 bytes): same items as the whole body.
      for (const [seed, max] of [
        [1, 7],
        [2, 97],
      ] as const) {
        const pieces = decode(bytes, randomPieces(bytes, seed + name.length, max));
        expect(pieces).toEqual(whole);
      }
      // One byte at a time, for the smaller recordings.
      if (bytes.length < 20_000) expect(decode(bytes, randomPieces(bytes, 3, 1))).toEqual(whole);
    });
  }
});

describe('chunks-only fixtures → ChatStreamAccumulator', () => {
  it('has the chunk recordings', () => {
    expect(chunkCases.length).toBeGreaterThanOrEqual(4);
  });

  for (const name of chunkCases) {
    it(name, () => {
      const meta = JSON.parse(readFileSync(new URL(`${name}.json`, chunksDir), 'utf8')) as Meta;
      const lines = readFileSync(new URL(`${name}.chunks.jsonl`, chunksDir), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '');
      const items: SseItem[] = lines.map((line) => ({ kind: 'chunk', chunk: JSON.parse(line) }));
      check(items, meta);
    });
  }
});
