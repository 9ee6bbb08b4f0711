import { describe, expect, it } from 'vitest';
import { baseToolName, fnv1a32, mcpToolNames } from '../../../src/tools/mcp/mcp-names.js';
import { sanitizeNamePart } from '../../../src/tools/calls/tool-name-resolve.js';

const BUILT_INS = new Set(['read_file', 'write_file', 'edit_file', 'list_directory', 'search_files', 'run_command']);

describe('MCP tool names', () => {
  it('joins server and tool with two underscores', () => {
    expect(mcpToolNames([{ server: 'github', tool: 'create_issue' }], BUILT_INS)).toEqual(['github__create_issue']);
  });

  it('replaces every character outside [a-zA-Z0-9_-] with _', () => {
    expect(sanitizeNamePart('my server.v2/é 🙂')).toBe('my_server_v2____');
    expect(mcpToolNames([{ server: 'My Files', tool: 'read.file' }], BUILT_INS)).toEqual(['My_Files__read_file']);
  });

  it('cuts long names to 64 characters with a 6-hex hash of the original names', () => {
    const long = { server: 'a-very-long-server-name-for-testing', tool: 'an_even_longer_tool_name_that_goes_past_the_limit' };
    const [name] = mcpToolNames([long], BUILT_INS);
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^a-very-long-server-name-for-testing__an_even_longer_tool_-[0-9a-f]{6}$/);
    expect(name!.slice(-6)).toBe(fnv1a32(`${long.server}\u0000${long.tool}`).slice(0, 6));
    // Two long names sharing their first 57 characters differ by the hash.
    const other = baseToolName({ ...long, tool: `${long.tool}_2` });
    expect(other).not.toBe(name);
    expect(other.slice(0, 57)).toBe(name!.slice(0, 57));
  });

  it('keeps a 64-character name whole', () => {
    const server = 's'.repeat(30);
    const tool = 't'.repeat(32);
    expect(mcpToolNames([{ server, tool }], BUILT_INS)).toEqual([`${server}__${tool}`]);
  });

  it('numbers names that sanitise alike, in list order', () => {
    expect(
      mcpToolNames(
        [
          { server: 'a', tool: 'x.y' },
          { server: 'a', tool: 'x_y' },
          { server: 'a', tool: 'x y' },
        ],
        BUILT_INS,
      ),
    ).toEqual(['a__x_y', 'a__x_y_2', 'a__x_y_3']);
  });

  it('never takes a reserved name', () => {
    expect(mcpToolNames([{ server: 'a', tool: 'b' }], new Set(['a__b', 'a__b_2']))).toEqual(['a__b_3']);
  });

  it('keeps a numbered long name within 64 characters', () => {
    const ref = { server: 'x'.repeat(40), tool: 'y'.repeat(40) };
    const names = mcpToolNames([ref, ref, ref], BUILT_INS);
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(64);
    expect(names[1]).toMatch(/_2$/);
  });

  it('hashes with FNV-1a 32 (known vectors)', () => {
    expect(fnv1a32('')).toBe('811c9dc5');
    expect(fnv1a32('a')).toBe('e40c292c');
    expect(fnv1a32('foobar')).toBe('bf9cf968');
  });
});
