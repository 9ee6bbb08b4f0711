import { describe, expect, it } from 'vitest';
import { AnswerReader } from '../../src/loop/answer-reader.js';
import { textToolCallRecogniser } from '../../src/loop/fitted-request.js';
import type { StreamEvent } from '../../src/openai/chat-stream-accumulator.js';
import type { ChatDelta } from '../../src/openai/openai-types.js';
import type { SseItem } from '../../src/openai/sse.js';

const definition = (name: string) => ({
  type: 'function' as const,
  function: { name, description: '', parameters: { type: 'object' as const, properties: { path: { type: 'string' } }, required: [] } },
});
const recogniser = () => textToolCallRecogniser([definition('read_file'), definition('write_file')]);

const chunk = (delta: ChatDelta, finish: string | null = null): SseItem => ({
  kind: 'chunk',
  chunk: { choices: [{ index: 0, delta, finish_reason: finish }] },
});
const content = (text: string) => chunk({ content: text });
const structured = (id: string, name: string, args: string) => chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: args } }] });
const texts = (events: StreamEvent[]) => events.map((e) => (e.type === 'text' ? e.text : '')).join('');

/** Reads `batches` to the end; what was shown while streaming, at the end, and the answer. */
function read(reader: AnswerReader, batches: SseItem[][]) {
  const live = batches.flatMap((batch) => reader.push(batch));
  const flushed = reader.flush();
  const { show, answer } = reader.end();
  return { live: texts([...live, ...flushed]), atEnd: texts(show), answer };
}

describe('AnswerReader', () => {
  it('without text calls, shows text and reasoning as they come and gives the structured answer', () => {
    const reader = new AnswerReader();
    const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
    const first = reader.push([chunk({ reasoning_content: 'hm' }), content('<tool_call>{"name": "read_file"')]);
    expect(first).toEqual([
      { type: 'reasoning', text: 'hm' },
      { type: 'text', text: '<tool_call>{"name": "read_file"' },
    ]);
    expect(reader.finished).toBe(false);
    reader.push([chunk({}, 'stop'), { kind: 'chunk', chunk: { choices: [], usage } }]);
    expect(reader.finished).toBe(true);
    const { show, answer } = reader.end();
    expect(show).toEqual([]);
    expect(answer).toEqual({ text: '<tool_call>{"name": "read_file"', reasoning: 'hm', toolCalls: [], finishReason: 'stop', usage, fromText: false });
  });

  it('holds back a call written as text, shows the prose before it, and runs it; what the model wrote after it is never shown', () => {
    const r = read(new AnswerReader(recogniser()), [
      [content('Reading it.\n\n<tool_')],
      [content('call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>\nIt says hi.')],
      [chunk({}, 'stop')],
    ]);
    expect(r.live).toBe('Reading it.\n\n');
    expect(r.atEnd).toBe('');
    expect(r.answer.text).toBe('Reading it.\n\n');
    expect(r.answer.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([['read_file', { path: 'a' }]]);
    expect(r.answer.fromText).toBe(true);
  });

  it('shows at the end what a marker that was none held back', () => {
    const r = read(new AnswerReader(recogniser()), [[content('Wrap calls in <tool_call')], [content('> tags.')]]);
    expect(r.live + r.atEnd).toBe('Wrap calls in <tool_call> tags.');
    expect(r.atEnd).not.toBe('');
    expect(r.answer).toMatchObject({ text: 'Wrap calls in <tool_call> tags.', toolCalls: [], fromText: false });
  });

  it('merges text calls before structured ones, a text call repeating a structured one once', () => {
    const r = read(new AnswerReader(recogniser()), [
      [
        content(
          '<tool_call>{"name": "write_file", "arguments": {"path": "y"}}</tool_call><tool_call>{"name": "read_file", "arguments": {"path": "x"}}</tool_call>',
        ),
      ],
      [structured('s1', 'write_file', '{"path":"y"}')],
      [chunk({}, 'tool_calls')],
    ]);
    expect(r.answer.toolCalls.map((c) => [c.id, c.name])).toEqual([
      ['', 'read_file'],
      ['s1', 'write_file'],
    ]);
    expect(r.answer.finishReason).toBe('tool_calls');
  });

  it('reads a call from the reasoning only when the answer has no call of its own', () => {
    const call = '\n```json\n{"name": "read_file", "arguments": {"path": "a"}}\n```';
    const alone = read(new AnswerReader(recogniser()), [[chunk({ reasoning_content: `I will read a.${call}` })]]);
    expect(alone.answer.toolCalls.map((c) => c.name)).toEqual(['read_file']);
    expect(alone.answer.fromText).toBe(true);
    const beside = read(new AnswerReader(recogniser()), [[chunk({ reasoning_content: `I will read a.${call}` })], [structured('s1', 'write_file', '{}')]]);
    expect(beside.answer.toolCalls.map((c) => c.id)).toEqual(['s1']);
    expect(beside.answer.fromText).toBe(false);
  });

  it('on a cancel or failure, what was seen is the text shown, not the text held back', () => {
    const reader = new AnswerReader(recogniser());
    reader.push([chunk({ reasoning_content: 'r' }), content('Sure. <tool_call>{"name": "read_')]);
    expect(reader.hasOutput).toBe(true);
    expect(reader.seen()).toMatchObject({ text: 'Sure. ', reasoning: 'r', toolCalls: [], finishReason: null });
    expect(new AnswerReader().hasOutput).toBe(false);
  });

  it('keeps the first error reported in the stream', () => {
    const reader = new AnswerReader();
    expect(reader.error).toBeUndefined();
    const events = reader.push([content('a'), { kind: 'error', error: { message: 'first' } }, { kind: 'error', error: { message: 'second' } }]);
    expect(events.map((e) => e.type)).toEqual(['text', 'error', 'error']);
    expect(reader.error).toEqual({ message: 'first' });
  });

  it('flushes a think tag cut by the stream’s end as text, through the screen', () => {
    const r = read(new AnswerReader(recogniser()), [[content('Done <thi')]]);
    expect(r.live + r.atEnd).toBe('Done <thi');
    expect(r.answer.text).toBe('Done <thi');
  });
});
