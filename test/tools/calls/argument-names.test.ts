import { describe, expect, it } from 'vitest';
import { normaliseParameterNames } from '../../../src/tools/calls/argument-names.js';
import { coerceToType } from '../../../src/tools/calls/argument-types.js';
import { BUILTIN_TOOLS, builtinTool } from '../../../src/tools/builtin/registry.js';

const EDIT_ALIASES = builtinTool('edit_file').aliases;

describe('normaliseParameterNames', () => {
  const edit = ['path', 'old_string', 'new_string', 'replace_all'];

  it('renames aliases and other spellings, keeps known names, lists what it dropped', () => {
    // Claude Code's Edit (file_path), opencode's edit (filePath, oldString, newString, replaceAll).
    expect(normaliseParameterNames({ filePath: 'a', oldString: 'x', newString: 'y', replaceAll: true, why: 'z' }, edit, EDIT_ALIASES)).toEqual({
      value: { path: 'a', old_string: 'x', new_string: 'y', replace_all: true },
      renamed: [
        ['filePath', 'path'],
        ['oldString', 'old_string'],
        ['newString', 'new_string'],
        ['replaceAll', 'replace_all'],
      ],
      ignored: ['why'],
    });
  });

  it("the tool's own name wins over an alias of it, whatever the order", () => {
    expect(normaliseParameterNames({ file_path: 'b', path: 'a' }, edit, EDIT_ALIASES)).toEqual({ value: { path: 'a' }, renamed: [], ignored: ['file_path'] });
    expect(normaliseParameterNames({ file: 'b', file_path: 'c' }, edit, EDIT_ALIASES)).toEqual({
      value: { path: 'b' },
      renamed: [['file', 'path']],
      ignored: ['file_path'],
    });
  });

  it('takes path, file_path and filepath for one another only when the tool has exactly one of them', () => {
    expect(normaliseParameterNames({ path: 'a' }, ['file_path', 'content'])).toMatchObject({ value: { file_path: 'a' }, renamed: [['path', 'file_path']] });
    expect(normaliseParameterNames({ filePath: 'a' }, ['path'])).toMatchObject({ value: { path: 'a' }, renamed: [['filePath', 'path']] });
    // With both, each is only itself (and its own spellings).
    expect(normaliseParameterNames({ filepath: 'a', path: 'b' }, ['path', 'file_path'])).toMatchObject({ value: { path: 'b', file_path: 'a' } });
    expect(normaliseParameterNames({ file_path: 'a' }, ['path', 'dir_path'])).toMatchObject({ value: { path: 'a' } });
    expect(normaliseParameterNames({ file_path: 'a' }, ['path', 'filepath'])).toMatchObject({ value: { filepath: 'a' } });
  });

  it('keeps names it does not know when asked (an MCP server decides), dropping only a second spelling of a given one', () => {
    expect(normaliseParameterNames({ Query: 'x', extra: 1, query: 'y' }, ['query'], {}, true)).toEqual({
      value: { query: 'y', extra: 1 },
      renamed: [],
      ignored: ['Query', 'extra'],
    });
    const proto = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const kept = normaliseParameterNames(proto, [], {}, true).value;
    expect(Object.keys(kept)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('every alias of a built-in tool names one of its parameters, and no alias is a parameter of the same tool', () => {
    for (const tool of BUILTIN_TOOLS) {
      const fields = Object.keys(tool.schema.shape);
      for (const [alias, target] of Object.entries(tool.aliases ?? {})) {
        expect(fields).toContain(target);
        expect(fields).not.toContain(alias);
      }
    }
  });
});

describe('coerceToType', () => {
  it('reads numbers and booleans sent as strings, by the declared type', () => {
    expect(coerceToType('integer', '3')).toBe(3);
    expect(coerceToType('integer', ' 10 ')).toBe(10);
    expect(coerceToType('integer', '3.5')).toBeUndefined();
    expect(coerceToType('number', '3.5')).toBe(3.5);
    expect(coerceToType('boolean', 'TRUE')).toBe(true);
    expect(coerceToType('boolean', 'false')).toBe(false);
    expect(coerceToType('boolean', 1)).toBe(true);
    expect(coerceToType('string', 42)).toBe('42');
  });

  it('reads arrays and objects sent as JSON text, and nothing else, for those types', () => {
    expect(coerceToType('array', '["a", 1]')).toEqual(['a', 1]);
    expect(coerceToType('object', ' {"a": {"b": 2}} ')).toEqual({ a: { b: 2 } });
    expect(coerceToType('array', '{"a": 1}')).toBeUndefined();
    expect(coerceToType('object', "{'a': 1}")).toBeUndefined();
    expect(coerceToType('array', 'a, b')).toBeUndefined();
  });

  it('refuses what is not the type', () => {
    expect(coerceToType('integer', 'ten')).toBeUndefined();
    expect(coerceToType('integer', '')).toBeUndefined();
    expect(coerceToType('boolean', 'yes')).toBeUndefined();
    expect(coerceToType('string', { a: 1 })).toBeUndefined();
    expect(coerceToType('number', 'Infinity')).toBeUndefined();
  });
});
