import { describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_DEPTH } from '../../../src/tools/calls/repair-arguments.js';
import { mcpTool } from '../../../src/tools/mcp/mcp-tool.js';
import type { McpToolDescriptor } from '../../../src/tools/mcp/mcp-tools.js';
import { runTool } from '../../../src/tools/tool.js';
import { runContext } from '../../helpers/builtin-tool.js';

/** A QuickJS-like tool: its schema is all the pipeline knows of it. */
const descriptor = (parameters: Record<string, unknown>, over: Partial<McpToolDescriptor> = {}): McpToolDescriptor => ({
  name: 'QuickJS__execute_javascript',
  server: 'QuickJS',
  tool: 'execute_javascript',
  description: 'Run JavaScript',
  parameters: { type: 'object', properties: {}, required: [], ...parameters },
  readOnly: false,
  kind: 'other',
  title: 'QuickJS: execute_javascript',
  ...over,
});

const calls: { name: string; args: Record<string, unknown> }[] = [];
const servers = {
  call: async (name: string, args: Record<string, unknown>) => {
    calls.push({ name, args });
    return { isError: false, text: 'ok', images: [], content: [{ type: 'text' as const, text: 'ok' }] };
  },
};

const SCHEMA = {
  properties: {
    code: { type: 'string' },
    timeout: { type: 'integer' },
    ratio: { type: 'number' },
    strict: { type: 'boolean' },
    args: { type: 'array', items: { type: 'string' } },
    env: { type: 'object' },
    mode: { type: 'string', enum: ['module', 'script'] },
    tag: { type: ['string', 'null'] },
  },
  required: ['code'],
};
const tool = mcpTool(descriptor(SCHEMA), { servers });
const check = (raw: unknown) => tool.check(raw, false);

describe('an MCP tool: the same argument pipeline as the built-ins, driven by its JSON Schema', () => {
  it('coerces to the schema types: numbers, integers, booleans, arrays and objects given as text', () => {
    expect(check('{"code": "1+1", "timeout": "30", "ratio": "0.5", "strict": "true", "args": "[\\"a\\", \\"b\\"]", "env": "{\\"X\\": \\"1\\"}"}')).toEqual({
      ok: true,
      args: { code: '1+1', timeout: 30, ratio: 0.5, strict: true, args: ['a', 'b'], env: { X: '1' } },
      notes: [],
    });
  });

  it("reads another spelling of the schema's own names, and passes names it does not declare to the server", () => {
    expect(check('{"Code": "x", "TIMEOUT": 5, "verbose": true}')).toEqual({
      ok: true,
      args: { code: 'x', timeout: 5, verbose: true },
      notes: ['"Code" was read as "code"', '"TIMEOUT" was read as "timeout"'],
    });
  });

  it('takes path for file_path when the schema has exactly one of the path names', () => {
    const files = mcpTool(descriptor({ properties: { file_path: { type: 'string' }, content: { type: 'string' } }, required: ['file_path'] }), { servers });
    expect(files.check('{"path": "a.txt", "content": "x"}', false)).toMatchObject({ ok: true, args: { file_path: 'a.txt', content: 'x' } });
  });

  it('keeps null where the schema allows it, drops it for a parameter it types otherwise, passes it on for one it does not declare', () => {
    expect(check('{"code": "x", "tag": null, "timeout": null}')).toEqual({ ok: true, args: { code: 'x', tag: null }, notes: [] });
    expect(check('{"code": "x", "cursor": null}')).toEqual({ ok: true, args: { code: 'x', cursor: null }, notes: [] });
  });

  it('an array or object given as JSON text is held to the depth bound of arguments (no value too deep to send on)', () => {
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(check(JSON.stringify({ code: 'x', args: deep(3) }))).toMatchObject({ ok: true, args: { args: [[[]]] } });
    for (const n of [MAX_ARGUMENT_DEPTH + 1, 200_000]) {
      const checked = check(JSON.stringify({ code: 'x', args: deep(n) }));
      expect(checked).toMatchObject({ ok: false, error: expect.stringContaining('"args" must be an array') });
    }
  });

  it('refuses what does not validate, naming what to fix and the parameters', () => {
    const refused = check('{"timeout": "soon", "mode": "eval", "strict": 2}');
    expect(refused.ok).toBe(false);
    const error = refused.ok ? '' : refused.error;
    expect(error).toMatch(
      /^QuickJS__execute_javascript: "code" is missing; "timeout" must be an integer; "strict" must be true or false; "mode" must be one of "module", "script"\./,
    );
    expect(error).toContain('QuickJS__execute_javascript needs "code" (string); optional: "timeout" (integer)');
    expect(error).toContain('You sent: {"timeout": "soon"');
  });

  it('unwraps a whole call sent as the arguments: the OpenAI shape and a {name, arguments} envelope, its name with or without the server', () => {
    const inner = { code: '2*3' };
    for (const raw of [
      JSON.stringify({ type: 'function', function: { name: 'execute_javascript', arguments: JSON.stringify(inner) } }),
      JSON.stringify({ name: 'QuickJS__execute_javascript', arguments: inner }),
      JSON.stringify({ name: 'execute_javascript', parameters: inner }),
      '{"name": "execute_javascript", "arguments": {"code": "2*3"}',
      '{"name": "execute_javascript", "arguments": {"code": "2*3"}}}',
    ]) {
      expect(check(raw), raw).toEqual({
        ok: true,
        args: inner,
        notes: expect.arrayContaining(['the arguments held the whole call; its own arguments were used']),
      });
    }
  });

  it('does not unwrap an envelope naming another tool, nor arguments of a tool whose own parameters are name and arguments', () => {
    expect(check('{"name": "other_tool", "arguments": {"code": "x"}}').ok).toBe(false);
    const runner = mcpTool(descriptor({ properties: { name: { type: 'string' }, arguments: { type: 'object' } }, required: ['name'] }), { servers });
    expect(runner.check('{"name": "execute_javascript", "arguments": {"code": "x"}}', false)).toMatchObject({
      ok: true,
      args: { name: 'execute_javascript', arguments: { code: 'x' } },
    });
  });

  it('a missing last brace is added only for an envelope: otherwise the call counts as cut off', () => {
    expect(check('{"code": "x", "env": {"A": "1"}')).toMatchObject({ ok: false, error: expect.stringMatching(/this call was cut off/) });
  });

  it('runs on its server, shown as <server>: <tool>, asking as a tool that runs things, remembered per server and tool', async () => {
    expect(tool.present({})).toEqual({ title: 'QuickJS: execute_javascript', kind: 'other' });
    expect(tool.permission({})).toMatchObject({ permission: 'runs', key: 'mcp:QuickJS/execute_javascript' });
    calls.length = 0;
    const outcome = await runTool(tool, { code: '1' }, runContext());
    expect(outcome).toMatchObject({ failed: false, forModel: 'ok' });
    expect(calls).toEqual([{ name: 'QuickJS__execute_javascript', args: { code: '1' } }]);
  });
});
