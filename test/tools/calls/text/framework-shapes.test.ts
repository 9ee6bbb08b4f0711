/**
 * The shapes of issue 44's second corpus (small and local models through agent frameworks): ReAct,
 * `tool_name`/`tool_arguments`, wrappers with one brace too many, Llama 3.2's `;`-joined calls,
 * calls followed by prose, openers and closers missing or misplaced, DSML, Gemma's `call:NAME(…)`;
 * and what must not run: a duplicate keyword, a placeholder, an example, a call in a code block
 * that prose follows. Each call is carried out only when its name is offered and it is unambiguous.
 */
import { describe, expect, it } from 'vitest';
import { CALL_FORMATS, formatForTemplate } from '../../../../src/tools/calls/text/formats/index.js';
import { readTextCalls } from '../../../../src/tools/calls/text/read-text-calls.js';
import { textCallReader } from '../../../../src/tools/calls/text/text-calls.js';
import type { ChatToolDefinition } from '../../../../src/tools/tool.js';

const tools = new Map<string, Record<string, unknown>>([
  ['get_weather', { location: { type: 'string' }, unit: { type: 'string' } }],
  ['search', { query: { type: 'string' } }],
  ['read_file', { filePath: { type: 'string' } }],
  ['grep', { pattern: { type: 'string' } }],
  ['ChaFod', { TheFod: { type: 'string' } }],
  ['list_models', {}],
]);
const definitions: ChatToolDefinition[] = [...tools].map(([name, properties]) => ({
  type: 'function',
  function: { name, description: '', parameters: { type: 'object', properties } as ChatToolDefinition['function']['parameters'] },
}));
const calls = (text: string, reasoning = false) =>
  readTextCalls(text, tools, { reasoning }).calls.map((c) => ({
    name: c.name,
    args: JSON.parse(c.arguments) as unknown,
    ...(c.problem ? { problem: c.problem } : {}),
  }));
const weather = { name: 'get_weather', args: { location: 'Paris' } };

describe('formats of agent frameworks and small models, carried out', () => {
  it.each([
    ['ReAct', 'Thought: I need the weather.\nAction: get_weather\nAction Input: {"location": "Paris"}'],
    ['ReAct, then a sentence', 'Action: get_weather\nAction Input: {"location": "Paris"}\nI will wait for the result.'],
    ['ReAct with an invented observation', 'Thought: weather\nAction: get_weather\nAction Input: {"location": "Paris"}\nObservation: sunny'],
    ['smolagents Action with an envelope', 'Action:\n{\n  "name": "get_weather",\n  "arguments": {"location": "Paris"}\n}'],
    ['tool_name / tool_arguments', '{"tool_name": "get_weather", "tool_arguments": {"location": "Paris"}}'],
    ['<response> with one brace too many', '<response>{"name": "get_weather", "arguments": {"location": "Paris"}}}</response>'],
    ['<tools> wrapper', '<tools>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tools>'],
    ['<function_call> wrapper', '<function_call>{"name": "get_weather", "arguments": {"location": "Paris"}}</function_call>'],
    ['<tool_call> without its closer, arguments beside the name', '<tool_call>\n{"name": "get_weather", "location": "Paris"}'],
    ['Gemma call:NAME(key: value)', 'call:get_weather(location: "Paris")'],
    ['Gemma call:NAME(…) in its tokens', '<|tool_call>call:get_weather(location: "Paris")<tool_call|>'],
    [
      'DSML after the reasoning',
      '\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="location" string="true">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>',
    ],
    [
      'DSML, ASCII bars, no wrapper',
      '<|DSML|invoke name="get_weather">\n<|DSML|parameter name="location" string="true">Paris</|DSML|parameter>\n</|DSML|invoke>',
    ],
  ])('%s', (_, text) => {
    expect(calls(text)).toEqual([weather]);
  });

  it('DSML string="false" is a JSON value; one that is none is refused, never guessed', () => {
    const dsml = (v: string) => `<｜DSML｜invoke name="search">\n<｜DSML｜parameter name="query" string="false">${v}</｜DSML｜parameter>\n</｜DSML｜invoke>`;
    expect(calls(dsml('["a"]'))).toEqual([{ name: 'search', args: { query: ['a'] } }]);
    expect(calls(dsml('not json'))[0]?.problem).toMatch(/string="false" but is no JSON value/);
  });

  it("Llama 3.2's calls joined by `;`, the first one too", () => {
    const text = '; {"name": "get_weather", "parameters": {"location": "Paris"}}; {"name": "search", "parameters": {"query": "rain"}}';
    expect(calls(text)).toEqual([weather, { name: 'search', args: { query: 'rain' } }]);
  });

  it('two Python-style calls, then a sentence', () => {
    const text = 'get_weather(location="Paris")\nsearch(query="rain in Paris")\nI will combine both results for you.';
    expect(calls(text)).toEqual([weather, { name: 'search', args: { query: 'rain in Paris' } }]);
    // Not offered: prose.
    expect(calls('delete_all(force=True)\nsearch(query="x")\nDone.')).toEqual([]);
  });

  it('the first call without its opener, the second with one: both', () => {
    const text =
      '{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "search", "arguments": {"query": "rain"}}\n</tool_call>';
    expect(calls(text)).toEqual([weather, { name: 'search', args: { query: 'rain' } }]);
  });

  it('a second call opened with </tool_call>: run, not dropped', () => {
    const text =
      '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>\n</tool_call>\n{"name": "search", "arguments": {"query": "rain"}}\n</tool_call>';
    expect(calls(text)).toEqual([weather, { name: 'search', args: { query: 'rain' } }]);
  });

  it('a surplus brace is tolerated only where the call is alone', () => {
    expect(calls('<tool_call>{"name": "search", "arguments": {"query": "a"}}}, {"name": "search", "arguments": {"query": "b"}}</tool_call>')).toEqual([]);
  });

  it('in reasoning, when the answer has none: the tail of the reasoning, a fenced call to an offered tool', () => {
    expect(calls('The user wants Paris.\n\n```json\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n```', true)).toEqual([weather]);
  });
});

describe('values never guessed, calls only shown never run', () => {
  it('a duplicate keyword with different values is refused naming both; the same value twice is one', () => {
    expect(calls('ChaFod(TheFod="GREENS", TheFod="PIZZA")')[0]?.problem).toBe(
      'the argument "TheFod" is given twice, as "GREENS" and as "PIZZA"; give it once, with the value meant',
    );
    expect(calls('ChaFod(TheFod="PIZZA", TheFod="PIZZA")')).toEqual([{ name: 'ChaFod', args: { TheFod: 'PIZZA' } }]);
    expect(
      calls('<tool_call>\n<function=grep>\n<parameter=pattern>a</parameter>\n<parameter=pattern>b</parameter>\n</function>\n</tool_call>')[0]?.problem,
    ).toMatch(/"pattern" is given twice, as "a" and as "b"/);
  });

  it.each([['<your_pattern>'], ['<path>'], ['YOUR_API_KEY'], ['...']])('a placeholder copied from an example (%s) is refused, naming it', (value) => {
    const read = textCallReader(definitions).read(`<tool_call>{"name": "grep", "arguments": {"pattern": ${JSON.stringify(value)}}}</tool_call>`);
    expect(read.calls[0]?.refusal).toBe(
      `the value ${JSON.stringify(value)} of "pattern" is a placeholder copied from an example, not a value; write the real "pattern"`,
    );
  });

  it('real values that look alike are no placeholders', () => {
    for (const value of ['/path/to/the/file.md', '<div>', 'a...b', 'your_name'])
      expect(
        textCallReader(definitions).read(`<tool_call>{"name": "grep", "arguments": {"pattern": ${JSON.stringify(value)}}}</tool_call>`).calls[0]?.refusal,
      ).toBeUndefined();
  });

  it('a ReAct call whose answer ends at `Action Input:` is cut, never run with no arguments (the property found it)', () => {
    // fast-check's counterexample: two calls in the ReAct form, the answer cut just after the second label.
    const read = textCallReader(definitions).read('Action: search\nAction Input: {"query": "a"}\nAction: search\nAction Input:');
    expect(read.calls.map((c) => [c.arguments, c.refusal])).toEqual([
      ['{"query": "a"}', undefined],
      ['{}', 'the answer stopped inside the call, so its arguments are incomplete'],
    ]);
    expect(textCallReader(definitions).read('Action: search\nAction Input: \n  ').calls[0]?.refusal).toMatch(/stopped inside the call/);
    // An empty input that other text follows is the model's own: no arguments.
    expect(calls('Action: search\nAction Input:\nObservation: none')).toEqual([{ name: 'search', args: {} }]);
    // A tool that takes no input ends its call there (a server stops at the Observation after it): it runs.
    expect(calls('Action: list_models\nAction Input:')).toEqual([{ name: 'list_models', args: {} }]);
  });

  it('an envelope the answer ends in before its arguments key is cut, never run with no arguments (the property found it)', () => {
    // fast-check's counterexamples: the second of two Hermes calls cut after its name; with its keys beside the name, cut after the first.
    const read = textCallReader(definitions).read('<tool_call>\n{"name":"search","arguments":{"query":"a"}}\n</tool_call>\n<tool_call>\n{"name":"search"');
    expect(read.calls.map((c) => [c.arguments, c.refusal])).toEqual([
      ['{"query":"a"}', undefined],
      ['{}', 'the answer stopped inside the call, so its arguments are incomplete'],
    ]);
    expect(textCallReader(definitions).read('<tool_call>\n{"name": "get_weather", "location": "Paris",').calls[0]?.refusal).toMatch(/stopped inside/);
    // Its arguments whole, a brace the model left out at the end is no cut; nor is an envelope its closing tag follows.
    expect(calls('<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}')).toEqual([weather]);
    expect(calls('<tool_call>\n{"name": "search"\n</tool_call>')).toEqual([{ name: 'search', args: {} }]);
  });

  it('a DSML invoke the answer ends in before its closing tag is cut: more parameters may have followed (the property found it)', () => {
    const read = textCallReader(definitions).read(
      '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="location" string="true">Paris</｜DSML｜parameter>',
    );
    expect(read.calls[0]?.refusal).toBe('the answer stopped inside the call, so its arguments are incomplete');
  });

  it('a ReAct input on the line below its label is that input, not an empty one', () => {
    expect(calls('Action: get_weather\nAction Input:\n{"location": "Paris"}\nObservation: sunny')).toEqual([weather]);
    expect(calls('Action: search\nAction Input: \n"rain"')).toEqual([{ name: 'search', args: { query: 'rain' } }]);
  });

  it('a call the answer stopped inside is refused in those words, not as a length limit', () => {
    const read = textCallReader(definitions).read('<tool_call>{"name": "search", "arguments": {"query": "ra');
    expect(read.calls[0]?.refusal).toMatch(/the answer stopped inside the call/);
    expect(read.calls[0]?.refusal).not.toMatch(/length limit/);
  });

  it.each([
    ['introduced as an example', 'You can call it like this:\n<tool_call>{"name": "search", "arguments": {"query": "x"}}</tool_call>'],
    ['introduced as not a call', 'This is not a tool call:\n<tool_call>{"name": "search", "arguments": {"query": "x"}}</tool_call>'],
    [
      'in a code block that prose follows',
      'Here is the parser input:\n```\n<tool_call>{"name": "search", "arguments": {"query": "x"}}</tool_call>\n```\nIt yields one call.',
    ],
    ['a ReAct line inside a sentence', 'The next Action: get_weather was planned.'],
    ['call: inside a word', 'a syscall:get_weather(location: "Paris")'],
    ['a <tools> list of definitions', '<tools>[{"type": "function", "function": {"name": "search", "description": "d", "parameters": {}}}]</tools>'],
    ['<response> naming no offered tool', '<response>{"name": "delete_all", "arguments": {}}</response>'],
  ])('not run: %s', (_, text) => {
    expect(readTextCalls(text, tools).calls).toEqual([]);
  });
});

describe('the family a chat template names', () => {
  it('is picked from the template text, the most specific first', () => {
    expect(formatForTemplate('{% for tool in tools %}<tool_call>\n<function={{ name }}>\n<parameter=')?.id).toBe('qwen3-coder');
    expect(formatForTemplate('<tool_call>{{ name }}\n<arg_key>{{ k }}</arg_key>')?.id).toBe('glm-4.5');
    expect(formatForTemplate('<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>')?.id).toBe('hermes');
    expect(formatForTemplate('<｜DSML｜tool_calls>')?.id).toBe('dsml');
    expect(formatForTemplate('{{ "[TOOL_CALLS]" }}')?.id).toBe('mistral');
    expect(formatForTemplate('{{ bos_token }}{{ message.content }}')).toBeUndefined();
  });

  it("its reader goes first: a Harmony template's call is read though a <tool_call> example precedes it", () => {
    const text =
      'Not <tool_call>{"name": "search", "arguments": {"query": "x"}}</tool_call> then.\n<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location": "Paris"}<|call|>';
    const byHarmony = textCallReader(definitions, false, '<|start|>assistant<|channel|>commentary').read(text);
    expect(byHarmony.calls.map((c) => c.name)).toEqual(['get_weather']);
    // Without the template, the first marker read wins.
    expect(
      textCallReader(definitions)
        .read(text)
        .calls.map((c) => c.name),
    ).toEqual(['search', 'get_weather']);
  });

  it('every format of the map names the server code it was read from', () => {
    for (const format of CALL_FORMATS) for (const server of format.servers) expect(server.file.length > 0 && server.commit.length > 0, format.id).toBe(true);
  });
});
