import { describe, expect, it } from 'vitest';
import { promptArguments, promptCommandName, promptHint, promptMessagesToContent, type McpPromptInfo } from '../../../src/tools/mcp/mcp-prompts.js';

const review: McpPromptInfo = { name: 'review', arguments: [{ name: 'file', required: true }, { name: 'focus' }] };

describe('MCP prompts as commands', () => {
  it('names and hints', () => {
    expect(promptCommandName('my server', 'review')).toBe('my_server:review');
    expect(promptHint(review)).toBe('<file> [focus]');
    expect(promptHint({ name: 'x' })).toBeUndefined();
  });

  it('takes key=value by name and the other words by position, the last argument taking the rest', () => {
    expect(promptArguments(review, 'a.ts speed and memory')).toEqual({ ok: true, args: { file: 'a.ts', focus: 'speed and memory' } });
    expect(promptArguments(review, 'focus=speed a.ts')).toEqual({ ok: true, args: { file: 'a.ts', focus: 'speed' } });
    expect(promptArguments(review, 'file="b c.ts"')).toEqual({ ok: true, args: { file: 'b c.ts' } });
    expect(promptArguments(review, 'other=1')).toEqual({ ok: true, args: { file: 'other=1' } });
    expect(promptArguments(review, '')).toEqual({ ok: false, error: 'missing file' });
  });

  it('turns the messages into content blocks', () => {
    expect(
      promptMessagesToContent([
        { role: 'user', content: { type: 'text', text: 'Review a.ts' } },
        { role: 'assistant', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } },
        { role: 'user', content: { type: 'resource', resource: { uri: 'file:///a.ts', text: 'code', mimeType: 'text/plain' } } },
        { role: 'user', content: { type: 'audio', data: 'x', mimeType: 'audio/wav' } },
      ]),
    ).toEqual([
      { type: 'text', text: 'Review a.ts' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'file:///a.ts', text: 'code', mimeType: 'text/plain' } },
    ]);
  });
});
