/**
 * Properties of the reader of calls written as text and of its streaming hold: calls written in
 * any format, after any prose, read back as the same calls with the same values; text without a
 * marker is never a call; any text, however broken, is read without throwing and within the
 * bound; while streaming, whatever the split, what is shown is the prose before the call and
 * nothing of the call.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_CALLS_PER_ANSWER, readTextCalls } from '../../../../src/tools/calls/text/read-text-calls.js';
import { TextCallHold } from '../../../../src/tools/calls/text/text-call-hold.js';

const NAMES = ['read_file', 'write_file', 'run_command'];
const STRING_SCHEMA = { type: 'string' };
/** Every parameter a string, so the XML formats (text values) carry the same values as the JSON ones. */
const tools = new Map(NAMES.map((name) => [name, { a: STRING_SCHEMA, b: STRING_SCHEMA, c: STRING_SCHEMA }]));

/** Any string value, quotes, backslashes, line breaks and markers included. */
const anyText = fc.string({ unit: 'grapheme', maxLength: 30 });
/** Values the XML and pythonic forms carry exactly: no leading or trailing whitespace, no tag or quote characters. */
const plainText = fc.stringMatching(/^[A-Za-z0-9_./:-][A-Za-z0-9 _./:,-]{0,18}[A-Za-z0-9_./:-]$/);
type Call = { name: string; args: Record<string, string> };
const calls = (value: fc.Arbitrary<string>) =>
  fc.array(fc.record({ name: fc.constantFrom(...NAMES), args: fc.dictionary(fc.constantFrom('a', 'b', 'c'), value, { maxKeys: 3 }) }), {
    minLength: 1,
    maxLength: 3,
  });

const json = (c: Call) => JSON.stringify(c.args);
/** Writers of each format, and whether the format carries any string (JSON) or only plain ones. */
const WRITERS: Record<string, { write: (list: Call[]) => string; anyString: boolean }> = {
  hermes: { write: (l) => l.map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.args })}\n</tool_call>`).join('\n'), anyString: true },
  'qwen-xml': {
    write: (l) =>
      l
        .map(
          (c) =>
            `<tool_call>\n<function=${c.name}>\n${Object.entries(c.args)
              .map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`)
              .join('')}</function>\n</tool_call>`,
        )
        .join('\n'),
    anyString: false,
  },
  glm: {
    write: (l) =>
      l
        .map(
          (c) =>
            `<tool_call>${c.name}\n${Object.entries(c.args)
              .map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${v}</arg_value>\n`)
              .join('')}</tool_call>`,
        )
        .join(''),
    anyString: false,
  },
  mistral: { write: (l) => l.map((c) => `[TOOL_CALLS]${c.name}[ARGS]${json(c)}`).join(''), anyString: true },
  'mistral-legacy': { write: (l) => `[TOOL_CALLS]${JSON.stringify(l.map((c) => ({ name: c.name, arguments: c.args })))}`, anyString: true },
  harmony: {
    write: (l) => l.map((c) => `<|start|>assistant<|channel|>commentary to=functions.${c.name} <|constrain|>json<|message|>${json(c)}<|call|>`).join(''),
    anyString: true,
  },
  deepseek: {
    write: (l) =>
      `<｜tool▁calls▁begin｜>${l.map((c) => `<｜tool▁call▁begin｜>${c.name}<｜tool▁sep｜>${json(c)}<｜tool▁call▁end｜>`).join('')}<｜tool▁calls▁end｜>`,
    anyString: true,
  },
  granite: { write: (l) => `<|tool_call|>${JSON.stringify(l.map((c) => ({ name: c.name, arguments: c.args })))}`, anyString: true },
  pythonic: {
    write: (l) =>
      `<|tool_call_start|>[${l
        .map(
          (c) =>
            `${c.name}(${Object.entries(c.args)
              .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
              .join(', ')})`,
        )
        .join(', ')}]<|tool_call_end|>`,
    anyString: true,
  },
};

/** Prose without any marker's characters (no `<`, `[`, `{`, backticks, `to=`). */
const prose = fc.stringMatching(/^[A-Za-z][A-Za-z ,.!?'\n]{0,40}[.!?]$/).filter((p) => !/to=|commentary|call:/.test(p));

describe('the reader of calls written as text', () => {
  it('calls in any format, after any prose, read back as the same calls with the same values', () => {
    const format = fc.constantFrom(...Object.keys(WRITERS));
    const written = format.chain((f) => fc.tuple(fc.constant(f), calls(WRITERS[f]!.anyString ? anyText : plainText), fc.option(prose, { nil: undefined })));
    fc.assert(
      fc.property(written, ([f, list, before]) => {
        const text = `${before ? `${before}\n\n` : ''}${WRITERS[f]!.write(list)}`;
        const read = readTextCalls(text, tools);
        expect(read.calls.map((c) => ({ name: c.name, args: JSON.parse(c.arguments) }))).toEqual(list);
        expect(read.prose).toBe(before ?? '');
      }),
      { numRuns: 600 },
    );
  });

  it('text without a marker, a bracket or a brace is never a call', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 80 }).filter((s) => !/[<[{(`]|to=|call:/.test(s)),
        (text) => {
          expect(readTextCalls(text, tools).calls).toEqual([]);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('any text, markers and fragments of calls included, is read without throwing and within the bound', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom(
        '<tool_call>',
        '</tool_call>',
        '<function=read_file>',
        '<parameter=a>',
        '[TOOL_CALLS]',
        '[ARGS]',
        '{"name": "read_file"',
        ', "arguments": {',
        '}',
        ']',
        '"',
        "'",
      ),
      fc.constantFrom(
        '<|channel|>commentary to=functions.read_file',
        '<|message|>',
        '<｜tool▁call▁begin｜>',
        '<｜tool▁sep｜>',
        '<arg_key>',
        '<arg_value>',
        '[read_file(',
        ')',
      ),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const read = readTextCalls(pieces.join(''), tools);
        expect(read.calls.length).toBeLessThanOrEqual(MAX_CALLS_PER_ANSWER);
        for (const call of read.calls) expect(typeof call.arguments).toBe('string');
      }),
      { numRuns: 1500 },
    );
  });
});

/** What the hold shows of `text` streamed in pieces of the sizes given (cycled); each push keeps `shownLength` in step. */
function streamed(text: string, sizes: readonly number[]): string {
  const hold = new TextCallHold(NAMES);
  let shown = '';
  for (let i = 0, k = 0; i < text.length; k++) {
    const size = sizes[k % sizes.length]!;
    shown += hold.push(text.slice(i, i + size));
    i += size;
    expect(hold.shownLength).toBe(shown.length);
  }
  return shown;
}

describe('the streaming hold', () => {
  it('whatever the split, what is shown is the prose before the call, and nothing of the call', () => {
    const format = fc.constantFrom(...Object.keys(WRITERS));
    const cuts = fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(format, calls(plainText), prose, cuts, (f, list, before, sizes) => {
        const text = `${before}\n\n${WRITERS[f]!.write(list)}`;
        const shown = streamed(text, sizes);
        expect(text.startsWith(shown)).toBe(true);
        expect(shown.trimEnd()).toBe(before);
      }),
      { numRuns: 500 },
    );
  });

  it('plain prose, however split, is all shown by the end of the stream', () => {
    fc.assert(
      fc.property(prose, fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 10 }), (text, sizes) => {
        expect(streamed(text, sizes)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});
