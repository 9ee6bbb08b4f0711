/**
 * Tool calls written as text, in the shapes local models produce (Qwen2.5/Hermes `<tool_call>`
 * JSON, Qwen3-Coder `<function=…>` XML, Qwen3 via Ollama bare JSON, Llama 3.x `parameters`),
 * and the streaming hold-back decision. Shapes from the issues cited in `src/context/text-tool-calls.ts`.
 */
import { describe, expect, it } from 'vitest';
import { mayBeTextToolCall, parseTextToolCalls } from '../../src/context/text-tool-calls.js';

const offered = new Set([
  'read_file',
  'write_file',
  'edit_file',
  'list_directory',
  'search_files',
  'run_command',
  'get_current_weather',
  'square_the_number',
  'get_current_traffic',
]);
const parse = (text: string) => parseTextToolCalls(text, offered);

describe('parseTextToolCalls: recognised forms', () => {
  it('Qwen2.5 / Hermes: one <tool_call> with JSON inside', () => {
    const text = '<tool_call>\n{"name": "get_current_weather", "arguments": {"location": "Paris, France", "unit": "celsius"}}\n</tool_call>';
    expect(parse(text)).toEqual([{ name: 'get_current_weather', arguments: '{"location":"Paris, France","unit":"celsius"}' }]);
  });

  it('Qwen2.5: several <tool_call> blocks, in order', () => {
    const text =
      '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/a.ts"}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/b.ts"}}\n</tool_call>\n';
    expect(parse(text)?.map((c) => JSON.parse(c.arguments).path)).toEqual(['src/a.ts', 'src/b.ts']);
  });

  it('arguments as a JSON string, or under "parameters", or absent', () => {
    expect(parse('<tool_call>{"name":"read_file","arguments":"{\\"path\\":\\"a.txt\\"}"}</tool_call>')).toEqual([
      { name: 'read_file', arguments: '{"path":"a.txt"}' },
    ]);
    expect(parse('<tool_call>{"name":"read_file","parameters":{"path":"a.txt"}}</tool_call>')).toEqual([{ name: 'read_file', arguments: '{"path":"a.txt"}' }]);
    expect(parse('<tool_call>{"name":"list_directory"}</tool_call>')).toEqual([{ name: 'list_directory', arguments: '{}' }]);
    expect(parse('{"name":"list_directory","arguments":""}')).toEqual([{ name: 'list_directory', arguments: '{}' }]);
  });

  it('Qwen3-Coder XML inside <tool_call> (vLLM without --tool-call-parser, vllm#21571): numbers become numbers', () => {
    const text = '<tool_call>\n<function=square_the_number>\n<parameter=input_num>\n1024\n</parameter>\n</function>\n</tool_call>';
    expect(parse(text)).toEqual([{ name: 'square_the_number', arguments: '{"input_num":1024}' }]);
  });

  it('Qwen XML: a parameter named __proto__ stays a parameter (found by the round-trip property)', () => {
    const text = '<function=read_file>\n<parameter=__proto__>\nfalse\n</parameter>\n</function>';
    expect(parse(text)).toEqual([{ name: 'read_file', arguments: '{"__proto__":false}' }]);
  });

  it('Qwen XML: bare <function=…>, several parameters, multi-line code kept verbatim, JSON values parsed', () => {
    const code = 'export function f(a: number): string {\n  return `<div>${a}</div>`;\n}\n';
    const text =
      `<function=write_file>\n<parameter=path>\nsrc/f.ts\n</parameter>\n<parameter=content>\n${code}\n</parameter>\n</function>\n` +
      '<function=run_command>\n<parameter=command>\nnpm test\n</parameter>\n<parameter=timeout_ms>\n60000\n</parameter>\n' +
      '<parameter=env>\n{"CI": true}\n</parameter>\n</function>';
    const calls = parse(text);
    expect(calls?.map((c) => c.name)).toEqual(['write_file', 'run_command']);
    expect(JSON.parse(calls?.[0]?.arguments ?? '')).toEqual({ path: 'src/f.ts', content: code });
    expect(JSON.parse(calls?.[1]?.arguments ?? '')).toEqual({ command: 'npm test', timeout_ms: 60000, env: { CI: true } });
  });

  it('Qwen XML with schemas: a string parameter that looks like a number stays a string', () => {
    const text = '<function=write_file>\n<parameter=path>\nn.txt\n</parameter>\n<parameter=content>\n42\n</parameter>\n</function>';
    expect(JSON.parse(parse(text)?.[0]?.arguments ?? '').content).toBe(42);
    const schemas = new Map([['write_file', { path: { type: 'string' }, content: { type: 'string' } }]]);
    expect(JSON.parse(parseTextToolCalls(text, offered, schemas)?.[0]?.arguments ?? '').content).toBe('42');
  });

  it('Qwen3 through Ollama: a bare JSON object (ollama#11185)', () => {
    expect(parse('{"name": "get_current_weather", "arguments": {"location": "Tokyo"}}')).toEqual([
      { name: 'get_current_weather', arguments: '{"location":"Tokyo"}' },
    ]);
  });

  it('Llama 3.1 / 3.2 JSON tool calling: "parameters", and the {"type":"function","function":{…}} wrapper (vllm#11786)', () => {
    expect(parse('{"name": "get_current_weather", "parameters": {"location": "San Francisco, CA"}}')).toEqual([
      { name: 'get_current_weather', arguments: '{"location":"San Francisco, CA"}' },
    ]);
    expect(parse('{"type": "function", "function": {"name": "get_current_traffic", "parameters": {"location": "Sydney"}}}')).toEqual([
      { name: 'get_current_traffic', arguments: '{"location":"Sydney"}' },
    ]);
    expect(parse('{"type": "function", "name": "get_current_traffic", "parameters": {"location": "Sydney"}}')).toEqual([
      { name: 'get_current_traffic', arguments: '{"location":"Sydney"}' },
    ]);
  });

  it('a JSON array of calls, JSON objects one per line, and a ```json fence around any form', () => {
    const two = [
      { name: 'read_file', arguments: '{"path":"a"}' },
      { name: 'read_file', arguments: '{"path":"b"}' },
    ];
    expect(parse('[{"name":"read_file","arguments":{"path":"a"}},{"name":"read_file","arguments":{"path":"b"}}]')).toEqual(two);
    expect(parse('{"name":"read_file","arguments":{"path":"a"}}\n{"name":"read_file","arguments":{"path":"b"}}')).toEqual(two);
    expect(parse('```json\n{"name": "read_file", "arguments": {"path": "a"}}\n```')).toEqual([two[0]]);
    expect(parse('\n```\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>\n```\n')).toEqual([two[0]]);
  });

  it('a last closing tag cut off by the stream end still counts', () => {
    expect(parse('<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n')).toEqual([{ name: 'read_file', arguments: '{"path":"a"}' }]);
  });
});

describe('parseTextToolCalls: shown as text', () => {
  it.each([
    ['prose before the call', 'Sure! <tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>'],
    ['prose after the call', '<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call> Done.'],
    ['an unknown tool', '<tool_call>{"name":"delete_everything","arguments":{}}</tool_call>'],
    ['one of two calls unknown', '[{"name":"read_file","arguments":{}},{"name":"nope","arguments":{}}]'],
    ['malformed JSON', '<tool_call>{"name":"read_file","arguments":{"path":}}</tool_call>'],
    ['arguments not an object', '{"name":"read_file","arguments":["a"]}'],
    ['arguments string not JSON', '{"name":"read_file","arguments":"path=a"}'],
    ['a JSON answer that happens to have a name', '{"name": "read_file", "description": "Reads a file"}'],
    ['plain JSON data', '{"a": 1}'],
    ['an XML parameter never closed', '<function=read_file>\n<parameter=path>\na.txt\n</function>'],
    ['text between XML parameters', '<function=read_file>\n<parameter=path>\na\n</parameter>\nand then\n</function>'],
    ['a python fence', '```python\n{"name": "read_file", "arguments": {}}\n```'],
    ['empty text', '   '],
    ['a sentence', 'The file is read with read_file.'],
  ])('%s', (_, text) => {
    expect(parse(text)).toBeUndefined();
  });

  it('nothing is a call when no tools were offered', () => {
    expect(parseTextToolCalls('{"name":"read_file","arguments":{}}', new Set())).toBeUndefined();
  });
});

describe('mayBeTextToolCall', () => {
  it('holds every prefix of the recognised forms', () => {
    const forms = [
      '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>',
      '<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>',
      '  {"name": "read_file", "parameters": {"path": "a"}}',
      '[{"name":"read_file","arguments":{}}]',
      '{"type": "function", "function": {"name": "read_file", "parameters": {}}}',
      '```json\n{"name": "read_file", "arguments": {}}\n```',
    ];
    for (const form of forms)
      for (let i = 0; i <= form.length; i++) expect(mayBeTextToolCall(form.slice(0, i), offered), JSON.stringify(form.slice(0, i))).toBe(true);
  });

  it('lets go of ordinary answers at their first characters', () => {
    for (const text of ['Hello', 'I will read', '<div>', '<tool_callx', '{"a": 1}', '{ 1', '[1, 2]', '["a"]', '```python\n', '``x', '`code`', 'a{'])
      expect(mayBeTextToolCall(text, offered), text).toBe(false);
  });

  it('with offered names, lets go of <function= naming another tool', () => {
    expect(mayBeTextToolCall('<function=read_', offered)).toBe(true);
    expect(mayBeTextToolCall('<function=python', offered)).toBe(false);
    expect(mayBeTextToolCall('<function=python>', offered)).toBe(false);
    expect(mayBeTextToolCall('<function=python')).toBe(true);
  });
});
