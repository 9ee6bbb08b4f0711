/**
 * The pieces of Ollama's native chat wire: NDJSON framing, native line → stream items, and the
 * native request body (messages, options, think, OPENAI_EXTRA_BODY placement).
 */
import { describe, expect, it } from 'vitest';
import { createLineFramer, LineTooLargeError, StreamBrokenError } from '../../src/openai/ndjson.js';
import { createOllamaChatDecoder, OllamaChatReader } from '../../src/openai/ollama-chat-items.js';
import { buildOllamaChatBody, ollamaMessages, ollamaThink } from '../../src/openai/ollama-chat-request.js';
import { ChatStreamAccumulator } from '../../src/openai/chat-stream-accumulator.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('createLineFramer', () => {
  it('splits lines across pieces, inside a UTF-8 character and at CRLF, leaving blank lines out', () => {
    const text = '{"a":"é"}\r\n\n{"b":2}\n{"c":3}';
    const all = bytes(text);
    for (let cut = 0; cut <= all.length; cut++) {
      const framer = createLineFramer();
      const lines = [...framer.push(all.subarray(0, cut)), ...framer.push(all.subarray(cut)), ...framer.end()];
      expect(lines).toEqual(['{"a":"é"}', '{"b":2}', '{"c":3}']);
    }
  });

  it('refuses a line over the limit as soon as it is longer', () => {
    const framer = createLineFramer(10);
    expect(framer.push(bytes('{"a":1}\n'))).toEqual(['{"a":1}']);
    expect(() => framer.push(bytes('x'.repeat(11)))).toThrow(LineTooLargeError);
  });
});

describe('OllamaChatReader', () => {
  it('reads content, thinking, whole tool calls (ids and positions of their own) and the done line', () => {
    const reader = new OllamaChatReader();
    const accumulator = new ChatStreamAccumulator();
    const lines = [
      '{"model":"qwen3","message":{"role":"assistant","content":"","thinking":"Hue is a city."},"done":false}',
      '{"model":"qwen3","message":{"role":"assistant","content":"Checking."},"done":false}',
      '{"model":"qwen3","message":{"role":"assistant","content":"","tool_calls":[' +
        '{"id":"call_cy3xwkra","function":{"index":0,"name":"get_weather","arguments":{"city":"Hue"}}},' +
        '{"function":{"index":0,"name":"get_time","arguments":{}}}]},"done":false}',
      '{"model":"qwen3","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":272,"eval_count":32}',
      '{"model":"qwen3","message":{"role":"assistant","content":"after done"},"done":false}',
    ];
    for (const line of lines) for (const item of reader.line(line)) accumulator.push(item);
    expect(reader.done).toBe(true);
    expect(accumulator.result()).toEqual({
      text: 'Checking.',
      reasoning: 'Hue is a city.',
      toolCalls: [
        { id: 'call_cy3xwkra', name: 'get_weather', arguments: '{"city":"Hue"}' },
        { id: '', name: 'get_time', arguments: '{}' },
      ],
      finishReason: 'tool_calls',
      usage: { prompt_tokens: 272, completion_tokens: 32, total_tokens: 304 },
      error: null,
    });
  });

  it('maps done_reason length to length, and a plain stop to stop', () => {
    const cut = new OllamaChatReader().line('{"message":{"role":"assistant","content":"a"},"done":true,"done_reason":"length","eval_count":5}');
    const accumulator = new ChatStreamAccumulator();
    for (const item of cut) accumulator.push(item);
    expect(accumulator.result().finishReason).toBe('length');
    expect(accumulator.result().usage).toEqual({ prompt_tokens: 0, completion_tokens: 5, total_tokens: 5 });
    const plain = new ChatStreamAccumulator();
    for (const item of new OllamaChatReader().line('{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}')) plain.push(item);
    expect(plain.result().finishReason).toBe('stop');
    expect(plain.result().usage).toBeNull();
  });

  it('turns an error line into an error item with its words', () => {
    expect(new OllamaChatReader().line('{"error":"model runner has unexpectedly stopped"}')).toEqual([
      { kind: 'error', error: { message: 'model runner has unexpectedly stopped' } },
    ]);
  });

  it('throws a broken-stream error for a line that is not JSON', () => {
    expect(() => new OllamaChatReader().line('data: {"choices":[]}')).toThrow(StreamBrokenError);
    expect(() => new OllamaChatReader().line('[1,2]')).toThrow(StreamBrokenError);
  });
});

describe('createOllamaChatDecoder', () => {
  it('says the stream broke when it ends without the done line', () => {
    const decoder = createOllamaChatDecoder();
    expect(decoder.push(bytes('{"message":{"role":"assistant","content":"Hel"},"done":false}\n'))).toEqual([
      { kind: 'chunk', chunk: { choices: [{ index: 0, delta: { content: 'Hel' } }] } },
    ]);
    expect(() => decoder.end()).toThrow(/final "done" line never came/);
  });

  it('ends quietly after an error line (the error item says it all)', () => {
    const decoder = createOllamaChatDecoder();
    decoder.push(bytes('{"error":"boom"}\n'));
    expect(decoder.end()).toEqual([]);
  });
});

describe('ollamaThink', () => {
  it('leaves think out for default and for a model without the thinking capability', () => {
    expect(ollamaThink(undefined, 'boolean')).toBeUndefined();
    expect(ollamaThink('default', 'boolean')).toBeUndefined();
    expect(ollamaThink('high', 'none')).toBeUndefined();
  });
  it('sends a boolean to boolean models and a level to level models (GPT-OSS)', () => {
    expect(ollamaThink('none', 'boolean')).toBe(false);
    expect(ollamaThink('low', 'boolean')).toBe(true);
    expect(ollamaThink('high', 'unknown')).toBe(true);
    expect(ollamaThink('medium', 'levels')).toBe('medium');
    expect(ollamaThink('none', 'levels')).toBeUndefined();
  });
});

describe('ollamaMessages', () => {
  it('spells tool calls with object arguments, tool results with tool_name and id, images as base64', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,UE5H' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Hue"}' } },
          { id: 'c2', type: 'function', function: { name: 'broken', arguments: '{"city":' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'rain' },
      { role: 'tool', tool_call_id: 'c2', content: 'error: arguments are not JSON' },
      { role: 'assistant', content: 'It rains.' },
    ];
    expect(ollamaMessages(messages)).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'look', images: ['UE5H'] },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', function: { name: 'get_weather', arguments: { city: 'Hue' } } },
          { id: 'c2', function: { name: 'broken', arguments: {} } },
        ],
      },
      { role: 'tool', content: 'rain', tool_name: 'get_weather', tool_call_id: 'c1' },
      { role: 'tool', content: 'error: arguments are not JSON', tool_name: 'broken', tool_call_id: 'c2' },
      { role: 'assistant', content: 'It rains.' },
    ]);
  });
});

describe('buildOllamaChatBody', () => {
  const request = { model: 'qwen3:8b', messages: [{ role: 'user' as const, content: 'hi' }], maxTokens: 64, temperature: 0.2, reasoningEffort: 'high' };

  it('puts num_ctx, num_predict and temperature in options, think at the top, tools as given', () => {
    const tools = [{ type: 'function' as const, function: { name: 'read_file', parameters: { type: 'object' } } }];
    expect(buildOllamaChatBody({ ...request, tools }, { numCtx: 32768, think: 'boolean' })).toEqual({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      tools,
      think: true,
      options: { num_ctx: 32768, num_predict: 64, temperature: 0.2 },
    });
  });

  it('places OPENAI_EXTRA_BODY where Ollama reads it: keep_alive on top, options merged, max_tokens as num_predict', () => {
    const body = buildOllamaChatBody(request, {
      numCtx: 32768,
      think: 'none',
      extraBody: {
        keep_alive: '30m',
        options: { top_k: 20, num_ctx: 8192 },
        top_p: 0.9,
        max_tokens: 100,
        stream_options: { include_usage: true },
        model: 'other',
        stream: false,
      },
    });
    expect(body).toEqual({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      keep_alive: '30m',
      options: { num_ctx: 8192, num_predict: 100, temperature: 0.2, top_k: 20, top_p: 0.9 },
    });
  });

  it('sends no options at all when there is nothing to say', () => {
    expect(buildOllamaChatBody({ model: 'm', messages: [] })).toEqual({ model: 'm', messages: [], stream: true });
  });
});
