/**
 * Properties of the model-facing MCP tool names: whatever servers and tools a client configures,
 * the names are valid for every provider, unique, never a built-in, and stable.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mcpToolNames } from '../../../src/tools/mcp/mcp-names.js';

const BUILT_INS = ['read_file', 'write_file', 'edit_file', 'list_directory', 'search_files', 'run_command'];
const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

/** Names from a small alphabet clash often; full Unicode and long strings exercise the cuts. */
const part = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', '_', '-', '.', ' '), maxLength: 6 }),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.string({ maxLength: 120 }),
);
const entries = fc.array(fc.record({ server: part, tool: part }), { maxLength: 60 });
/** Reserved names: the built-ins, plus names shaped like ours to force clashes. */
const reserved = fc
  .array(fc.oneof(fc.constantFrom(...BUILT_INS), fc.constantFrom('a__b', 'a__b_2', '__', '___2', 'a__a')), { maxLength: 8 })
  .map((extra) => new Set([...BUILT_INS, ...extra]));

describe('mcpToolNames properties', () => {
  it('always matches ^[a-zA-Z0-9_-]{1,64}$, one name per entry', () => {
    fc.assert(
      fc.property(entries, reserved, (list, taken) => {
        const names = mcpToolNames(list, taken);
        expect(names).toHaveLength(list.length);
        for (const name of names) expect(name).toMatch(VALID);
      }),
      { numRuns: 500 },
    );
  });

  it('is always unique and never a reserved name', () => {
    fc.assert(
      fc.property(entries, reserved, (list, taken) => {
        const names = mcpToolNames(list, taken);
        expect(new Set(names).size).toBe(names.length);
        for (const name of names) expect(taken.has(name)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('is deterministic, and a prefix of the list keeps its names', () => {
    fc.assert(
      fc.property(entries, reserved, fc.nat(), (list, taken, cut) => {
        const names = mcpToolNames(list, taken);
        expect(mcpToolNames(list, new Set(taken))).toEqual(names);
        const k = list.length === 0 ? 0 : cut % (list.length + 1);
        expect(mcpToolNames(list.slice(0, k), taken)).toEqual(names.slice(0, k));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a valid, short, unclashing name as <server>__<tool>', () => {
    const simple = fc.stringMatching(/^[a-z][a-z0-9_-]{0,20}$/);
    fc.assert(
      fc.property(simple, simple, (server, tool) => {
        expect(mcpToolNames([{ server, tool }], new Set(BUILT_INS))).toEqual([`${server}__${tool}`]);
      }),
    );
  });
});
