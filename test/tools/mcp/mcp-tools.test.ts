import { describe, expect, it } from 'vitest';
import { describeMcpTools, mcpToolKind } from '../../../src/tools/mcp/mcp-tools.js';

describe('mcpToolKind', () => {
  it('maps the explicit annotations to ACP kinds', () => {
    expect(mcpToolKind(undefined)).toBe('other');
    expect(mcpToolKind({})).toBe('other');
    expect(mcpToolKind({ readOnlyHint: true })).toBe('read');
    expect(mcpToolKind({ readOnlyHint: true, openWorldHint: true })).toBe('fetch');
    expect(mcpToolKind({ readOnlyHint: false, destructiveHint: false })).toBe('edit');
    expect(mcpToolKind({ destructiveHint: false, openWorldHint: true })).toBe('other');
    expect(mcpToolKind({ destructiveHint: true })).toBe('other');
  });
});

describe('describeMcpTools', () => {
  const servers = [
    {
      server: 'fs',
      tools: [
        { name: 'read', description: 'Reads', inputSchema: { type: 'object', properties: { p: { type: 'string' } } }, annotations: { readOnlyHint: true } },
        { name: 'run_command', title: 'Runs', inputSchema: {} },
      ],
    },
    {
      server: 'web',
      tools: [{ name: 'get', inputSchema: { type: 'object' }, annotations: { title: 'Fetch a page', readOnlyHint: true, openWorldHint: true } }],
    },
  ];

  it('names, describes and kinds every tool in server order', () => {
    const { tools, leftOut } = describeMcpTools(servers, new Set(['read_file']), { gemini: false });
    expect(leftOut).toEqual([]);
    expect(tools).toEqual([
      {
        name: 'fs__read',
        server: 'fs',
        tool: 'read',
        description: 'Reads',
        parameters: { type: 'object', properties: { p: { type: 'string' } }, required: [] },
        readOnly: true,
        kind: 'read',
        title: 'fs: read',
      },
      {
        name: 'fs__run_command',
        server: 'fs',
        tool: 'run_command',
        description: 'Runs',
        parameters: { type: 'object', properties: {}, required: [] },
        readOnly: false,
        kind: 'other',
        title: 'fs: run_command',
      },
      {
        name: 'web__get',
        server: 'web',
        tool: 'get',
        description: 'Fetch a page',
        parameters: { type: 'object', properties: {}, required: [] },
        readOnly: true,
        kind: 'fetch',
        title: 'web: get',
      },
    ]);
  });

  it('leaves out the tools past maxTools, naming them', () => {
    const { tools, leftOut } = describeMcpTools(servers, new Set(), { gemini: true, maxTools: 1 });
    expect(tools.map((t) => t.name)).toEqual(['fs__read']);
    expect(leftOut).toEqual(['fs__run_command', 'web__get']);
    expect(describeMcpTools(servers, new Set(), { gemini: true, maxTools: -3 }).tools).toEqual([]);
  });
});
