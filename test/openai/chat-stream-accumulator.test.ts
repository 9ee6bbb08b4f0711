import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk, ChatDelta, ChatToolCallDelta } from '../../src/openai/openai-types.js';
import type { SseItem } from '../../src/openai/sse.js';
import { ChatStreamAccumulator, type StreamEvent } from '../../src/openai/chat-stream-accumulator.js';

const item = (chunk: ChatCompletionChunk): SseItem => ({ kind: 'chunk', chunk });
const delta = (d: ChatDelta, finish_reason: string | null = null): SseItem => item({ choices: [{ index: 0, delta: d, finish_reason }] });
const tools = (...calls: ChatToolCallDelta[]): SseItem => delta({ tool_calls: calls });

function feed(items: SseItem[], options?: { splitThinkTags?: boolean }): { acc: ChatStreamAccumulator; events: StreamEvent[] } {
  const acc = new ChatStreamAccumulator(options);
  const events = items.flatMap((i) => acc.push(i));
  events.push(...acc.flush());
  return { acc, events };
}

describe('ChatStreamAccumulator: text and reasoning', () => {
  it('concatenates string content and emits text events', () => {
    const { acc, events } = feed([delta({ role: 'assistant', content: '' }), delta({ content: 'Ol' }), delta({ content: 'á!' }, 'stop')]);
    expect(acc.result().text).toBe('Olá!');
    expect(events).toEqual([
      { type: 'text', text: 'Ol' },
      { type: 'text', text: 'á!' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('prefers non-empty reasoning_content, else reasoning', () => {
    const { acc } = feed([
      delta({ reasoning_content: 'a', reasoning: 'DUP' }),
      delta({ reasoning_content: '', reasoning: 'b' }),
      delta({ reasoning_content: null, reasoning: 'c' }),
    ]);
    expect(acc.result().reasoning).toBe('abc');
  });

  it('ignores reasoning_details (OpenRouter duplicates reasoning there)', () => {
    const { acc } = feed([delta({ reasoning: 'think', reasoning_details: [{ type: 'reasoning.text', text: 'think' }] })]);
    expect(acc.result().reasoning).toBe('think');
  });

  it('reads Mistral array content: thinking parts (array or string) and text parts', () => {
    const { acc, events } = feed([
      delta({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Okay' }] }] }),
      delta({ content: [{ type: 'thinking', thinking: ', sure' }] }),
      delta({ content: [{ type: 'text', text: 'Answer' }, { type: 'image_url' }] }),
      delta({ content: ' done' }),
    ]);
    expect(acc.result()).toMatchObject({ reasoning: 'Okay, sure', text: 'Answer done' });
    expect(events.map((e) => e.type)).toEqual(['reasoning', 'reasoning', 'text', 'text']);
  });

  it('splits inline <think> tags by default, and not when disabled', () => {
    const items = [delta({ content: '<think>' }), delta({ content: '\nhm' }), delta({ content: '</th' }), delta({ content: 'ink>\nHi' })];
    expect(feed(items).acc.result()).toMatchObject({ reasoning: '\nhm', text: '\nHi' });
    expect(feed(items, { splitThinkTags: false }).acc.result()).toMatchObject({ reasoning: '', text: '<think>\nhm</think>\nHi' });
  });

  it('flush releases a held-back partial tag as text', () => {
    const acc = new ChatStreamAccumulator();
    expect(acc.push(delta({ content: 'a <' }))).toEqual([{ type: 'text', text: 'a ' }]);
    expect(acc.flush()).toEqual([{ type: 'text', text: '<' }]);
    expect(acc.result().text).toBe('a <');
  });

  it('uses the choice with index 0, or the first without an index', () => {
    const two = item({
      choices: [
        { index: 1, delta: { content: 'other' } },
        { index: 0, delta: { content: 'mine' } },
      ],
    });
    const noIndex = item({ choices: [{ delta: { content: 'x' } }] });
    const onlyOther = item({ choices: [{ index: 2, delta: { content: 'no' } }] });
    expect(feed([two, noIndex, onlyOther]).acc.result().text).toBe('minex');
  });

  it('tolerates empty / missing / null choices and deltas', () => {
    const { acc, events } = feed([item({ choices: [] }), item({}), item({ choices: null }), item({ choices: [{ index: 0, delta: null }] })]);
    expect(events).toEqual([]);
    expect(acc.hasOutput).toBe(false);
    expect(acc.result()).toEqual({ text: '', reasoning: '', toolCalls: [], finishReason: null, usage: null, error: null });
  });

  it('hasOutput turns true on text, reasoning or a tool call only', () => {
    const acc = new ChatStreamAccumulator();
    acc.push(item({ choices: [], usage: { prompt_tokens: 1 } }));
    acc.push(delta({ role: 'assistant', content: '' }, 'stop'));
    expect(acc.hasOutput).toBe(false);
    acc.push(tools({ index: 0, id: 'c', function: { name: 'f' } }));
    expect(acc.hasOutput).toBe(true);
  });
});

describe('ChatStreamAccumulator: tool calls', () => {
  it('groups OpenAI-style fragments by index; id and name from the first delta', () => {
    const { acc, events } = feed([
      tools({ index: 0, id: 'call_a', type: 'function', function: { name: 'add', arguments: '' } }),
      tools({ index: 1, id: 'call_m', type: 'function', function: { name: 'mul', arguments: '' } }),
      tools({ index: 0, function: { arguments: '{"a":' } }),
      tools({ index: 1, function: { arguments: '{"b":' } }),
      tools({ index: 0, function: { arguments: '1}' } }),
      tools({ index: 1, function: { arguments: '2}' } }),
    ]);
    expect(acc.result().toolCalls).toEqual([
      { id: 'call_a', name: 'add', arguments: '{"a":1}' },
      { id: 'call_m', name: 'mul', arguments: '{"b":2}' },
    ]);
    expect(events[0]).toEqual({ type: 'tool_call', index: 0, id: 'call_a', name: 'add', argumentsDelta: '' });
    expect(events[3]).toEqual({ type: 'tool_call', index: 1, id: 'call_m', name: 'mul', argumentsDelta: '{"b":' });
  });

  it('keeps the first non-empty id when continuations carry id "" (Alibaba)', () => {
    const { acc, events } = feed([
      tools({ index: 0, id: 'call_x', function: { name: 'weather', arguments: '' } }),
      tools({ index: 0, id: '', function: { arguments: '{"l":1}' } }),
      tools({ index: 0, id: '', function: { arguments: '' } }),
    ]);
    expect(acc.result().toolCalls).toEqual([{ id: 'call_x', name: 'weather', arguments: '{"l":1}' }]);
    expect(events).toHaveLength(2); // the empty trailing fragment adds nothing
  });

  it('keeps the first non-empty name even if later values differ', () => {
    const { acc } = feed([tools({ index: 0, id: 'a', function: { name: 'f', arguments: '{' } }), tools({ index: 0, function: { name: 'g', arguments: '}' } })]);
    expect(acc.result().toolCalls).toEqual([{ id: 'a', name: 'f', arguments: '{}' }]);
  });

  it('starts a new call when another non-empty id arrives at an index in use (Gemini via gateways reuses index 0)', () => {
    const { acc, events } = feed([
      tools({ index: 0, id: 'call_1', function: { name: 'weather', arguments: '{"city":"北京"}' } }),
      tools({ index: 0, id: 'call_2', function: { name: 'weather', arguments: '{"city":' } }),
      tools({ index: 0, function: { arguments: '"上海"}' } }),
    ]);
    expect(acc.result().toolCalls).toStrictEqual([
      { id: 'call_1', name: 'weather', arguments: '{"city":"北京"}' },
      { id: 'call_2', name: 'weather', arguments: '{"city":"上海"}' },
    ]);
    expect(events.map((e) => (e.type === 'tool_call' ? e.index : -1))).toEqual([0, 1, 1]);
  });

  it('a second call sent at the same index without an id cannot be told apart (gateway frames of dyedd/lens#49): one call, arguments not valid JSON', () => {
    const { acc } = feed([
      tools({ index: 0, id: 'toolu_530f', type: 'function', function: { name: 'glob', arguments: '' } }),
      tools({ index: 0, function: { name: '', arguments: '{"path":"","pattern":"**/*"}' } }),
      tools({ index: 0, function: { name: '', arguments: '{"path":"content/wiki","pattern":""}' } }),
    ]);
    const calls = acc.result().toolCalls;
    expect(calls).toHaveLength(1);
    expect(() => JSON.parse(calls[0]!.arguments)).toThrow();
  });

  it('keeps extra_content (Gemini 3 thought_signature) with its call, unchanged', () => {
    const signature = { google: { thought_signature: 'CiQBjz1rX0==' } };
    const { acc } = feed([
      tools({ index: 0, id: 'function-call-1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' }, extra_content: signature }),
      tools({ index: 0, id: 'function-call-2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } }),
    ]);
    const [first, second] = acc.result().toolCalls;
    expect(first?.extra).toEqual(signature);
    expect(second && 'extra' in second).toBe(false);
  });

  it('handles whole calls with no index (Ollama, Mistral) by id', () => {
    const { acc } = feed([
      tools({ id: 'one', function: { name: 'f', arguments: '{"v":1}' } }, { id: 'two', function: { name: 'g', arguments: '{}' } }),
      tools({ id: 'three', function: { name: 'h', arguments: '[]' } }),
    ]);
    expect(acc.result().toolCalls).toEqual([
      { id: 'one', name: 'f', arguments: '{"v":1}' },
      { id: 'two', name: 'g', arguments: '{}' },
      { id: 'three', name: 'h', arguments: '[]' },
    ]);
  });

  it('continues an id-keyed call when a later fragment has neither index nor id (by position)', () => {
    const { acc } = feed([
      tools({ id: 'a', function: { name: 'f', arguments: '{"x"' } }),
      tools({ function: { arguments: ':1}' } }),
      tools({ id: 'b', function: { name: 'g', arguments: '{' } }),
      tools({ function: { arguments: '}' } }),
    ]);
    expect(acc.result().toolCalls).toEqual([
      { id: 'a', name: 'f', arguments: '{"x":1}' },
      { id: 'b', name: 'g', arguments: '{}' },
    ]);
  });

  it('accepts id "0" and a numeric id (DeepInfra via OpenRouter)', () => {
    const { acc } = feed([
      tools({ index: 0, id: '0', function: { name: 'w', arguments: '{}' } }),
      tools({ id: 7 as unknown as string, function: { name: 'v' } }),
    ]);
    expect(acc.result().toolCalls).toEqual([
      { id: '0', name: 'w', arguments: '{}' },
      { id: '7', name: 'v', arguments: '' },
    ]);
  });

  it('handles a first delta without an arguments key (Novita)', () => {
    const { acc } = feed([
      tools({ index: 0, id: 'llm_version:0', type: 'function', function: { name: 'llm_version' } }),
      tools({ index: 0, function: { arguments: '{}' } }),
    ]);
    expect(acc.result().toolCalls).toEqual([{ id: 'llm_version:0', name: 'llm_version', arguments: '{}' }]);
  });

  it('numbers calls by first appearance even when provider indexes start elsewhere', () => {
    const { events } = feed([tools({ index: 3, id: 'x', function: { name: 'f', arguments: '{}' } })]);
    expect(events[0]).toMatchObject({ type: 'tool_call', index: 0 });
  });
});

describe('ChatStreamAccumulator: finish, usage, errors', () => {
  it('finish_reason is the last non-null one', () => {
    const { acc } = feed([delta({ content: 'a' }, 'tool_calls'), delta({ content: '' }, null), delta({}, 'stop'), delta({}, null)]);
    expect(acc.result().finishReason).toBe('stop');
  });

  it('usage is the last non-null top-level usage; a later null does not erase it', () => {
    const { acc, events } = feed([
      item({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
      item({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 } }),
      item({ choices: [], usage: null }),
    ]);
    expect(acc.result().usage).toEqual({ prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 });
    expect(events.filter((e) => e.type === 'usage')).toHaveLength(2);
  });

  it('falls back to x_groq.usage, but top-level usage wins', () => {
    const groqOnly = feed([item({ choices: [], x_groq: { usage: { prompt_tokens: 9 } } }), item({ choices: [], x_groq: { id: 'x' } })]);
    expect(groqOnly.acc.result().usage).toEqual({ prompt_tokens: 9 });
    const both = feed([item({ choices: [], usage: { prompt_tokens: 1 } }), item({ choices: [], x_groq: { usage: { prompt_tokens: 9 } } })]);
    expect(both.acc.result().usage).toEqual({ prompt_tokens: 1 });
    expect(both.events.filter((e) => e.type === 'usage')).toHaveLength(1);
  });

  it('reports error items and error objects inside chunks; done and skip are no-ops', () => {
    const acc = new ChatStreamAccumulator();
    expect(acc.push({ kind: 'done' })).toEqual([]);
    expect(acc.push({ kind: 'skip', reason: 'x' })).toEqual([]);
    expect(acc.push({ kind: 'error', error: { message: 'first' } })).toEqual([{ type: 'error', error: { message: 'first' } }]);
    expect(acc.push(item({ error: { message: 'second' } }))).toEqual([{ type: 'error', error: { message: 'second' } }]);
    expect(acc.result().error).toEqual({ message: 'first' });
  });

  it('result() can be called repeatedly and keeps accumulating', () => {
    const acc = new ChatStreamAccumulator();
    acc.push(delta({ content: 'a' }));
    acc.push(delta({ content: 'b' }));
    expect(acc.result().text).toBe('ab');
    acc.push(delta({ content: 'c' }));
    expect(acc.result().text).toBe('abc');
    expect(acc.result().text).toBe('abc');
  });
});
