import { describe, expect, it } from 'vitest';
import { toChatTool } from '../../../src/tools/builtin/builtin-tools.js';
import { BUILTIN_TOOLS, builtinTool } from '../../../src/tools/builtin/registry.js';

/** The request entries of the built-in tools, in offering order (or of the ones named). */
const builtinChatTools = (names?: string[]) => BUILTIN_TOOLS.filter((tool) => !names || names.includes(tool.name)).map(toChatTool);

describe('built-in tool definitions', () => {
  it('offers the tools of the registry in its order, with names valid on every provider', () => {
    const tools = builtinChatTools();
    const first = ['read_file', 'write_file', 'edit_file', 'list_directory', 'search_files', 'run_command', 'fetch_url'];
    expect(tools.map((t) => t.function.name).filter((name) => first.includes(name))).toEqual(first);
    for (const tool of tools) {
      expect(tool.type).toBe('function');
      expect(tool.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.function.parameters.type).toBe('object');
      expect(tool.function).not.toHaveProperty('strict');
      for (const required of tool.function.parameters.required) expect(tool.function.parameters.properties).toHaveProperty(required);
    }
  });

  it('gives the tools of the issues exactly their parameters, with the required ones', () => {
    const shape = Object.fromEntries(
      builtinChatTools().map((t) => [t.function.name, [Object.keys(t.function.parameters.properties), t.function.parameters.required]]),
    );
    expect(shape).toMatchObject({
      read_file: [['path', 'offset', 'limit'], ['path']],
      write_file: [
        ['path', 'content'],
        ['path', 'content'],
      ],
      edit_file: [
        ['path', 'old_string', 'new_string', 'replace_all'],
        ['path', 'old_string', 'new_string'],
      ],
      list_directory: [['path'], []],
      search_files: [['pattern', 'path', 'glob'], []],
      run_command: [['command', 'cwd', 'timeout_ms'], ['command']],
      fetch_url: [['url'], ['url']],
    });
    const read = builtinChatTools(['read_file'])[0]!;
    expect(read.function.parameters.properties.offset).toEqual({ type: 'integer', description: 'First line to read, 1-based. Default 1.' });
    expect(JSON.stringify(builtinChatTools())).not.toMatch(/minimum|additionalProperties|strict/);
    expect(builtinChatTools(['edit_file'])[0]!.function.parameters.properties.replace_all!.type).toBe('boolean');
  });

  it('gives kinds and permissions', () => {
    expect(Object.fromEntries(BUILTIN_TOOLS.map((t) => [t.name, [t.kind, t.permission]]))).toMatchObject({
      read_file: ['read', 'reads'],
      write_file: ['edit', 'edits'],
      edit_file: ['edit', 'edits'],
      list_directory: ['search', 'reads'],
      search_files: ['search', 'reads'],
      run_command: ['execute', 'runs'],
      fetch_url: ['fetch', 'fetches'],
    });
  });

  it('knows its names', () => {
    expect(builtinTool('read_file').name).toBe('read_file');
    expect(() => builtinTool('nope' as never)).toThrow(/not a built-in tool/);
  });
});
