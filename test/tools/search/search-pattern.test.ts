import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { translatePattern } from '../../../src/tools/search/search-pattern.js';
import { findRipgrep } from '../../../src/tools/search/search-rg.js';

const rg = (await findRipgrep(undefined)).path;
import { ToolError } from '../../../src/tools/tool.js';

describe('translatePattern', () => {
  it.each([
    // [pattern, JavaScript source, flags, ripgrep pattern]
    ['needle', 'needle', '', 'needle'],
    ['(?i)todo|fixme', 'todo|fixme', 'i', '(?i)todo|fixme'],
    ['^\\s*fn\\s+\\w+', '^\\s*fn\\s+\\w+', '', '^\\s*fn\\s+[0-9A-Za-z_]+'],
    ['\\bfoo\\b', '\\bfoo\\b', '', '(?-u:\\b)foo(?-u:\\b)'],
    ['\\d{2,4}-\\D', '\\d{2,4}-\\D', '', '[0-9]{2,4}-[^0-9]'],
    ['[\\w.-]+@[^\\s\\d]', '[\\w.-]+@[^\\s\\d]', '', '[[:word:].-]+@[^\\s[:digit:]]'],
    ['[[:alpha:]_][[:digit:]]', '[A-Za-z_][0-9]', '', '[[:alpha:]_][[:digit:]]'],
    ['fn main\\(\\) {', 'fn main\\(\\) \\{', '', 'fn main\\(\\) \\{'],
    ['a{,2}b{3}', 'a\\{,2\\}b{3}', '', 'a\\{,2\\}b{3}'],
    ['key\\: \\/path\\_', 'key\\: \\/path\\_', '', 'key: /path_'],
    ['(?P<name>x)(?<other>y)(?:z)', '(?<name>x)(?<other>y)(?:z)', '', '(?P<name>x)(?P<other>y)(?:z)'],
    ['\\x41\\u00e9\\t', '\\x41\\u00e9\\t', '', '\\x{41}\\x{00e9}\\t'],
    ['[]a]', '[\\]a]', '', '[\\]a]'],
    ['[a&&b~[]', '[a&&b~\\[]', '', '[a\\&\\&b\\~\\[]'],
    ['a]b}', 'a\\]b\\}', '', 'a\\]b\\}'],
  ])('%s', (pattern, js, jsFlags, forRg) => {
    expect(translatePattern(pattern)).toEqual({ js, jsFlags, rg: forRg });
    // ripgrep takes its spelling (exit 1: no match in empty input; 2 would be a parse error).
    if (rg) expect(spawnSync(rg, ['--no-config', '--regexp', forRg, '-'], { input: '' }).status).toBe(1);
  });
  if (!rg) it.skip('ripgrep parses each spelling: rg is not on the PATH (apt-get install ripgrep)', () => undefined);

  it.each([
    ['(?=x)', /look-around/],
    ['a(?!b)', /look-around/],
    ['(?<=a)b', /look-around/],
    ['(?<!a)b', /look-around/],
    ['(\\w+) \\1', /back-references \(\\1\)/],
    ['(?<q>.)\\k<q>', /back-references \(\\k\)/],
    ['\\p{L}+', /Unicode classes/],
    ['[\\P{L}]', /Unicode classes/],
    ['a(?i)b', /\(\?i\) is taken only at the very start/],
    ['(?s)a.b', /only \(\?:…\), \(\?<name>…\) and a leading \(\?i\)/],
    ['(?>a)', /only \(\?:…\)/],
    ['\\h\\z', /unknown escape \\h/],
    ['\\x{41}', /unknown escape \\x \(write \\xHH or \\uHHHH\)/],
    ['\\0', /octal/],
    ['[[:nope:]]', /unknown class \[:nope:\]/],
    ['[\\b]', /\\b inside a class/],
  ])('refuses %s in both engines', (pattern, why) => {
    expect(() => translatePattern(pattern)).toThrow(ToolError);
    expect(() => translatePattern(pattern)).toThrow(why);
  });

  it('answers what JavaScript finds wrong, with its words and how to match literally', () => {
    expect(() => translatePattern('foo(')).toThrow(
      'invalid regular expression "foo(": Unterminated group. Escape ( ) [ ] { } . * + ? | \\ to match them literally.',
    );
    expect(() => translatePattern('[z-a]')).toThrow(/Range out of order in character class/);
    expect(() => translatePattern('*x')).toThrow(/Nothing to repeat/);
  });

  it('quotes at most 200 characters of a long pattern back', () => {
    const long = `(${'a|'.repeat(5000)}`;
    const error = (() => {
      try {
        translatePattern(long);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message.length).toBeLessThan(400);
  });

  it('is linear: 100,000 characters of nested groups and classes are spelled at once', () => {
    const big = '(?:[a-z]\\d|x{2})'.repeat(6000);
    expect(translatePattern(big).rg.length).toBeGreaterThan(big.length);
  });
});
