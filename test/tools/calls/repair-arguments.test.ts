import { describe, expect, it } from 'vitest';
import { cutOffMessage, MAX_ARGUMENT_DEPTH, readArgumentsText } from '../../../src/tools/calls/repair-arguments.js';

describe('readArgumentsText: what small models really send', () => {
  const repairs: [string, string, unknown][] = [
    // anomalyco/opencode#1264 (Qwen3 Coder via OpenRouter), cubist38/mlx-openai-server#124 (MiniMax M2.1): single quotes.
    ['single quotes', "{'filePath': '/Users/me/src/search.constant.js'}", { filePath: '/Users/me/src/search.constant.js' }],
    // QwenLM/qwen-code#288: a list in single quotes inside otherwise double-quoted JSON.
    ['mixed quotes', `{"paths": ['app.py', "b.py"]}`, { paths: ['app.py', 'b.py'] }],
    // huggingface/chat-ui#1229: "The model likes to return trailing commas on the tool calls".
    ['a trailing comma', '{"path": "a.py", "limit": 10,}', { path: 'a.py', limit: 10 }],
    // yigit353/langchain-qwq#30: "the args parameter contains an extra closing curly brace".
    ['an extra closing brace', '{"path": "a.py"}}', { path: 'a.py' }],
    // OpenHands/software-agent-sdk#2488 (Qwen3.5-Flash): backslash-n written between tokens.
    ['backslash-n between tokens', '{"command": "view", "view_range": \\n[2142, 2250]\\n\\n}', { command: 'view', view_range: [2142, 2250] }],
    ['Python literals', '{"path": "a", "replace_all": True, "offset": None}', { path: 'a', replace_all: true, offset: null }],
    ['a code fence', '```json\n{"path": "src/app.ts"}\n```', { path: 'src/app.ts' }],
    ['a comment', '{"path": "a.py" /* the file */}', { path: 'a.py' }],
    ['a raw line break inside a string', '{"content": "line 1\nline 2"}', { content: 'line 1\nline 2' }],
    ['quotes inside a string that were not escaped', '{"command": "echo "hi" there", "cwd": "."}', { command: 'echo "hi" there', cwd: '.' }],
    ['an apostrophe inside single quotes', "{'content': 'it's here'}", { content: "it's here" }],
    ['unquoted keys and a missing comma', '{path: "a" limit: 2}', { path: 'a', limit: 2 }],
  ];
  for (const [what, raw, value] of repairs) {
    it(`repairs ${what}, saying it was repaired`, () => {
      const read = readArgumentsText(raw);
      expect(read).toMatchObject({ ok: true, value });
      expect(read.ok && read.repaired).toEqual([expect.any(String), ...(read.ok ? (read.repaired ?? []).slice(1) : [])]);
    });
  }

  it('strict JSON is read as it is, with no repair said', () => {
    expect(readArgumentsText('{"path": "a"}')).toEqual({ ok: true, value: { path: 'a' } });
    expect(readArgumentsText('  ')).toEqual({ ok: true, value: {} });
    expect(readArgumentsText('"{\\"path\\": \\"a\\"}"')).toEqual({ ok: true, value: { path: 'a' } });
  });

  it('never turns a non-object into an object: plain text is refused, arrays stay what they are', () => {
    expect(readArgumentsText('please read the file')).toEqual({ ok: false, reason: 'the value please is not quoted' });
    expect(readArgumentsText('[1, 2,]')).toMatchObject({ ok: true, value: [1, 2] });
  });

  it('keeps backslashes that are no JSON escape as written, and reads a Windows path as written', () => {
    expect(readArgumentsText(String.raw`{"path": "c:\Users\me\notes.txt"}`)).toMatchObject({ ok: true, value: { path: String.raw`c:\Users\me\notes.txt` } });
    expect(readArgumentsText(String.raw`{"path": "\\server\share\new"}`)).toMatchObject({ ok: true, value: { path: String.raw`\\server\share\new` } });
    expect(readArgumentsText(String.raw`{"pattern": "\d+\.\w"}`)).toMatchObject({ ok: true, value: { pattern: String.raw`\d+\.\w` } });
    expect(readArgumentsText(String.raw`{'pattern': '\d+'}`)).toMatchObject({ ok: true, value: { pattern: String.raw`\d+` } });
  });

  it('refuses a string where a backslash may be meant either way, saying what to fix', () => {
    for (const raw of [String.raw`{"content": "x = /\d+/;\ny = 1"}`, String.raw`{"path": "c:\\Users\me"}`]) {
      const read = readArgumentsText(raw);
      expect(read).toMatchObject({ ok: false });
      expect(!read.ok && read.reason).toMatch(/write each backslash that is part of the text as \\\\$/);
      expect(!read.ok && read.truncated).toBeUndefined();
    }
  });

  it('escaped quotes before commas are read as escapes where ending the string there could not be read (code in a file written with raw line breaks)', () => {
    const code = Array.from({ length: 40 }, (_, i) => `print(\\"a${i}\\", x)`).join('\n');
    const read = readArgumentsText(`{"path": "a.py", "content": "${code}"}`);
    expect(read).toMatchObject({ ok: true, value: { path: 'a.py', content: code.replaceAll('\\"', '"') } });
    // Before the next key, a `\"` may still end the string: a Windows folder's last backslash.
    expect(readArgumentsText('{"path": "c:\\dir\\", "limit": 3,}')).toMatchObject({ ok: true, value: { path: 'c:\\dir\\', limit: 3 } });
  });

  it('a key written twice with different values is refused naming both; written twice alike it is one pair', () => {
    expect(readArgumentsText('{"path": "a", "path": "b"}')).toEqual({
      ok: false,
      reason: '"path" is written twice, as "a" and as "b"; write it once, with the value meant',
    });
    expect(readArgumentsText("{'path': 'a', 'path': 'b',}")).toMatchObject({ ok: false, reason: expect.stringContaining('"a" and as "b"') });
    expect(readArgumentsText('{"o": {"k": 1, "k": 2}}')).toMatchObject({ ok: false, reason: expect.stringContaining('"k" is written twice') });
    expect(readArgumentsText('{"path": "a", "path": "a"}')).toEqual({ ok: true, value: { path: 'a' } });
    // The same key in two objects is no duplicate.
    expect(readArgumentsText('{"a": {"k": 1}, "b": {"k": 2}, "k": 3}')).toMatchObject({ ok: true });
  });

  it('a key written a second time with the same value, the second broken, says what the first says', () => {
    expect(readArgumentsText('{"filePath": "/src/a.ts", "filePath": "/src/a.ts}')).toMatchObject({ ok: true, value: { filePath: '/src/a.ts' } });
    // A different value, or more after it, is no repeat.
    expect(readArgumentsText('{"filePath": "/src/a.ts", "filePath": "/src/b.ts}')).toMatchObject({ ok: false });
    expect(readArgumentsText('{"filePath": "/src/a.ts", "filePath": "/src/a.ts", "limit": 3')).toMatchObject({ ok: false });
  });

  it('one surplus closing bracket at the end is dropped; a missing one is added only after a nested value, and said so', () => {
    expect(readArgumentsText('{"name": "read_file", "arguments": {"path": "a"}}}')).toMatchObject({ ok: true, value: { name: 'read_file' } });
    expect(readArgumentsText('{"name": "read_file", "arguments": {"path": "a"}')).toMatchObject({ ok: true, closedAtEnd: true });
    expect(readArgumentsText('{"a": 1}}}')).toMatchObject({ ok: false });
    expect(readArgumentsText('{"a": {"b": 1}')).toMatchObject({ ok: true, closedAtEnd: true });
    expect(readArgumentsText('{"a": {"b": 1')).toMatchObject({ ok: false, truncated: true });
  });

  it('refuses what a repair would have to invent: an unquoted value, a missing value, a number JSON has not', () => {
    for (const raw of ['{"path": a.txt}', '{"limit": }', '{"limit": .5}', '{"limit": 0x10}', '{"a": NaN}']) expect(readArgumentsText(raw).ok, raw).toBe(false);
  });

  it('a call cut off inside a string, array or object is never read, even though a repair could close it', () => {
    for (const raw of ['{"path": "a.py", "content": "def f():\\n    ret', '{"path": "a.py", "entries": [1, 2', '{"path": "a.py"']) {
      expect(readArgumentsText(raw)).toEqual({ ok: false, truncated: true, reason: 'the arguments end inside a string, array or object' });
    }
  });

  it('a call of an answer stopped at its token limit is never read, even when it parses', () => {
    expect(readArgumentsText('{"path": "a.py", "content": "x"}', true)).toMatchObject({ ok: false, truncated: true });
    expect(cutOffMessage('fx__echo')).toBe(
      'fx__echo: this call was cut off before its arguments were complete (the answer reached its length limit), so it was not run. Send shorter arguments.',
    );
    expect(cutOffMessage('fx__echo', undefined, false)).toBe(
      'fx__echo: this call was cut off before its arguments were complete (the answer stopped inside the call), so it was not run. Send shorter arguments.',
    );
    expect(cutOffMessage('edit_file', 'Make smaller edits.')).toMatch(/so it was not run\. Make smaller edits\.$/);
  });

  it('the depth bound holds for an object sent as JSON text inside a string (decoded once more)', () => {
    const deep = JSON.stringify(`{"a": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    expect(readArgumentsText(deep)).toMatchObject({ ok: true, value: expect.any(String) });
  });

  it('bounds hold before any repair: a 5,000-deep value and a 10 MB broken text are refused, quickly and without a stack overflow', () => {
    const deep = `{"a": ${'['.repeat(5000)}${']'.repeat(5000)}}`;
    expect(readArgumentsText(deep)).toEqual({ ok: false, reason: `the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep` });
    const big = `{'content': '${'x'.repeat(10 * 1024 * 1024)}'}`;
    const read = readArgumentsText(big);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.truncated).toBeUndefined();
    // A big text that is valid JSON is still read.
    expect(readArgumentsText(JSON.stringify({ content: 'y'.repeat(2_000_000) }))).toMatchObject({ ok: true });
  });

  it('two objects glued together are not one call', () => {
    const read = readArgumentsText('{"a": 1} {"b": 2}');
    expect(read).toMatchObject({ ok: false });
    expect(!read.ok && read.reason).toMatch(/one JSON object is expected/);
  });
});
