import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toChatTool } from '../../../src/tools/builtin/builtin-tools.js';
import { BUILTIN_TOOLS } from '../../../src/tools/builtin/registry.js';
import { builtin } from '../../../test/helpers/builtin-tool.js';

const tool = fc.constantFrom(...BUILTIN_TOOLS);
/** The check as the runner makes it, for a call of the built-in tool `t`. */
const checkArguments = (t: (typeof BUILTIN_TOOLS)[number], raw: unknown) => builtin(t.name).check(raw, false);
const key = fc.oneof(
  fc.constantFrom(
    'path',
    'offset',
    'limit',
    'content',
    'old_string',
    'new_string',
    'replace_all',
    'pattern',
    'glob',
    'command',
    'cwd',
    'timeout_ms',
    'url',
    '__proto__',
    'toString',
  ),
  fc.string({ maxLength: 8 }),
);
const value = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('7', ' 3 ', 'true', 'FALSE', '1.0', '-2'),
  fc.array(fc.integer(), { maxLength: 2 }),
);
const args = fc.dictionary(key, value, { maxKeys: 6 });

describe('checkArguments properties', () => {
  it("never throws, and what passes holds only the schema's fields, each of its declared type", () => {
    fc.assert(
      fc.property(
        tool,
        fc.oneof(
          args.map((a) => JSON.stringify(a)),
          fc.string({ maxLength: 40 }),
          args,
        ),
        (t, raw) => {
          const result = checkArguments(t, raw);
          if (!result.ok) {
            expect(result.error.startsWith(`${t.name}: `)).toBe(true);
            return;
          }
          const { properties, required } = toChatTool(t).function.parameters;
          for (const field of required) expect(result.args).toHaveProperty(field);
          for (const [field, given] of Object.entries(result.args)) {
            expect(Object.hasOwn(properties, field)).toBe(true);
            const type = properties[field]!.type;
            if (type === 'integer') expect(Number.isSafeInteger(given)).toBe(true);
            else expect(typeof given).toBe(type);
          }
        },
      ),
    );
  });

  it('checking what passed again gives the same arguments and nothing to note', () => {
    fc.assert(
      // Every required field present, so most calls pass and the property is about the coercions.
      fc.property(tool, args, (t, a) => {
        const first = checkArguments(t, { path: 'a', content: 'c', old_string: 'o', new_string: 'n', pattern: 'p', command: 'ls', url: 'u', ...a });
        fc.pre(first.ok);
        expect(checkArguments(t, first.ok ? first.args : {})).toEqual({ ok: true, args: first.ok ? first.args : {}, notes: [] });
      }),
    );
  });
});
