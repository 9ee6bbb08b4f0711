import { describe, expect, it } from 'vitest';
import { mcpErrorResult, NO_OUTPUT, toMcpCallResult } from '../../../src/tools/mcp/mcp-result.js';

describe('toMcpCallResult', () => {
  it('joins text for the model and keeps the blocks for the client', () => {
    expect(
      toMcpCallResult({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toEqual({
      isError: false,
      text: 'one\ntwo',
      images: [],
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
    });
  });

  it('keeps images apart from the text', () => {
    const result = toMcpCallResult({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] });
    expect(result).toEqual({
      isError: false,
      text: '',
      images: [{ data: 'AAAA', mimeType: 'image/png' }],
      content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
    });
  });

  it('gives resources as their text, and binary parts and links as one-line notes', () => {
    const result = toMcpCallResult({
      content: [
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'file body' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAAAA==' } },
        { type: 'resource_link', uri: 'file:///c.md', name: 'c.md', title: 'Notes' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ],
    });
    expect(result.text.split('\n')).toEqual([
      'file body',
      '[resource <file:///b.bin> (binary, 4 bytes) not shown]',
      '[resource link: Notes <file:///c.md>]',
      '[audio (audio/wav, 3 bytes) not shown]',
    ]);
    expect(result.content.map((block) => block.type)).toEqual(['resource', 'resource', 'resource_link', 'audio']);
    expect(result.content[0]).toEqual({ type: 'resource', resource: { uri: 'file:///a.txt', text: 'file body', mimeType: 'text/plain' } });
  });

  it('passes isError on', () => {
    expect(toMcpCallResult({ content: [{ type: 'text', text: 'bad' }], isError: true })).toMatchObject({ isError: true, text: 'bad' });
  });

  it('uses structuredContent only when there is no text', () => {
    expect(toMcpCallResult({ content: [], structuredContent: { n: 1 } }).text).toBe('{"n":1}');
    expect(toMcpCallResult({ content: [{ type: 'text', text: 'n is 1' }], structuredContent: { n: 1 } }).text).toBe('n is 1');
  });

  it('never gives the model an empty text for an empty result', () => {
    expect(toMcpCallResult({ content: [] })).toEqual({ isError: false, text: NO_OUTPUT, images: [], content: [] });
  });

  it('reads the legacy toolResult answer', () => {
    expect(toMcpCallResult({ toolResult: { ok: true } })).toMatchObject({ isError: false, text: '{"ok":true}' });
  });

  it('builds error results with the text as content', () => {
    expect(mcpErrorResult('nope')).toEqual({ isError: true, text: 'nope', images: [], content: [{ type: 'text', text: 'nope' }] });
  });
});
