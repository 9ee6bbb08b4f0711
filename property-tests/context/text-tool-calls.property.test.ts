/**
 * Properties of text tool-call parsing and the streaming hold-back: ordinary text is never a
 * call; calls written in any recognised form read back as the same calls; every prefix of such a
 * text is held; and once a prefix is let go, no longer text is held again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mayBeTextToolCall, parseTextToolCalls } from '../../src/context/text-tool-calls.js';

const names = ['read_file', 'write_file', 'run_command', 'search_files'];
const offered = new Set(names);

/** Arguments whose values survive every form (XML values that do not look like JSON). */
const word = fc.stringMatching(/^[a-z][a-z ._/-]{0,15}$/).filter((s) => !['true', 'false', 'null'].includes(s.trim()));
const args = fc.dictionary(
  fc.stringMatching(/^[a-z_]{1,10}$/),
  fc.oneof(word, fc.integer(), fc.boolean(), fc.constant(null), fc.dictionary(word, fc.integer(), { maxKeys: 2 })),
  { maxKeys: 4 },
);
const calls = fc.array(fc.record({ name: fc.constantFrom(...names), args }), { minLength: 1, maxLength: 3 });

type Call = { name: string; args: Record<string, unknown> };
const FORMS = [
  'tool_call-json',
  'tool_call-json-string-args',
  'tool_call-xml',
  'xml',
  'json',
  'json-parameters',
  'json-array',
  'json-lines',
  'json-wrapped',
] as const;

function write(form: (typeof FORMS)[number], list: Call[]): string {
  const xml = (c: Call) =>
    `<function=${c.name}>\n${Object.entries(c.args)
      .map(([k, v]) => `<parameter=${k}>\n${typeof v === 'string' ? v : JSON.stringify(v)}\n</parameter>\n`)
      .join('')}</function>`;
  switch (form) {
    case 'tool_call-json':
      return list.map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.args })}\n</tool_call>`).join('\n');
    case 'tool_call-json-string-args':
      return list.map((c) => `<tool_call>${JSON.stringify({ name: c.name, arguments: JSON.stringify(c.args) })}</tool_call>`).join('\n');
    case 'tool_call-xml':
      return list.map((c) => `<tool_call>\n${xml(c)}\n</tool_call>`).join('\n');
    case 'xml':
      return list.map(xml).join('\n');
    case 'json':
      return JSON.stringify({ name: list[0]!.name, arguments: list[0]!.args }, null, 1);
    case 'json-parameters':
      return JSON.stringify({ name: list[0]!.name, parameters: list[0]!.args });
    case 'json-array':
      return JSON.stringify(list.map((c) => ({ name: c.name, arguments: c.args })));
    case 'json-lines':
      return list.map((c) => JSON.stringify({ name: c.name, arguments: c.args })).join('\n');
    case 'json-wrapped':
      return JSON.stringify({ type: 'function', function: { name: list[0]!.name, parameters: list[0]!.args } });
  }
}
const singleOnly = new Set(['json', 'json-parameters', 'json-wrapped']);

describe('text tool calls', () => {
  it('text without <, { or [ is never read as calls', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 80 }).filter((s) => !/[<{[]/.test(s)),
        (text) => {
          expect(parseTextToolCalls(text, offered)).toBeUndefined();
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('calls written in any recognised form (fenced or not, padded) read back as the same calls', () => {
    fc.assert(
      fc.property(calls, fc.constantFrom(...FORMS), fc.boolean(), fc.constantFrom('', ' ', '\n', '\n\n  '), (list, form, fenced, pad) => {
        const used = singleOnly.has(form) ? list.slice(0, 1) : list;
        const body = write(form, used);
        const text = pad + (fenced ? '```json\n' + body + '\n```' : body) + pad;
        const parsed = parseTextToolCalls(text, offered);
        expect(parsed?.map((c) => ({ name: c.name, args: JSON.parse(c.arguments) as unknown }))).toEqual(used);
        // Every prefix is held back while streaming.
        for (let i = 0; i <= text.length; i += 1 + (i % 7)) expect(mayBeTextToolCall(text.slice(0, i), offered)).toBe(true);
        // The same text naming a tool that was not offered is not a call.
        expect(parseTextToolCalls(text, new Set(names.filter((n) => n !== used[0]!.name)))).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('once a prefix is let go, no longer text is held', () => {
    const chars = fc.constantFrom(
      '<',
      '>',
      '{',
      '}',
      '[',
      ']',
      '"',
      ':',
      '`',
      ' ',
      '\n',
      't',
      'o',
      'l',
      '_',
      'c',
      'a',
      'f',
      'u',
      'n',
      '=',
      'j',
      's',
      'm',
      'e',
      'r',
    );
    const text = fc.oneof(
      fc.array(chars, { maxLength: 30 }).map((cs) => cs.join('')),
      fc
        .constantFrom('<tool_call>', '<function=', '```json\n', '{"name"', '[{"', '{"function"')
        .chain((start) => fc.array(chars, { maxLength: 20 }).map((cs) => start + cs.join(''))),
    );
    fc.assert(
      fc.property(text, fc.boolean(), (t, withNames) => {
        const names = withNames ? offered : undefined;
        let released = false;
        for (let i = 0; i <= t.length; i++) {
          const held = mayBeTextToolCall(t.slice(0, i), names);
          if (released) expect(held, JSON.stringify(t.slice(0, i))).toBe(false);
          if (!held) released = true;
        }
      }),
      { numRuns: 2000 },
    );
  });
});
