import { describe, expect, it } from 'vitest';
import { completionToItems } from '../../src/openai/completion-to-chunk.js';

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-test',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Hello there',
        reasoning_content: 'thinking hard',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
          { id: 'call_b', type: 'function', function: { name: 'write', arguments: '{}' } },
        ],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
};

function only(text: string) {
  const items = completionToItems(text);
  expect(items).toHaveLength(1);
  return items[0] as { kind: string; [k: string]: any };
}

describe('completionToItems', () => {
  it('turns a chat.completion into one chunk with content, reasoning, tool calls, finish and usage', () => {
    const item = only(JSON.stringify(completion));
    expect(item.kind).toBe('chunk');
    const chunk = item['chunk'];
    expect(chunk.id).toBe('chatcmpl-1');
    expect(chunk.object).toBe('chat.completion.chunk');
    expect(chunk.model).toBe('gpt-test');
    expect(chunk.choices).toHaveLength(1);
    const choice = chunk.choices[0];
    expect(choice.index).toBe(0);
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.delta.content).toBe('Hello there');
    expect(choice.delta.reasoning_content).toBe('thinking hard');
    expect(choice.delta.tool_calls).toEqual([
      { index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
      { index: 1, id: 'call_b', type: 'function', function: { name: 'write', arguments: '{}' } },
    ]);
    expect(chunk.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  });

  it('keeps tool-call indexes that are already there', () => {
    const body = { choices: [{ message: { tool_calls: [{ index: 5, id: 'x', function: { name: 'f', arguments: '' } }] } }] };
    const chunk = only(JSON.stringify(body))['chunk'];
    expect(chunk.choices[0].delta.tool_calls[0].index).toBe(5);
  });

  it('drops tool-call entries that are not objects instead of throwing', () => {
    const body = {
      choices: [{ message: { tool_calls: [null, 'x', { id: 'call_1', function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'tool_calls' }],
    };
    const chunk = only(JSON.stringify(body))['chunk'];
    expect(chunk.choices[0].delta.tool_calls).toEqual([{ index: 0, id: 'call_1', function: { name: 'f', arguments: '{}' } }]);
  });

  it('a plain text answer with stop and no usage', () => {
    const body = { choices: [{ message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] };
    const chunk = only(JSON.stringify(body))['chunk'];
    expect(chunk.id).toBeNull();
    expect(chunk.model).toBeNull();
    expect(chunk.usage).toBeNull();
    expect(chunk.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', delta: { content: 'ok' } });
    expect(chunk.choices[0].delta.tool_calls).toBeUndefined();
  });

  it('numbers choices by position when they have no index, skips non-objects, null finish when absent', () => {
    const body = { choices: [{ message: { content: 'a' } }, 'junk', { delta: { content: 'b' } }] };
    const chunk = only(JSON.stringify(body))['chunk'];
    expect(chunk.choices).toHaveLength(2);
    expect(chunk.choices[0]).toMatchObject({ index: 0, finish_reason: null, delta: { content: 'a' } });
    expect(chunk.choices[1].delta.content).toBe('b');
  });

  it('a body without choices gives a chunk with no choices', () => {
    const chunk = only('{"id":"x","usage":{"prompt_tokens":1}}')['chunk'];
    expect(chunk.choices).toEqual([]);
    expect(chunk.usage).toEqual({ prompt_tokens: 1 });
  });

  it('an error body becomes an error item', () => {
    const item = only('{"error":{"message":"model overloaded","type":"server_error","code":503}}');
    expect(item.kind).toBe('error');
    expect(item['error']).toEqual({ message: 'model overloaded', type: 'server_error', code: 503 });
  });

  it.each(['not json', '{"choices":', '', '[1,2]', '"text"', 'null'])('garbage %j becomes a skip item', (text) => {
    const item = only(text);
    expect(item.kind).toBe('skip');
    expect(typeof item['reason']).toBe('string');
  });
});
