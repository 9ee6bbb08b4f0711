import { describe, expect, it } from 'vitest';
import { parseMcpArguments } from '../../../src/tools/mcp/mcp-arguments.js';

describe('parseMcpArguments', () => {
  it('passes any JSON object through as is (the server checks it)', () => {
    expect(parseMcpArguments('fx__echo', '{"text":"hi","n":[1,{"a":null}]}')).toEqual({ ok: true, args: { text: 'hi', n: [1, { a: null }] } });
  });
  it('reads empty, null and twice-encoded arguments', () => {
    expect(parseMcpArguments('fx__ping', '')).toEqual({ ok: true, args: {} });
    expect(parseMcpArguments('fx__ping', ' null ')).toEqual({ ok: true, args: {} });
    expect(parseMcpArguments('fx__echo', JSON.stringify('{"text":"x"}'))).toEqual({ ok: true, args: { text: 'x' } });
  });
  it('explains invalid JSON and non-objects, naming the tool and quoting (bounded) what was sent', () => {
    const bad = parseMcpArguments('fx__echo', '{"text": 1} {"text": 2}');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^fx__echo: the arguments are not valid JSON .*You sent: \{"text": 1\} \{"text": 2\}$/);
    // Cut off: never passed to the server, even though a repair could close it.
    const cut = parseMcpArguments('fx__echo', '{"text": "hel');
    expect(!cut.ok && cut.error).toMatch(/^fx__echo: this call was cut off/);
    // Almost-JSON is repaired, with a note.
    expect(parseMcpArguments('fx__echo', "{'text': 'x',}")).toMatchObject({ ok: true, args: { text: 'x' }, notes: [expect.stringContaining('were repaired')] });
    const array = parseMcpArguments('fx__echo', '[1]');
    expect(!array.ok && array.error).toMatch(/must be a JSON object/);
    const long = parseMcpArguments('fx__echo', `"${'x'.repeat(500)}"`);
    expect(!long.ok && long.error).toMatch(/…\(302 more characters\)$/);
  });
});
