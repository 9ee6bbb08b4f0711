import { describe, expect, it } from 'vitest';
import { parseToolArguments, signature, validateToolArguments } from '../../src/tools/arguments.js';

function error(result: ReturnType<typeof parseToolArguments>): string {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.args)}`);
  return result.error;
}

describe('parseToolArguments', () => {
  it('accepts well-formed arguments and drops unknown properties with a note', () => {
    expect(parseToolArguments('read_file', '{"path":"a.ts","offset":3,"limit":10,"extra":1}')).toEqual({ ok: true, args: { path: 'a.ts', offset: 3, limit: 10 }, note: 'unknown parameter "extra" ignored' });
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
    expect(parseToolArguments('edit_file', '{"path":"a","old_string":"x","new_string":"y","replace_all":"TRUE"}')).toMatchObject({ ok: true, args: { replace_all: true } });
    expect(parseToolArguments('edit_file', '{"path":"a","old_string":"x","new_string":"y","replace_all":"false"}')).toMatchObject({ ok: true, args: { replace_all: false } });
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

  it('repairs almost-JSON, saying so in the note', () => {
    // anomalyco/opencode#1264 (single quotes), huggingface/chat-ui#1229 (trailing commas).
    expect(parseToolArguments('read_file', "{'path': 'a.ts', 'limit': '5',}")).toEqual({ ok: true, args: { path: 'a.ts', limit: 5 }, note: expect.stringMatching(/^the arguments were not valid JSON \(.+\) and were repaired$/) });
  });

  it('never accepts a call cut off, and says how to write it shorter', () => {
    expect(error(parseToolArguments('write_file', '{"path": "a.py", "content": "def f():\\n    ret'))).toMatch(/^write_file: this call was cut off .* Write the file in parts/);
    expect(error(parseToolArguments('edit_file', '{"path":"a","old_string":"x","new_string":"y"}', undefined, true))).toMatch(/^edit_file: this call was cut off/);
  });

  it('reads other spellings of parameter names: Claude Code\'s, opencode\'s, Anthropic\'s editor tool\'s', () => {
    expect(parseToolArguments('edit_file', '{"file_path":"a","old_str":"x","new_str":"y"}')).toEqual({ ok: true, args: { path: 'a', old_string: 'x', new_string: 'y' }, note: '"file_path" was read as "path"; "old_str" was read as "old_string"; "new_str" was read as "new_string"' });
    expect(parseToolArguments('edit_file', '{"filePath":"a","oldString":"x","newString":"y","replaceAll":"true"}')).toMatchObject({ ok: true, args: { path: 'a', old_string: 'x', new_string: 'y', replace_all: true } });
    // The tool's own name wins over an alias given beside it.
    expect(parseToolArguments('read_file', '{"path":"a","file":"b"}')).toEqual({ ok: true, args: { path: 'a' }, note: 'unknown parameter "file" ignored' });
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
    expect(error(parseToolArguments('edit_file', '{"path":"a","old_string":"x","new_string":"y","replace_all":"maybe"}'))).toContain('"replace_all" must be true or false');
  });

  it('bounds the echo of what was sent', () => {
    const huge = JSON.stringify({ content: 'x'.repeat(10_000) });
    const message = error(parseToolArguments('write_file', huge));
    expect(message.length).toBeLessThan(600);
    expect(message).toMatch(/more characters\)$/);
  });

  it('lists the available tools for an unknown name', () => {
    expect(error(parseToolArguments('Read', '{}'))).toBe('There is no tool named "Read". Available tools: read_file, write_file, edit_file, list_directory, search_files, run_command, fetch_url.');
    expect(error(parseToolArguments('nope', '{}', ['read_file', 'mcp__x']))).toContain('Available tools: read_file, mcp__x.');
  });
});

describe('validateToolArguments and signature', () => {
  it('checks parsed values', () => {
    expect(validateToolArguments('run_command', { command: 'ls' })).toEqual({ ok: true, args: { command: 'ls' } });
    expect(validateToolArguments('run_command', null).ok).toBe(false);
  });
  it('writes signatures', () => {
    expect(signature('list_directory')).toBe('list_directory needs no arguments; optional: "path" (string)');
    expect(signature('write_file')).toBe('write_file needs "path" (string), "content" (string)');
  });
});
