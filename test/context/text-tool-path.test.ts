/**
 * Requests spelled for the text path: no `tool` role and no `tool_calls` anywhere, the tools in
 * the system message, calls as `<tool_call>` blocks the reader parses back, results as user
 * messages joined so user and assistant alternate.
 */
import { describe, expect, it } from 'vitest';
import { textToolInstructions, toTextToolPath, toolCallBlock } from '../../src/context/text-tool-path.js';
import { parseTextToolCalls } from '../../src/context/text-tool-calls.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';

const tools = [
  {
    type: 'function' as const,
    function: { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  },
  { type: 'function' as const, function: { name: 'list_directory', description: 'List a folder.', parameters: { type: 'object', properties: {} } } },
];
const call = (id: string, name: string, args: string) => ({ id, type: 'function' as const, function: { name, arguments: args } });

describe('toTextToolPath', () => {
  it('spells a turn with two parallel calls, an image and an earlier turn without any tool shape', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'Looking.', tool_calls: [call('a', 'read_file', '{"path":"x.ts"}'), call('b', 'list_directory', '{}')] },
      { role: 'tool', tool_call_id: 'a', content: 'X' },
      { role: 'tool', tool_call_id: 'b', content: 'x.ts' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images returned by the tool calls above:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
        ],
      },
    ];
    const out = toTextToolPath(messages, tools);
    expect(out.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(out.some((m) => m.role === 'tool' || (m.role === 'assistant' && 'tool_calls' in m))).toBe(false);
    expect(out[0]!.content).toBe(`sys\n\n${textToolInstructions(tools)}`);
    expect(out[2]!.content).toBe(
      'Looking.\n<tool_call>\n{"name":"read_file","arguments":{"path":"x.ts"}}\n</tool_call>\n' +
        '<tool_call>\n{"name":"list_directory","arguments":{}}\n</tool_call>',
    );
    expect(out[3]!.content).toEqual([
      { type: 'text', text: 'Result of read_file:\nX\n\nResult of list_directory:\nx.ts' },
      { type: 'text', text: '\n\n' },
      { type: 'text', text: 'Images returned by the tool calls above:' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
    ]);
    // The input is not changed.
    expect(messages[2]).toHaveProperty('tool_calls');
  });

  it('writes calls the text reader reads back as the same calls', () => {
    const block = [toolCallBlock('read_file', '{"path":"a b.ts"}'), toolCallBlock('list_directory', '')].join('\n');
    expect(parseTextToolCalls(block, new Set(['read_file', 'list_directory']))).toEqual([
      { name: 'read_file', arguments: '{"path":"a b.ts"}' },
      { name: 'list_directory', arguments: '{}' },
    ]);
  });

  it('adds a system message of its own when there is none, and names each tool with its parameters', () => {
    const out = toTextToolPath([{ role: 'user', content: 'hi' }], tools);
    expect(out[0]).toEqual({ role: 'system', content: textToolInstructions(tools) });
    expect(textToolInstructions(tools)).toContain(
      '- read_file: Read a file. Parameters: {"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}',
    );
    expect(textToolInstructions(tools)).toContain('<tool_call>\n{"name":"read_file","arguments":{"path":"..."}}\n</tool_call>');
  });
});
