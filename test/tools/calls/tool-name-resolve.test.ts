import { describe, expect, it } from 'vitest';
import { resolveToolName, stripTemplateLeaks } from '../../../src/tools/calls/tool-name-resolve.js';

const BUILTIN = ['read_file', 'write_file', 'edit_file', 'list_directory', 'search_files', 'run_command', 'update_plan'];

describe('tool names as models really send them', () => {
  it('takes off what chat templates leak', () => {
    // ollama/ollama#12132: gpt-oss:20b sent `create_event<|channel|>analysis`.
    expect(stripTemplateLeaks('create_event<|channel|>analysis')).toBe('create_event');
    expect(stripTemplateLeaks('read_file<|channel|>commentary')).toBe('read_file');
    // kekzl/imp#1716: the raw Harmony header of a gpt-oss call.
    expect(stripTemplateLeaks('commentary to=functions.get_weather <|constrain|>json')).toBe('get_weather');
    expect(stripTemplateLeaks('<|start|>assistant<|channel|>commentary to=functions.read_file')).toBe('read_file');
    // tontinton/maki#518: `functions.<name>`.
    expect(stripTemplateLeaks('functions.read_file')).toBe('read_file');
    expect(stripTemplateLeaks('tools.functions.run_command')).toBe('run_command');
    expect(stripTemplateLeaks('<|constrain|>edit_file')).toBe('edit_file');
  });

  it('resolves a leaked name to the offered tool, MCP tools included', () => {
    expect(resolveToolName('read_file<|channel|>commentary', BUILTIN)).toEqual({ name: 'read_file', how: 'leak' });
    const offered = [...BUILTIN, 'github__create_issue'];
    expect(resolveToolName('functions.github__create_issue', offered, new Set(['github__create_issue']))).toEqual({
      name: 'github__create_issue',
      how: 'leak',
    });
  });

  it('matches case, camel, kebab and snake spellings only when exactly one offered name fits', () => {
    expect(resolveToolName('readFile', BUILTIN)).toEqual({ name: 'read_file', how: 'loose' });
    expect(resolveToolName('Read-File', BUILTIN)).toEqual({ name: 'read_file', how: 'loose' });
    expect(resolveToolName('functions.RunCommand<|channel|>commentary', BUILTIN)).toEqual({ name: 'run_command', how: 'loose' });
    // Two offered names fold to the same key: none is taken.
    expect(resolveToolName('readfile', [...BUILTIN, 'readFile2', 'ReadFile'])).toBeUndefined();
  });

  it('never matches MCP tools loosely (another server may have the near name), and never guesses other names', () => {
    const mcp = new Set(['files__read_file']);
    expect(resolveToolName('filesReadFile', ['files__read_file'], mcp)).toBeUndefined();
    expect(resolveToolName('Read', BUILTIN)).toBeUndefined();
    expect(resolveToolName('', BUILTIN)).toBeUndefined();
    expect(resolveToolName('<|channel|>', BUILTIN)).toBeUndefined();
  });

  it('finds an MCP tool by its own name without the server prefix, when exactly one offered tool has it', () => {
    const offered = [...BUILTIN, 'QuickJS__execute_javascript', 'docs__search', 'web__search'];
    const mcp = new Set(offered.filter((name) => name.includes('__')));
    expect(resolveToolName('execute_javascript', offered, mcp)).toEqual({ name: 'QuickJS__execute_javascript', how: 'unprefixed' });
    expect(resolveToolName('functions.execute_javascript<|channel|>commentary', offered, mcp)).toEqual({
      name: 'QuickJS__execute_javascript',
      how: 'unprefixed',
    });
    // Two servers have a `search`: neither is guessed.
    expect(resolveToolName('search', offered, mcp)).toBeUndefined();
    expect(resolveToolName('javascript', offered, mcp)).toBeUndefined();
  });

  it('finds an MCP tool by the server\'s own spelling of its name, spaces and all (LM Studio\'s "Web Search")', () => {
    const offered = [...BUILTIN, 'wc__Web_Search', 'docs__Web-Index'];
    const mcp = new Set(offered.filter((name) => name.includes('__')));
    expect(resolveToolName('Web Search', offered, mcp)).toEqual({ name: 'wc__Web_Search', how: 'unprefixed' });
    expect(resolveToolName('commentary to=functions.Web Search', offered, mcp)).toEqual({ name: 'wc__Web_Search', how: 'unprefixed' });
    expect(resolveToolName('Web.Search', offered, mcp)).toEqual({ name: 'wc__Web_Search', how: 'unprefixed' });
    expect(resolveToolName('Web Index', offered, mcp)).toBeUndefined();
  });

  it('an offered name is taken as sent, even when it looks like a leak', () => {
    expect(resolveToolName('functions.read', ['functions.read'])).toEqual({ name: 'functions.read', how: 'exact' });
  });
});
