/**
 * The assistant tool-call message and the tool result messages, from steps built by hand and
 * from recorded provider streams (`test/fixtures/providers/`, provenance in its README).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { completionToItems } from '../../src/openai/completion-to-chunk.js';
import { createSseDecoder, type SseItem } from '../../src/openai/sse.js';
import { ChatStreamAccumulator } from '../../src/openai/chat-stream-accumulator.js';
import { assistantToolCallMessage, toolMessageRules, toolResultMessage } from '../../src/context/tool-messages.js';
import { PROVIDER_PROFILES } from '../../src/config/provider-profiles.js';
import { PROVIDER_IDS } from '../../src/config/providers.js';

const plain = toolMessageRules(PROVIDER_PROFILES.openai);
const deepseek = toolMessageRules(PROVIDER_PROFILES.deepseek);

function replaySse(name: string) {
  const decoder = createSseDecoder();
  const items = [...decoder.push(new Uint8Array(readFileSync(new URL(`../fixtures/providers/${name}.sse`, import.meta.url)))), ...decoder.end()];
  return accumulate(items);
}

function replayChunks(name: string) {
  const lines = readFileSync(new URL(`../fixtures/providers/_chunks-only/${name}.chunks.jsonl`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  return accumulate(lines.map((line): SseItem => ({ kind: 'chunk', chunk: JSON.parse(line) })));
}

function accumulate(items: SseItem[]) {
  const acc = new ChatStreamAccumulator();
  for (const item of items) acc.push(item);
  acc.flush();
  return acc.result();
}

describe('toolMessageRules (from the provider profiles)', () => {
  it('echoes reasoning for DeepSeek only and shortens ids for Mistral only', () => {
    for (const id of PROVIDER_IDS) {
      expect(toolMessageRules(PROVIDER_PROFILES[id])).toEqual({ echoReasoning: id === 'deepseek', shortToolCallIds: id === 'mistral' });
    }
  });
});

describe('assistantToolCallMessage', () => {
  it('sends content null, not "", when the step has tool calls and no text (Bedrock, Mistral)', () => {
    const message = assistantToolCallMessage(
      { text: '', reasoning: 'thought', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }] },
      plain,
    );
    expect(message).toStrictEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
    });
  });

  it('keeps the text, the order of the calls, and normalises empty arguments to {}', () => {
    const message = assistantToolCallMessage(
      {
        text: 'Let me look.',
        reasoning: '',
        toolCalls: [
          { id: 'b', name: 'list_directory', arguments: '' },
          { id: 'a', name: 'read_file', arguments: ' \n' },
          { id: 'c', name: 'x', arguments: '{"bad' },
        ],
      },
      plain,
    );
    expect(message.content).toBe('Let me look.');
    expect(message.tool_calls?.map((c) => [c.id, c.function.arguments])).toEqual([
      ['b', '{}'],
      ['a', '{}'],
      ['c', '{"bad'],
    ]);
  });

  it('gives reasoning_content back to DeepSeek, "" when there was none, and to no one else', () => {
    const step = { text: '', reasoning: '', toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] };
    expect(assistantToolCallMessage(step, deepseek).reasoning_content).toBe('');
    expect(assistantToolCallMessage({ ...step, reasoning: 'why' }, deepseek).reasoning_content).toBe('why');
    expect('reasoning_content' in assistantToolCallMessage({ ...step, reasoning: 'why' }, plain)).toBe(false);
    expect('reasoning_content' in assistantToolCallMessage({ ...step, reasoning: 'why' }, toolMessageRules(PROVIDER_PROFILES.mistral))).toBe(false);
  });

  it('passes extra_content (Gemini 3 thought_signature) back unchanged', () => {
    const extra = { google: { thought_signature: 'EpoCCpcCAcu98PD' } };
    const message = assistantToolCallMessage(
      {
        text: '',
        reasoning: '',
        toolCalls: [
          { id: 'function-call-1', name: 'f', arguments: '{}', extra },
          { id: 'function-call-2', name: 'f', arguments: '{}' },
        ],
      },
      plain,
    );
    expect(message.tool_calls?.[0]?.extra_content).toEqual(extra);
    expect(message.tool_calls?.[1] && 'extra_content' in message.tool_calls[1]).toBe(false);
    expect(JSON.parse(JSON.stringify(message)).tool_calls[0].extra_content).toEqual(extra);
  });

  it('a non-streaming Gemini 3 answer (shape of ai.google.dev thought-signatures docs) keeps its signature through to the next request', () => {
    const body = JSON.stringify({
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            tool_calls: [
              {
                extra_content: { google: { thought_signature: '<Signature A>' } },
                function: { arguments: '{"location":"Paris"}', name: 'get_current_weather' },
                id: 'function-call-f3b9ecb3-d55f-4076-98c8-b13e9d1c0e01',
                type: 'function',
              },
              {
                function: { arguments: '{"location":"London"}', name: 'get_current_weather' },
                id: 'function-call-335673ad-913e-42d1-bbf5-387c8ab80f44',
                type: 'function',
              },
            ],
          },
        },
      ],
    });
    const message = assistantToolCallMessage(accumulate(completionToItems(body)), plain);
    expect(message.tool_calls).toEqual([
      {
        id: 'function-call-f3b9ecb3-d55f-4076-98c8-b13e9d1c0e01',
        type: 'function',
        function: { name: 'get_current_weather', arguments: '{"location":"Paris"}' },
        extra_content: { google: { thought_signature: '<Signature A>' } },
      },
      {
        id: 'function-call-335673ad-913e-42d1-bbf5-387c8ab80f44',
        type: 'function',
        function: { name: 'get_current_weather', arguments: '{"location":"London"}' },
      },
    ]);
  });

  it('an answer without tool calls keeps its text and has no tool_calls', () => {
    expect(assistantToolCallMessage({ text: '', reasoning: '', toolCalls: [] }, plain)).toStrictEqual({ role: 'assistant', content: '' });
    expect(assistantToolCallMessage({ text: 'Done.', reasoning: '', toolCalls: [] }, plain)).toStrictEqual({ role: 'assistant', content: 'Done.' });
  });

  it('DeepSeek reasoner stream → the message DeepSeek asks for (reasoning echoed, content null)', () => {
    const turn = replayChunks('deepseek__reasoner_tool_call');
    const message = assistantToolCallMessage(turn, deepseek);
    expect(message.content).toBeNull();
    expect(message.reasoning_content).toBe(turn.reasoning);
    expect(message.reasoning_content?.length).toBeGreaterThan(0);
    expect(message.tool_calls).toEqual([
      { id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', type: 'function', function: { name: 'weather', arguments: '{"location": "San Francisco"}' } },
    ]);
  });

  it('Groq parallel calls with text → text kept, both calls in stream order', () => {
    const message = assistantToolCallMessage(replaySse('groq__parallel_tool_calls_whole_in_one_chunk'), plain);
    expect(message.content).toMatch(/^I'll perform both addition and multiplic/);
    expect(message.tool_calls?.map((c) => c.id)).toEqual(['functions.add:0', 'functions.multiply:1']);
  });

  it('a call streamed without arguments (Novita Kimi via OpenRouter) goes back as {}', () => {
    const message = assistantToolCallMessage(replaySse('openrouter__novita_kimi_tool_no_arguments_key_first'), plain);
    expect(message.tool_calls?.[0]?.function).toEqual({ name: 'llm_version', arguments: '{}' });
  });
});

describe('the arguments sent back', () => {
  const sent = (args: string) =>
    assistantToolCallMessage({ text: '', reasoning: '', toolCalls: [{ id: 'c1', name: 'f', arguments: args }] }, plain).tool_calls?.[0]?.function.arguments;

  it('maps empty and blank to {} and leaves everything else alone', () => {
    expect(['', ' ', '\n\t'].map(sent)).toEqual(['{}', '{}', '{}']);
    expect(['{}', '{"a":1}', 'not json', ' {"a":1} '].map(sent)).toEqual(['{}', '{"a":1}', 'not json', ' {"a":1} ']);
  });
});

describe('toolResultMessage', () => {
  it('is a tool message whose content is always a string', () => {
    expect(toolResultMessage('c1', 'file text')).toStrictEqual({ role: 'tool', tool_call_id: 'c1', content: 'file text' });
    expect(toolResultMessage('c1', '').content).toBe('');
  });
});
