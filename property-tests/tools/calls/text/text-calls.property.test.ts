/**
 * Properties of the reader of calls written as text and of its streaming screen: calls written in
 * any format, after any prose, read back as the same calls with the same values; an answer cut
 * anywhere gives the meant values or a refusal; a key given twice is never read; text without a
 * marker is never a call; any text, however broken, is read without throwing and within the
 * bound; while streaming, whatever the split, what is shown is the prose before the call and
 * nothing of the call.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readArgumentsText } from '../../../../src/tools/calls/repair-arguments.js';
import { MAX_CALLS_PER_ANSWER, readTextCalls } from '../../../../src/tools/calls/text/read-text-calls.js';
import { textCallReader } from '../../../../src/tools/calls/text/text-calls.js';
import { TextCallScreen } from '../../../../src/tools/calls/text/text-call-screen.js';

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
  dsml: {
    write: (l) =>
      `<｜DSML｜tool_calls>\n${l
        .map(
          (c) =>
            `<｜DSML｜invoke name="${c.name}">\n${Object.entries(c.args)
              .map(([k, v]) => `<｜DSML｜parameter name="${k}" string="true">${v}</｜DSML｜parameter>\n`)
              .join('')}</｜DSML｜invoke>\n`,
        )
        .join('')}</｜DSML｜tool_calls>`,
    anyString: false,
  },
  react: { write: (l) => l.map((c) => `Action: ${c.name}\nAction Input: ${json(c)}`).join('\n'), anyString: true },
  'gemma-paren': {
    write: (l) =>
      l
        .map(
          (c) =>
            `<|tool_call>call:${c.name}(${Object.entries(c.args)
              .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
              .join(', ')})<tool_call|>`,
        )
        .join(''),
    anyString: false,
  },
  step3: {
    write: (l) =>
      `<｜tool_calls_begin｜>${l
        .map(
          (c) =>
            `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="${c.name}">${Object.entries(c.args)
              .map(([k, v]) => `<steptml:parameter name="${k}">${v}</steptml:parameter>`)
              .join('')}</steptml:invoke><｜tool_call_end｜>`,
        )
        .join('')}<｜tool_calls_end｜>`,
    anyString: false,
  },
  'tool-name-keys': {
    write: (l) => l.map((c) => `<tool_call>\n${JSON.stringify({ tool_name: c.name, tool_arguments: c.args })}\n</tool_call>`).join('\n'),
    anyString: true,
  },
};

/** Formats that are calls only as the whole answer (no marker): Llama 3.2's `;`-joined envelopes. */
const WHOLE_WRITERS: Record<string, (list: Call[]) => string> = {
  'llama-semicolon': (l) => l.map((c) => `; ${JSON.stringify({ name: c.name, parameters: c.args })}`).join(''),
  'bare-list': (l) => JSON.stringify(l.map((c) => ({ name: c.name, arguments: c.args }))),
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

  it('calls that are the whole answer, in the forms without a marker, read back the same', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(WHOLE_WRITERS)), calls(anyText), (f, list) => {
        const read = readTextCalls(WHOLE_WRITERS[f]!(list), tools);
        expect(read.calls.map((c) => ({ name: c.name, args: JSON.parse(c.arguments) }))).toEqual(list);
      }),
      { numRuns: 300 },
    );
  });

  it('the meant value or a refusal: an answer cut anywhere never runs a call with other values', () => {
    const definitions = NAMES.map((name) => ({
      type: 'function' as const,
      function: { name, description: '', parameters: { type: 'object' as const, properties: tools.get(name)!, required: [] } },
    }));
    const reader = textCallReader(definitions);
    const format = fc.constantFrom('hermes', 'mistral', 'deepseek', 'granite', 'harmony', 'dsml', 'react', 'tool-name-keys');
    fc.assert(
      fc.property(format, calls(plainText), fc.double({ min: 0, max: 1, noNaN: true }), (f, list, at) => {
        const whole = WRITERS[f]!.write(list);
        const read = reader.read(whole.slice(0, Math.floor(whole.length * at)));
        for (const [i, call] of read.calls.entries()) {
          // Refused here, or by the argument check (arguments that are no JSON); else exactly what was meant.
          if (call.refusal) continue;
          let args: unknown;
          try {
            args = JSON.parse(call.arguments);
          } catch {
            continue;
          }
          expect({ name: call.name, args }).toEqual(list[i]);
        }
      }),
      { numRuns: 800 },
    );
  });

  it('a key or keyword given twice with different values is never read as either', () => {
    fc.assert(
      fc.property(plainText, plainText, (x, y) => {
        fc.pre(x !== y);
        const pythonic = readTextCalls(`[read_file(a=${JSON.stringify(x)}, a=${JSON.stringify(y)})]`, tools).calls[0];
        expect(pythonic?.problem).toContain('given twice');
        const xml = readTextCalls(
          `<tool_call>\n<function=read_file>\n<parameter=a>\n${x}\n</parameter>\n<parameter=a>\n${y}\n</parameter>\n</function>\n</tool_call>`,
          tools,
        ).calls[0];
        expect(xml?.problem).toContain('given twice');
        expect(readArgumentsText(`{"a": ${JSON.stringify(x)}, "a": ${JSON.stringify(y)}}`).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('text without a marker, a bracket or a brace is never a call', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 80 }).filter((s) => !/[<[{(`;]|to=|call:|Action:|functools|function call/.test(s)),
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

/** What the screen shows of `text` streamed in pieces of the sizes given (cycled); each push keeps `shownLength` in step. */
function streamed(text: string, sizes: readonly number[]): string {
  const screen = new TextCallScreen(NAMES);
  let shown = '';
  for (let i = 0, k = 0; i < text.length; k++) {
    const size = sizes[k % sizes.length]!;
    shown += screen.push(text.slice(i, i + size));
    i += size;
    expect(screen.shownLength).toBe(shown.length);
  }
  return shown;
}

describe('the streaming screen', () => {
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
