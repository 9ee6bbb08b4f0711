/**
 * The reader of calls written as text, format by format, in the shapes the real-call corpus
 * (test/fixtures/wild-calls/) and the parsers of llama.cpp, vLLM and Ollama show; what is prose
 * stays prose; bounds.
 */
import { describe, expect, it } from 'vitest';
import { MAX_CALLS_PER_ANSWER, readTextCalls } from '../../../../src/tools/calls/text/read-text-calls.js';

const tools = new Map<string, Record<string, unknown>>([
  ['read_file', { path: { type: 'string' }, limit: { type: 'integer' } }],
  ['write_file', { path: { type: 'string' }, content: { type: 'string' } }],
  ['list_directory', {}],
  ['get_weather', { city: { type: 'string' }, days: { type: 'array' } }],
]);
/** The calls read, with their arguments as values (or the text when it is not JSON), and the prose. */
function read(text: string, options?: { reasoning?: boolean }) {
  const r = readTextCalls(text, tools, options);
  const value = (args: string) => {
    try {
      return JSON.parse(args) as unknown;
    } catch {
      return args;
    }
  };
  return { calls: r.calls.map((c) => ({ name: c.name, args: value(c.arguments), ...(c.cut ? { cut: true } : {}) })), prose: r.prose };
}
const one = (name: string, args: unknown) => [{ name, args }];

describe('readTextCalls: every format, anywhere in the answer', () => {
  it.each([
    ['Hermes', '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>'],
    ['Hermes, arguments as JSON text', '<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"a\\"}"}</tool_call>'],
    ['Hermes, "args"', '<tool_call>{"name": "read_file", "args": {"path": "a"}}</tool_call>'],
    ['Qwen3-Coder XML', '<tool_call>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>'],
    ['Qwen3-Coder XML, closing tags missing at the end', '<function=read_file>\n<parameter=path>\na\n'],
    ['Qwen3-Coder XML, no opening <tool_call>', '<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>'],
    ['Llama 3.1 <function=…> JSON', '<function=read_file>{"path": "a"}</function>'],
    ['Llama 3.x <|python_tag|>', '<|python_tag|>{"name": "read_file", "parameters": {"path": "a"}}<|eom_id|>'],
    ['Llama 4 <|python_start|>', '<|python_start|>{"name": "read_file", "parameters": {"path": "a"}}<|python_end|>'],
    ['Mistral [ARGS]', '[TOOL_CALLS]read_file[ARGS]{"path": "a"}'],
    ['Mistral [CALL_ID]', '[TOOL_CALLS]read_file[CALL_ID]abc123def[ARGS]{"path": "a"}'],
    ['Mistral legacy list', '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a"}, "id": "abc123def"}]'],
    ['Mistral legacy, Python quotes', "[TOOL_CALLS][{'name': 'read_file', 'arguments': {'path': 'a'}}]"],
    ['Harmony with its tokens', '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path":"a"}<|call|>'],
    ['Harmony without functions.', '<|channel|>commentary to=read_file <|constrain|>json<|message|>{"path":"a"}'],
    ['Harmony, tokens stripped', 'commentary to=functions.read_file json{"path":"a"}'],
    ['Harmony, recipient before the channel', '<|start|>assistant to=functions.read_file<|channel|>commentary json<|message|>{"path":"a"}<|call|>'],
    ['pythonic list and end-of-turn token', "[read_file(path='a')]<|eot_id|>"],
    ['pythonic without brackets', 'read_file(path="a")'],
    ['pythonic in LFM2 markers', '<|tool_call_start|>[read_file(path="a")]<|tool_call_end|>'],
    ['pythonic in a tool_code fence', "```tool_code\nread_file(path='a')\n```"],
    [
      'DeepSeek R1',
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{"path": "a"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    ],
    ['DeepSeek V3.1', '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "a"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'],
    ['DeepSeek, ASCII tokens', '<|tool_calls_begin|><|tool_call_begin|>read_file<|tool_sep|>{"path": "a"}<|tool_call_end|><|tool_calls_end|>'],
    [
      'Kimi K2',
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{"path": "a"}<|tool_call_end|>' +
        '<|tool_calls_section_end|>',
    ],
    ['GLM', '<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a</arg_value>\n</tool_call>'],
    ['Granite', '<|tool_call|>[{"name": "read_file", "arguments": {"path": "a"}}]'],
    ['Nemotron', '<TOOLCALL>[{"name": "read_file", "arguments": {"path": "a"}}]</TOOLCALL>'],
    ['MiniMax', '<minimax:tool_call>\n<invoke name="read_file">\n<parameter name="path">a</parameter>\n</invoke>\n</minimax:tool_call>'],
    ['Gemma 4', '<|tool_call>call:read_file{path:<|"|>a<|"|>}<tool_call|>'],
    ['Command A', '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "read_file", "parameters": {"path": "a"}}]<|END_ACTION|>'],
    ['bare JSON', '{"name": "read_file", "arguments": {"path": "a"}}'],
    ['bare JSON in a fence', '```json\n{"name": "read_file", "arguments": {"path": "a"}}\n```'],
    ['the OpenAI call shape', '{"type": "function", "function": {"name": "read_file", "arguments": {"path": "a"}}}'],
    ['{"tool_calls": […]}', '{"tool_calls": [{"name": "read_file", "arguments": {"path": "a"}, "id": "1"}]}'],
    ['the name as the key', '{"read_file": {"path": "a"}}'],
  ])('%s', (_, text) => {
    expect(read(text)).toEqual({ calls: one('read_file', { path: 'a' }), prose: '' });
  });

  it.each([
    ['Hermes', '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>'],
    ['Qwen3-Coder XML', '<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>'],
    ['Mistral', '[TOOL_CALLS]read_file[ARGS]{"path": "a"}'],
    ['DeepSeek', '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "a"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'],
  ])('%s after prose: the prose is the answer, the call is read', (_, call) => {
    expect(read(`I'll read it first.\n\n${call}`)).toEqual({ calls: one('read_file', { path: 'a' }), prose: "I'll read it first." });
  });

  it('what follows a call is not the answer (a result the model invented)', () => {
    const r = read('Checking.\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>\nThe file contains three functions.');
    expect(r).toEqual({ calls: one('read_file', { path: 'a' }), prose: 'Checking.' });
  });

  it('a code fence opened for the call is not part of the prose', () => {
    expect(read('Here:\n```xml\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>\n```').prose).toBe('Here:');
  });
});

describe('readTextCalls: glued calls split', () => {
  const two = [
    { name: 'read_file', args: { path: 'a' } },
    { name: 'read_file', args: { path: 'b' } },
  ];
  it.each([
    ['`; `-joined JSON (Llama 3.x)', '{"name": "read_file", "parameters": {"path": "a"}}; {"name": "read_file", "parameters": {"path": "b"}}'],
    ['JSON objects back to back', '{"name": "read_file", "arguments": {"path": "a"}}{"name": "read_file", "arguments": {"path": "b"}}'],
    ['JSON objects one per line', '{"name": "read_file", "arguments": {"path": "a"}}\n{"name": "read_file", "arguments": {"path": "b"}}'],
    ['a JSON array', '[{"name": "read_file", "arguments": {"path": "a"}}, {"name": "read_file", "arguments": {"path": "b"}}]'],
    [
      'a </tool_call> missing between two calls',
      '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}\n<tool_call>{"name": "read_file", "arguments": {"path": "b"}}</tool_call>',
    ],
    [
      'an array in one <tool_call>',
      '<tool_call>[{"name": "read_file", "arguments": {"path": "a"}}, {"name": "read_file", "arguments": {"path": "b"}}]</tool_call>',
    ],
    [
      'parallel XML blocks',
      '<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n<function=read_file>\n<parameter=path>\nb\n</parameter>\n</function>',
    ],
    ['two [TOOL_CALLS]', '[TOOL_CALLS]read_file[ARGS]{"path": "a"}[TOOL_CALLS]read_file[ARGS]{"path": "b"}'],
    ['two pythonic calls', "[read_file(path='a'), read_file(path='b')]"],
    [
      'two GLM calls',
      '<tool_call>read_file<arg_key>path</arg_key><arg_value>a</arg_value>' +
        '</tool_call><tool_call>read_file<arg_key>path</arg_key><arg_value>b</arg_value></tool_call>',
    ],
  ])('%s', (_, text) => {
    expect(read(text).calls).toEqual(two);
  });

  it('one `]` for a missing `}` in a list, one `}` too many after a call', () => {
    expect(read('[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a"}}, {"name": "read_file", "arguments": {"path": "b"}]').calls).toEqual(two);
    expect(read('<tool_call>{"name": "list_directory", "arguments": {}}}').calls).toEqual(one('list_directory', {}));
  });
});

describe('readTextCalls: values as written', () => {
  it('JSON arguments go on as the exact text written (invalid escapes, duplicate keys: the argument check decides)', () => {
    const raw = '{"path": "c:\\Users\\me\\notes.txt", "path": "x"}';
    expect(readTextCalls(`<tool_call>{"name": "read_file", "arguments": ${raw}}</tool_call>`, tools).calls[0]?.arguments).toBe(raw);
    expect(readTextCalls(`[TOOL_CALLS]read_file[ARGS]${raw}`, tools).calls[0]?.arguments).toBe(raw);
  });

  it('XML values: a string parameter stays the string (file contents that look like JSON), typed ones are read, one line break each side dropped', () => {
    const text = '<function=write_file>\n<parameter=path>\n1.50\n</parameter>\n<parameter=content>\n{"a": 1}\n\n</parameter>\n</function>';
    expect(read(text).calls[0]?.args).toEqual({ path: '1.50', content: '{"a": 1}\n' });
    expect(read('<function=read_file>\n<parameter=limit>\n20\n</parameter>\n<parameter=path>\n  x.ts\n</parameter>\n</function>').calls[0]?.args).toEqual({
      limit: 20,
      path: '  x.ts',
    });
    expect(read("<tool_call><function=get_weather><parameter=days>['mon', 'tue']</parameter></function></tool_call>").calls[0]?.args).toEqual({
      days: ['mon', 'tue'],
    });
  });

  it('XML values without a schema (another name for a parameter, a tool named loosely) keep text that is no JSON spelling of its number', () => {
    // `text` is write_file's other name for `content`: a string parameter would get `1.5` or `1000` back from a number.
    const args = (text: string) => read(text).calls[0]?.args;
    expect(args('<function=write_file>\n<parameter=path>\nv.txt\n</parameter>\n<parameter=text>\n1.50\n</parameter>\n</function>')).toEqual({
      path: 'v.txt',
      text: '1.50',
    });
    expect(args('<function=Write_File>\n<parameter=content>\n1e3\n</parameter>\n</function>')).toEqual({ content: '1e3' });
    expect(args('<tool_call>write_file\n<arg_key>file_path</arg_key>\n<arg_value>-0</arg_value>\n</tool_call>')).toEqual({ file_path: '-0' });
    // Numbers, booleans and lists spelled as JSON are still read as such (an MCP server's unknown parameter).
    expect(args('<function=get_weather>\n<parameter=count>\n42\n</parameter>\n<parameter=on>\ntrue\n</parameter>\n</function>')).toEqual({
      count: 42,
      on: true,
    });
  });

  it('Python literals keep their meaning: escapes, True/None, unknown escapes keep the backslash', () => {
    expect(read("[get_weather(city='O\\'Hare\\n', days=[1, 2.5, True, None])]").calls[0]?.args).toEqual({ city: "O'Hare\n", days: [1, 2.5, true, null] });
    expect(read("[get_weather(city='a\\d')]").calls[0]?.args).toEqual({ city: 'a\\d' });
    // Octal escapes, up to three digits, as Python reads them.
    expect(read("[get_weather(city='a\\012b\\0c\\1019')]").calls[0]?.args).toEqual({ city: 'a\nb\0cA9' });
  });

  it('an envelope with its keys and name unquoted is read; its arguments go on as written, for the repair', () => {
    expect(readTextCalls('<tool_call>{name: read_file, arguments: {path: a}}</tool_call>', tools).calls).toEqual([
      { name: 'read_file', arguments: '{path: a}', format: 'hermes' },
    ]);
  });

  it('an XML value nested past the depth bound stays text (reading never throws)', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const calls = readTextCalls(`<function=get_weather>\n<parameter=days>\n${deep}\n</parameter>\n</function>`, tools).calls;
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ days: deep });
    const glm = readTextCalls(`<tool_call>get_weather\n<arg_key>other</arg_key>\n<arg_value>${deep}</arg_value>\n</tool_call>`, tools).calls;
    expect(JSON.parse(glm[0]!.arguments)).toEqual({ other: deep });
  });

  it('a parameter named __proto__ stays a parameter', () => {
    expect(readTextCalls('<function=read_file>\n<parameter=__proto__>\nfalse\n</parameter>\n</function>', tools).calls[0]?.arguments).toBe(
      '{"__proto__":false}',
    );
  });
});

describe('readTextCalls: cut off, refused later', () => {
  it.each([
    ['a JSON call ending inside its arguments', '<tool_call>{"name": "read_file", "arguments": {"path": "a'],
    ['Mistral ending inside its arguments', '[TOOL_CALLS]read_file[ARGS]{"path": '],
    ['a pythonic call ending inside a string', "[read_file(path='a"],
    ['a GLM value the answer ends in', '<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a'],
    ['Harmony ending before its arguments', '<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>'],
  ])('%s is a call marked cut', (_, text) => {
    expect(read(text).calls).toEqual([expect.objectContaining({ name: 'read_file', cut: true })]);
  });

  it('a call naming a tool that is not offered is read (the runner refuses it with the list of tools)', () => {
    expect(read('<tool_call>{"name": "delete_all", "arguments": {}}</tool_call>').calls).toEqual(one('delete_all', {}));
  });

  it('positional pythonic arguments make a call to refuse', () => {
    expect(readTextCalls("[read_file('a')]", tools).calls[0]?.problem).toMatch(/by name/);
  });
});

describe('readTextCalls: prose stays prose', () => {
  it.each([
    ['a sentence about a tool', 'You could call read_file on it.'],
    ['a call shown as an example in prose', 'For example:\n```json\n{"name": "read_file", "arguments": {"path": "a"}}\n```\nwould read it.'],
    ['bare JSON inside prose', 'This is not a tool call:\n{"name": "read_file", "arguments": {"path": "a"}}'],
    ['ordinary JSON data', '{"answer": 42}'],
    ['JSON with a name that is no call', '{"name": "read_file", "description": "Reads a file"}'],
    ['a JSON object with only a name that is no tool', '{"name": "Alice"}'],
    ['code calling a function that is no tool', 'print(x)'],
    ['a marker mentioned in prose', 'Calls go inside <tool_call> tags.'],
    ['tags without a call', '<tool_call>nah</tool_call>'],
    ['a marker with nothing after it', 'It starts with <｜tool▁calls▁begin｜> and ends with'],
    ['a tool reply the model invented, alone', '<|start|>functions.read_file to=assistant<|message|>{"ok": true}<|end|>'],
  ])('%s', (_, text) => {
    expect(read(text)).toEqual({ calls: [], prose: text });
  });

  it('nothing is a call when no tools are offered', () => {
    expect(readTextCalls('<tool_call>{"name": "read_file", "arguments": {}}</tool_call>', new Map()).calls).toEqual([]);
  });

  it('in reasoning, a marker makes a call anywhere, a bare one only as the tail and only of an offered tool', () => {
    const reasoning = { reasoning: true };
    expect(read('Thinking. <tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>', reasoning).calls).toEqual(
      one('read_file', { path: 'a' }),
    );
    expect(read('I will read it.\n\n```json\n{"name": "read_file", "arguments": {"path": "a"}}\n```', reasoning).calls).toEqual(
      one('read_file', { path: 'a' }),
    );
    expect(read('I will read it.\n\n{"name": "read_file", "arguments": {"path": "a"}}', reasoning).calls).toEqual(one('read_file', { path: 'a' }));
    // Not the tail; a tool not offered; an example.
    expect(read('{"name": "read_file", "arguments": {"path": "a"}}\n\nThen I will answer.', reasoning).calls).toEqual([]);
    expect(read('Maybe:\n\n{"name": "delete_all", "arguments": {}}', reasoning).calls).toEqual([]);
    expect(read('The call would look like this:\n\n{"name": "read_file", "arguments": {"path": "a"}}', reasoning).calls).toEqual([]);
  });
});

describe('readTextCalls: bounds', () => {
  it(`reads at most ${MAX_CALLS_PER_ANSWER} calls of one answer`, () => {
    const text = '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>'.repeat(MAX_CALLS_PER_ANSWER * 3);
    expect(readTextCalls(text, tools).calls).toHaveLength(MAX_CALLS_PER_ANSWER);
  });

  it('arguments nested deeper than the bound are no call', () => {
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
    expect(read(`[TOOL_CALLS]read_file[ARGS]{"path": ${deep}}`).calls.every((c) => c.args !== undefined)).toBe(true);
    expect(read(`{"name": "read_file", "arguments": {"path": ${deep}}}`).calls).toEqual([]);
  });
});
