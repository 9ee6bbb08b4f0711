import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import type { TextToolCalls } from '../../src/loop/loop-input.js';
import { runModelRequest, TEXT_TOOL_CALLS_NOTICE } from '../../src/loop/model-request.js';
import { textToolCallRecogniser } from '../../src/loop/fitted-request.js';
import { createLogger } from '../../src/shared/log.js';
import { scriptedChat, type ScriptedAnswer } from '../helpers/scripted-chat.js';

const logger = createLogger({ level: 'error', write: () => undefined });
const definition = (name: string, properties: Record<string, unknown>) => ({
  type: 'function' as const,
  function: { name, description: '', parameters: { type: 'object' as const, properties, required: [] } },
});
const offered = [definition('read_file', { path: { type: 'string' } }), definition('write_file', { path: { type: 'string' }, content: { type: 'string' } })];
const recogniser = textToolCallRecogniser;

async function turn(answer: ScriptedAnswer, textToolCalls: TextToolCalls | null = recogniser(offered), controller = new AbortController()) {
  const chat = scriptedChat([answer]);
  const updates: SessionUpdate[] = [];
  const outcome = await runModelRequest({
    chat: chat.client,
    request: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    callbacks: { signal: controller.signal, send: async (batch) => void updates.push(...batch), logger },
    textToolCalls: textToolCalls ?? undefined,
  });
  const shown = updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => (u as { content: { text: string } }).content.text);
  return { outcome, shown, text: shown.join('') };
}

/** `text` cut into pieces of `size` characters, as a stream would deliver it. */
const pieces = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

describe('runModelRequest with text tool calls', () => {
  const call = '<tool_call>{"name": "read_file", "arguments": {"path": "src/a.ts"}}</tool_call>';

  it.each([1, 3, 7, 1000])('a <tool_call> naming an offered tool is not shown and becomes a call (pieces of %i)', async (size) => {
    const r = await turn({ text: pieces(call, size) });
    expect(r.shown).toEqual([]);
    expect(r.outcome.toolCalls).toEqual([{ id: '', name: 'read_file', arguments: expect.any(String), hint: expect.stringContaining('<tool_call>') }]);
    expect(JSON.parse(r.outcome.toolCalls[0]!.arguments)).toEqual({ path: 'src/a.ts' });
    expect(r.outcome.text).toBe('');
  });

  it('a Qwen XML parameter the tool declares a string stays a string, even when it looks like JSON or a number', async () => {
    const xml =
      '<tool_call>\n<function=write_file>\n<parameter=path>\n1.50\n</parameter>\n<parameter=content>\n{"a": 1}\n</parameter>\n</function>\n</tool_call>';
    const r = await turn({ text: [xml] });
    expect(JSON.parse(r.outcome.toolCalls[0]!.arguments)).toEqual({ path: '1.50', content: '{"a": 1}' });
  });

  it.each([1, 4, 1000])('prose is shown in full, once (pieces of %i)', async (size) => {
    const prose = 'Sure, here is the plan:\n1. read\n2. edit';
    const r = await turn({ text: pieces(prose, size) });
    expect(r.text).toBe(prose);
    expect(r.outcome.toolCalls).toEqual([]);
    expect(r.outcome.text).toBe(prose);
  });

  it.each([
    ['a JSON object that is not a call', '{"answer": 42, "unit": "m"}'],
    ['a bare JSON object with a name and no arguments, naming no offered tool', '{"name": "Alice", "age": 3}'],
    ['a bare JSON object with only a name that is no offered tool', '{"name": "Alice"}'],
    ['a call shown as an example inside prose', 'You could write:\n```json\n{"name": "read_file", "arguments": {"path": "a"}}\n```\nto read it.'],
    ['a marker mentioned in prose', 'The format wraps calls in <tool_call> tags, like HTML.'],
  ])('%s is shown in full, once', async (_, text) => {
    const r = await turn({ text: pieces(text, 3) });
    expect(r.text).toBe(text);
    expect(r.outcome.toolCalls).toEqual([]);
    expect(r.outcome.text).toBe(text);
  });

  it.each([
    ['a <tool_call>', '<tool_call>{"name": "delete_all", "arguments": {}}</tool_call>'],
    ['a bare envelope with its arguments', '{"name": "delete_all", "arguments": {}}'],
  ])(
    '%s naming a tool that is not offered is a call all the same (the runner refuses it with the list of tools), without a way to write it',
    async (_, text) => {
      const r = await turn({ text: [text] });
      expect(r.text).toBe('');
      expect(r.outcome.toolCalls).toEqual([{ id: '', name: 'delete_all', arguments: '{}' }]);
    },
  );

  it('an unfinished <tool_call> is a call cut off (the runner refuses it), not text', async () => {
    const r = await turn({ text: pieces('<tool_call>{"name": "read_file", "argu', 3) });
    expect(r.text).toBe('');
    expect(r.outcome.toolCalls).toEqual([
      expect.objectContaining({ name: 'read_file', refusal: expect.stringContaining('the answer stopped inside the call') }),
    ]);
  });

  it.each([1, 5, 1000])(
    'prose before a call is streamed as it arrives; the call and the result the model invented after it are not shown (pieces of %i)',
    async (size) => {
      const answer = `I'll read it first.\n\n${call}\nThe file contains three functions: a, b and c.`;
      const r = await turn({ text: pieces(answer, size) });
      expect(r.text).toBe("I'll read it first.\n\n");
      expect(r.outcome.text).toBe("I'll read it first.\n\n");
      expect(r.outcome.toolCalls.map((c) => c.name)).toEqual(['read_file']);
      // Shown before the stream ended: the first pieces of prose went out as they came.
      if (size < 20) expect(r.shown.length).toBeGreaterThan(1);
    },
  );

  it.each([
    ['the tool name as the key', '{"read_file": {"path": "a"}}'],
    ["Gemma 4's call with its tokens gone", 'call:read_file{path:<|"|>a<|"|>}'],
    ['a pythonic call naming the tool in another case', 'ReadFile(path="a")'],
    ['a pythonic call with a leaked functions. prefix', '[functions.read_file(path="a")]'],
  ])('a whole answer read as a call is never shown as text: %s', async (_, call) => {
    for (const size of [1, 3, 1000]) {
      const r = await turn({ text: pieces(call, size) });
      expect(r.outcome.toolCalls.map((c) => JSON.parse(c.arguments))).toEqual([{ path: 'a' }]);
      expect(r.text).toBe('');
      expect(r.outcome.text).toBe('');
    }
  });

  it('prose after a marker that turned out to be none is shown before the call that follows', async () => {
    const r = await turn({ text: ['Use <function=x> tags. Now: ', '<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>'] });
    expect(r.text).toBe('Use <function=x> tags. Now:');
    expect(r.outcome.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([['read_file', { path: 'a' }]]);
  });

  it('a call in the content beside structured tool_calls runs too, first, and one repeating a structured call once', async () => {
    const r = await turn({
      text: '{"name": "read_file", "arguments": {"path": "x"}}',
      toolCalls: [{ id: 'n1', name: 'write_file', arguments: '{"path":"y","content":""}' }],
    });
    expect(r.outcome.toolCalls.map((c) => c.name)).toEqual(['read_file', 'write_file']);
    expect(r.text).toBe('');
    const twice = await turn({
      text: '<tool_call>{"name": "write_file", "arguments": {"content": "", "path": "y"}}</tool_call>',
      toolCalls: [{ id: 'n1', name: 'write_file', arguments: '{"path":"y","content":""}' }],
    });
    expect(twice.outcome.toolCalls).toEqual([{ id: 'n1', name: 'write_file', arguments: '{"path":"y","content":""}' }]);
  });

  it('cancelled while text is held: the outcome text is what the user saw (nothing), not the held text', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled')), 20);
    const r = await turn({ text: ['<tool_call>{"name": "read_', 'file"'], hang: true }, recogniser(offered), controller);
    expect(r.outcome.stopReason).toBe('cancelled');
    expect(r.shown).toEqual([]);
    expect(r.outcome.text).toBe('');
  });

  it('cancelled after prose was shown keeps the prose as the outcome text', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled')), 20);
    const r = await turn({ text: ['Let me ', 'look'], hang: true }, recogniser(offered), controller);
    expect(r.outcome.stopReason).toBe('cancelled');
    expect(r.outcome.text).toBe('Let me look');
    expect(r.text).toBe('Let me look');
  });

  it('without a recogniser, JSON-looking text is streamed as it comes', async () => {
    const r = await turn({ text: pieces(call, 10) }, null);
    expect(r.shown).toHaveLength(pieces(call, 10).length);
    expect(r.text).toBe(call);
    expect(r.outcome.toolCalls).toEqual([]);
  });
});

describe('the notice of tool calls read from text', () => {
  it('is told when calls were read from the text, not for prose', async () => {
    const told: unknown[] = [];
    const notify = async (notice: unknown) => void told.push(notice);
    const run = (text: string) =>
      runModelRequest({
        chat: scriptedChat([{ text: [text] }]).client,
        request: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        callbacks: { signal: new AbortController().signal, send: async () => undefined, logger, notify },
        textToolCalls: recogniser(offered),
      });
    await run('just prose');
    expect(told).toEqual([]);
    await run('<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>');
    expect(told).toEqual([TEXT_TOOL_CALLS_NOTICE]);
    expect(TEXT_TOOL_CALLS_NOTICE.once).toBe('text-tool-calls');
  });
});

describe('textToolCallRecogniser', () => {
  const mcp = [definition('srv__get_weather', { city: { type: 'string' }, days: { type: 'integer' } })];

  it('knows an MCP tool by its own name too: a bare call naming it is a call, its XML values typed by its schema', () => {
    const reader = recogniser(mcp);
    expect(reader.read("[get_weather(city='Oslo')]").calls.map((c) => [c.name, c.arguments])).toEqual([['get_weather', '{"city":"Oslo"}']]);
    const xml = reader.read('<function=get_weather>\n<parameter=city>\n1.50\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>').calls[0]!;
    expect(JSON.parse(xml.arguments)).toEqual({ city: '1.50', days: 3 });
  });

  it('a call gets how to write it: in its own format, or on the text path in the format taught there', () => {
    const call = '[TOOL_CALLS]read_file[ARGS]{"path": 1}';
    expect(recogniser(offered).read(call).calls[0]!.hint).toMatch(/^Write the call as:\n\[TOOL_CALLS\]read_file\[ARGS\]/);
    expect(recogniser(offered, true).read(call).calls[0]!.hint).toMatch(/^Write the call as:\n<tool_call>\n\{"name":"read_file"/);
  });
});
