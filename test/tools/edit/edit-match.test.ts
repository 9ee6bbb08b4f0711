import { describe, expect, it } from 'vitest';
import { applyEdit } from '../../../src/tools/edit/apply-edit.js';
import { matchEdit } from '../../../src/tools/edit/edit-match.js';

/** The file after an edit that must apply, with its note. */
function applied(text: string, old: string, replacement: string) {
  const result = applyEdit(text, old, replacement, false, 'f');
  if (!result.ok) throw new Error(`expected the edit to apply: ${result.error}`);
  return result;
}

describe('edit cascade: indentation', () => {
  // anthropics/claude-code#26996 (Go, gofmt tabs; the model wrote spaces) and charmbracelet/crush#3452.
  const go = 'func main() {\n\tif ok {\n\t\tfmt.Println("hi")\n\t}\n}\n';

  it('matches space-indented old_string in a tab-indented Go file and writes the replacement with tabs', () => {
    const result = applied(go, '    if ok {\n        fmt.Println("hi")\n    }', '    if ok {\n        fmt.Println("hello")\n        return\n    }');
    expect(result.text).toBe('func main() {\n\tif ok {\n\t\tfmt.Println("hello")\n\t\treturn\n\t}\n}\n');
    expect(result.note).toBe("old_string matched with different indentation at lines 2–4; new_string was re-indented to the file's (tabs)");
  });

  it('matches a block copied with less indentation (the whole block shifted) and shifts the replacement back', () => {
    // aider's editblock fallback "missing leading whitespace": the model drops the common indent.
    const py = 'class A:\n    def f(self):\n        if x:\n            return 1\n        return 2\n';
    const result = applied(py, 'if x:\n    return 1', 'if x:\n    return 3\nelse:\n    pass');
    expect(result.text).toBe('class A:\n    def f(self):\n        if x:\n            return 3\n        else:\n            pass\n        return 2\n');
  });

  it("keeps relative indentation when the model used 2 spaces for the file's 4", () => {
    const py = 'def f():\n    if a:\n        b()\n    c()\n';
    const result = applied(py, 'if a:\n  b()\nc()', 'if a:\n  b()\n  d()\nc()');
    expect(result.text).toBe('def f():\n    if a:\n        b()\n        d()\n    c()\n');
  });

  it('does not match when the relative indentation differs (a line at another depth)', () => {
    // opencode applied a block at the wrong indentation: here the structure differs, so nothing applies.
    const py = 'def f():\n    if a:\n        b()\n    c()\n';
    expect(matchEdit(py, 'if a:\n    b()\n    c()', 'x')).toEqual({ ok: false, reason: 'not_found' });
  });

  it('refuses an adapted replacement that would mix tabs and spaces, saying why', () => {
    // new_string puts a line 2 columns deeper: in a tab file that is half a tab.
    const result = applyEdit(go, '    if ok {\n        fmt.Println("hi")\n    }', '    if ok {\n      fmt.Println("hi")\n    }', false, 'main.go');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(
      /^Edit refused: old_string matched with different indentation at lines 2–4, but line 2 of new_string would mix tabs and spaces/,
    );
  });

  it('never applies an indentation match found twice: names the candidate lines', () => {
    const text = 'a:\n\tx = 1\n\ty = 2\nb:\n\tx = 1\n\ty = 2\n';
    const result = applyEdit(text, '  x = 1\n  y = 2', 'z', false, 'f');
    expect(result).toEqual({
      ok: false,
      error:
        'old_string was not found exactly in f; with different indentation it matches 2 places (lines 2, 5). Copy the exact text from one of them with a few more surrounding lines to make it unique.',
    });
  });

  it('keeps CRLF line ends in a re-indented replacement and changes no byte outside the block', () => {
    const text = 'head\r\n\tif x {\r\n\t\ty()\r\n\t}\r\ntail';
    const result = applied(text, '  if x {\n    y()\n  }', '  if x {\n    z()\n  }');
    expect(result.text).toBe('head\r\n\tif x {\r\n\t\tz()\r\n\t}\r\ntail');
  });
});

describe('edit cascade: trailing whitespace, line numbers, escapes, punctuation', () => {
  it('ignores trailing whitespace the model dropped', () => {
    // strands-agents/harness-sdk#3175: no trailing-whitespace tolerance made edits fail often.
    const result = applied('a = 1   \nb = 2\t\nc = 3\n', 'a = 1\nb = 2', 'a = 10\nb = 20');
    expect(result.text).toBe('a = 10\nb = 20\nc = 3\n');
    expect(result.note).toBe('old_string matched at lines 1–2 once trailing whitespace was ignored');
  });

  it('removes our own read_file prefixes ("12<TAB>") from old_string and new_string', () => {
    // xal-sh/xal#37 and #42: old_string copied from the read tool's numbered output.
    const text = 'one\ntwo\nthree\nfour\n';
    const result = applied(text, '2\ttwo\n3\tthree', '2\tTWO\n3\tthree');
    expect(result.text).toBe('one\nTWO\nthree\nfour\n');
    expect(result.note).toBe('the line-number prefixes of read_file were removed from old_string');
  });

  it('takes the prefixes off the new lines that have them when the model numbered only some', () => {
    expect(applied('one\ntwo\nthree\n', '2\ttwo\n3\tthree', '2\ttwo\nadded\n3\tthree').text).toBe('one\ntwo\nadded\nthree\n');
  });

  it('names the candidates when the text without its prefixes is in the file twice', () => {
    expect(applyEdit('x = 1\ny = 2\nx = 1\ny = 2\n', '1\tx = 1\n2\ty = 2', 'z', false, 'f')).toEqual({
      ok: false,
      error:
        'old_string was not found exactly in f; without its line-number prefixes it matches 2 places (lines 1, 3). Copy the exact text from one of them with a few more surrounding lines to make it unique.',
    });
  });

  it('does not take numbers that do not run consecutively for prefixes (TSV data)', () => {
    expect(matchEdit('id\tname\n1\tann\n', '1\tbob\n7\tcid', 'x')).toEqual({ ok: false, reason: 'not_found' });
  });

  it('an old_string whose prefixes are really in the file matches exactly', () => {
    const tsv = 'n\tv\n1\ta\n2\tb\n';
    expect(applied(tsv, '1\ta\n2\tb', '1\tA\n2\tB')).toMatchObject({ text: 'n\tv\n1\tA\n2\tB\n' });
    expect(applied(tsv, '1\ta\n2\tb', '1\tA\n2\tB').note).toBeUndefined();
  });

  it('reads \\n written as backslash-n as a line break when the file holds no literal \\n', () => {
    // openclaw/openclaw#14452 (literal \n written into files), OpenHands/software-agent-sdk#2488 (Qwen3.5).
    const py = 'def f():\n    return 1\n';
    const result = applied(py, 'def f():\\n    return 1', 'def f():\\n    return 2');
    expect(result.text).toBe('def f():\n    return 2\n');
    expect(result.note).toContain('\\n in old_string and new_string were read as the characters they stand for');
  });

  it('keeps \\n literal where the file holds it (a JavaScript string), so no literal is turned into a line break', () => {
    const js = 'const s = "a\\nb";\nlog(s);\n';
    expect(matchEdit(js, 'const t = "a\\nb";', 'x')).toEqual({ ok: false, reason: 'not_found' });
    expect(applied(js, 'const s = "a\\nb";', 'const s = "a\\nc";').text).toBe('const s = "a\\nc";\nlog(s);\n');
  });

  it("reads curly quotes and dashes as ASCII and writes the file's characters into the replacement", () => {
    // earendil-works/pi#713: smart quotes, Unicode dashes and non-breaking spaces made edits fail.
    const text = 'print("it\'s done - ok")\n';
    const result = applied(text, 'print(\u201cit\u2019s done \u2013 ok\u201d)', 'print(\u201cit\u2019s finished\u201d)');
    expect(result.text).toBe('print("it\'s finished")\n');
    expect(result.note).toBe('old_string matched at line 1 once Unicode quotes, dashes and spaces were read as ASCII');
  });

  it("matches the file's curly quotes with straight ones (the replacement is written as given)", () => {
    const md = 'He said \u201chello\u201d.\n';
    expect(applied(md, 'He said "hello".', 'He said "bye".').text).toBe('He said "bye".\n');
  });

  it('an exact match found twice stays ambiguous with its count, never a fallback', () => {
    expect(matchEdit('x\nx\n', 'x', 'y')).toMatchObject({ ok: false, reason: 'ambiguous', how: 'exactly', lines: [1, 2] });
  });
});
