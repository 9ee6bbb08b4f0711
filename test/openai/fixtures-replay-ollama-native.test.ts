/**
 * The recorded answers of Ollama's native `/api/chat` (`test/fixtures/providers/ollama__api_chat_*.ndjson`,
 * provenance in each `.json` and the README) read by the native decoder and accumulated by the
 * same `ChatStreamAccumulator` as the Chat Completions streams, whole and in small random pieces, give
 * the `.json`'s `expected` extraction: the same result a `/v1` stream of that answer gives.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createOllamaChatDecoder } from '../../src/openai/ollama-chat-items.js';
import { createSseDecoder, type SseItem } from '../../src/openai/sse.js';
import { ChatStreamAccumulator, type StreamEvent } from '../../src/openai/chat-stream-accumulator.js';

const dir = new URL('../fixtures/providers/', import.meta.url);
const cases = readdirSync(dir)
  .filter((n) => n.startsWith('ollama__api_chat_') && n.endsWith('.ndjson'))
  .map((n) => n.slice(0, -'.ndjson'.length))
  .sort();

function replay(pieces: Uint8Array[]): { items: SseItem[]; events: StreamEvent[]; accumulator: ChatStreamAccumulator } {
  const decoder = createOllamaChatDecoder();
  const items: SseItem[] = [];
  for (const piece of pieces) items.push(...decoder.push(piece));
  items.push(...decoder.end());
  const accumulator = new ChatStreamAccumulator();
  const events = items.flatMap((item) => accumulator.push(item));
  events.push(...accumulator.flush());
  return { items, events, accumulator };
}

function pieces(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) out.push(bytes.subarray(offset, offset + size));
  return out;
}

describe('recorded native /api/chat answers', () => {
  it('finds the recordings', () => {
    expect(cases.length).toBeGreaterThanOrEqual(3);
  });

  for (const name of cases) {
    const bytes = new Uint8Array(readFileSync(new URL(`${name}.ndjson`, dir)));
    const meta = JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8'));
    it(`${name}: the expected extraction, whole and split anywhere`, () => {
      for (const split of [[bytes], pieces(bytes, 1), pieces(bytes, 7), pieces(bytes, 64)]) {
        const result = replay(split).accumulator.result();
        expect(result.text).toBe(meta.expected.text);
        expect(result.reasoning).toBe(meta.expected.reasoning);
        expect(result.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments }))).toEqual(meta.expected.tool_calls);
        expect(result.finishReason).toBe(meta.expected.finish_reason);
        expect(result.usage).toEqual(meta.expected.usage);
        expect(result.error).toBe(meta.expected.error);
      }
    });
  }

  it('gives the same events as the /v1 stream Ollama sends for the same answer (its openai.go mapping)', () => {
    const native = replay([new Uint8Array(readFileSync(new URL('ollama__api_chat_docs_tool.ndjson', dir)))]).events;
    // What Ollama's /v1 streams for that answer: the call whole in one chunk, then finish_reason and usage.
    const sse = [
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '', tool_calls: [{ index: 0, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' } }] }, finish_reason: null }] })}`,
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: 'tool_calls' }] })}`,
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 169, completion_tokens: 15, total_tokens: 184 } })}`,
      'data: [DONE]',
    ].join('\n\n');
    const decoder = createSseDecoder();
    const items = [...decoder.push(new TextEncoder().encode(`${sse}\n\n`)), ...decoder.end()];
    const accumulator = new ChatStreamAccumulator();
    const v1 = items.flatMap((item) => accumulator.push(item));
    expect(native).toEqual(v1);
  });
});
