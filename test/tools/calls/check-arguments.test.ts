import { describe, expect, it } from 'vitest';
import { coerceBySchema, signature } from '../../../src/tools/calls/argument-types.js';
import { checkArguments } from '../../../src/tools/calls/check-arguments.js';
import { OfferedTools } from '../../../src/tools/calls/offered-tools.js';
import type { BuiltinToolName } from '../../../src/tools/builtin/registry.js';
import type { CheckedArguments } from '../../../src/tools/tool.js';
import { builtin } from '../../helpers/builtin-tool.js';

/** The check as the runner makes it for a call of `name` with the raw `arguments` text. */
const check = (name: BuiltinToolName, raw: unknown, cutOff = false) => builtin(name).check(raw, cutOff);
/** The top-level schema of a built-in tool, as the check reads it. */
const schemaOf = (name: BuiltinToolName) => ({
  properties: builtin(name).parameters.properties as Record<string, Record<string, unknown>>,
  required: builtin(name).parameters.required,
});
/** Only what matters to the tool: the checked arguments (notes are tested apart). */
const parseToolArguments = (name: BuiltinToolName, raw: string) => {
  const result = check(name, raw);
  return result.ok ? { ok: true as const, args: result.args } : result;
};

function error(result: CheckedArguments | { ok: false; error: string } | { ok: true; args: unknown }): string {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.args)}`);
  return result.error;
}

describe('checkArguments', () => {
  it('accepts well-formed arguments and drops unknown properties', () => {
    expect(parseToolArguments('read_file', '{"path":"a.ts","offset":3,"limit":10,"extra":1}')).toEqual({
      ok: true,
      args: { path: 'a.ts', offset: 3, limit: 10 },
    });
    expect(parseToolArguments('edit_file', '{"path":"a","old_string":"x","new_string":"","replace_all":true}')).toEqual({
      ok: true,
      args: { path: 'a', old_string: 'x', new_string: '', replace_all: true },
    });
  });

  it('treats empty and whitespace arguments as {}', () => {
    expect(parseToolArguments('list_directory', '')).toEqual({ ok: true, args: {} });
    expect(parseToolArguments('list_directory', '  \n')).toEqual({ ok: true, args: {} });
    expect(error(parseToolArguments('read_file', ''))).toContain('"path" is missing');
  });

  it('tolerates numbers and booleans as strings, null for optional parameters, double-encoded JSON', () => {
    expect(parseToolArguments('read_file', '{"path":"a","offset":"10","limit":" 5 "}')).toEqual({ ok: true, args: { path: 'a', offset: 10, limit: 5 } });
    expect(parseToolArguments('edit_file', '{"path":"a","old_string":"x","new_string":"y","replace_all":"TRUE"}')).toMatchObject({
      ok: true,
      args: { replace_all: true },
    });
    expect(parseToolArguments('edit_file', '{"path":"a","old_string":"x","new_string":"y","replace_all":"false"}')).toMatchObject({
      ok: true,
      args: { replace_all: false },
    });
    expect(parseToolArguments('read_file', '{"path":"a","offset":null}')).toEqual({ ok: true, args: { path: 'a' } });
    expect(parseToolArguments('read_file', JSON.stringify(JSON.stringify({ path: 'b' })))).toEqual({ ok: true, args: { path: 'b' } });
    expect(parseToolArguments('run_command', '{"command":"ls","timeout_ms":5000.0}')).toEqual({ ok: true, args: { command: 'ls', timeout_ms: 5000 } });
    expect(parseToolArguments('write_file', '{"path":"n.txt","content":42}')).toEqual({ ok: true, args: { path: 'n.txt', content: '42' } });
  });

  it('explains invalid JSON with the tool signature and what was sent', () => {
    const message = error(parseToolArguments('read_file', '{"path": "a.ts"} {"path": "b.ts"}'));
    expect(message).toMatch(/^read_file: the arguments are not valid JSON/);
    expect(message).toContain('read_file needs "path" (string); optional: "offset" (integer, 1-based line), "limit" (integer, lines)');
    expect(message).toContain('You sent: {"path": "a.ts"} {"path": "b.ts"}');
  });

  it('refuses non-objects, missing and mistyped fields, naming each problem', () => {
    expect(error(parseToolArguments('read_file', '["a"]'))).toContain('must be a JSON object');
    expect(error(parseToolArguments('read_file', '"a.ts"'))).toContain('must be a JSON object');
    const both = error(parseToolArguments('edit_file', '{"path":"a","new_string":{}}'));
    expect(both).toContain('"old_string" is missing');
    expect(both).toContain('"new_string" must be a string');
    expect(error(parseToolArguments('read_file', '{"path":"a","offset":0}'))).toContain('"offset" must be an integer ≥ 1');
    expect(error(parseToolArguments('read_file', '{"path":"a","offset":"ten"}'))).toContain('"offset" must be an integer');
    expect(error(parseToolArguments('read_file', '{"path":"a","limit":2.5}'))).toContain('"limit" must be an integer');
    expect(error(parseToolArguments('edit_file', '{"path":"a","old_string":"x","new_string":"y","replace_all":"maybe"}'))).toContain(
      '"replace_all" must be true or false',
    );
  });

  it('bounds the echo of what was sent', () => {
    const huge = JSON.stringify({ content: 'x'.repeat(10_000) });
    const message = error(parseToolArguments('write_file', huge));
    expect(message.length).toBeLessThan(600);
    expect(message).toMatch(/more characters\)$/);
  });

  it('notes the unknown parameters it ignored', () => {
    expect(check('read_file', '{"path":"a.ts","extra":1}')).toEqual({ ok: true, args: { path: 'a.ts' }, notes: ['the unknown parameter "extra" was ignored'] });
    expect(check('read_file', '{"path":"a.ts","toString":1}')).toMatchObject({ notes: ['the unknown parameter "toString" was ignored'] });
    expect(check('read_file', '{"path":"a.ts"}')).toEqual({ ok: true, args: { path: 'a.ts' }, notes: [] });
  });

  it('refuses a number too large to be exact, and a boolean where text is not true or false', () => {
    expect(error(parseToolArguments('read_file', '{"path":"a","limit":"99999999999999999999"}'))).toContain('"limit" must be an integer ≥ 1');
    expect(error(parseToolArguments('edit_file', '{"path":"a","old_string":"x","new_string":"y","replace_all":2}'))).toContain(
      '"replace_all" must be true or false',
    );
  });

  it('lists the available tools for an unknown name', () => {
    const offered = new OfferedTools([builtin('read_file'), builtin('write_file')]);
    expect(offered.resolve('Read').tool.check('{}', false)).toEqual({
      ok: false,
      error: 'There is no tool named "Read". Available tools: read_file, write_file.',
    });
  });
});

describe('the steps of the check', () => {
  it('checks parsed values as well as text', () => {
    expect(check('run_command', { command: 'ls' })).toEqual({ ok: true, args: { command: 'ls' }, notes: [] });
    expect(check('run_command', null).ok).toBe(false);
    expect(error(check('run_command', [1]))).toContain('You sent: [1]');
  });

  it('renames an alias only when the field itself is absent, and notes it', () => {
    const spec = { name: 't', schema: { properties: { path: { type: 'string' } }, required: ['path'] }, aliases: { where: 'path' } };
    expect(checkArguments(spec, '{"where":"x.ts"}')).toEqual({ ok: true, args: { path: 'x.ts' }, notes: ['"where" was read as "path"'] });
    expect(checkArguments(spec, '{"where":"x.ts","path":"y.ts"}')).toEqual({
      ok: true,
      args: { path: 'y.ts' },
      notes: ['the unknown parameter "where" was ignored'],
    });
  });

  it('coerces by the declared type only, leaving other values to the validation', () => {
    const schema = { properties: { n: { type: 'integer' }, b: { type: 'boolean' }, s: { type: 'string' }, none: { type: 'string' } }, required: [] };
    expect(coerceBySchema({ n: ' 7 ', b: 'False', s: 3, other: '4', gone: null, none: null }, schema)).toEqual({
      n: 7,
      b: false,
      s: '3',
      other: '4',
      gone: null,
    });
    expect(coerceBySchema({ n: '7a', b: 'yes', s: {} }, schema)).toEqual({ n: '7a', b: 'yes', s: {} });
  });

  it('writes signatures', () => {
    expect(signature('list_directory', schemaOf('list_directory'))).toBe('list_directory needs no arguments; optional: "path" (string)');
    expect(signature('write_file', schemaOf('write_file'))).toBe('write_file needs "path" (string), "content" (string)');
  });
});

describe('checkArguments: calls as small models write them', () => {
  it('repairs almost-JSON, saying so in a note', () => {
    // anomalyco/opencode#1264 (single quotes), huggingface/chat-ui#1229 (trailing commas).
    const result = check('read_file', "{'path': 'a.ts', 'limit': '5',}");
    expect(result).toEqual({
      ok: true,
      args: { path: 'a.ts', limit: 5 },
      notes: ['the arguments were not valid JSON (single quotes, a trailing comma) and were repaired'],
    });
  });

  it('never accepts a call cut off, and says how to write it shorter', () => {
    expect(error(check('write_file', '{"path": "a.py", "content": "def f():\\n    ret'))).toMatch(
      /^write_file: this call was cut off .* Write the file in parts/,
    );
    expect(error(check('edit_file', '{"path":"a","old_string":"x","new_string":"y"}', true))).toMatch(/^edit_file: this call was cut off/);
  });

  it("reads other agents' parameter names: Claude Code's, opencode's, Anthropic's editor tool's", () => {
    expect(check('edit_file', '{"file_path":"a","old_str":"x","new_str":"y"}')).toEqual({
      ok: true,
      args: { path: 'a', old_string: 'x', new_string: 'y' },
      notes: ['"file_path" was read as "path"', '"old_str" was read as "old_string"', '"new_str" was read as "new_string"'],
    });
    expect(check('edit_file', '{"filePath":"a","oldString":"x","newString":"y","replaceAll":"true"}')).toMatchObject({
      ok: true,
      args: { path: 'a', old_string: 'x', new_string: 'y', replace_all: true },
    });
    expect(check('read_file', '{"path":"a","file":"b"}')).toEqual({ ok: true, args: { path: 'a' }, notes: ['the unknown parameter "file" was ignored'] });
  });
});
