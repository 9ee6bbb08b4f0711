import { describe, expect, it } from 'vitest';
import { expandCommand, parseCommandFile, parseCommandLine, parseFrontMatter, splitArguments } from '../../src/context/command-files.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('parseCommandFile', () => {
  it('reads description and argument-hint from front matter, the body after it', () => {
    expect(
      parseCommandFile(
        'review',
        bytes('---\ndescription: "Review the: diff"\nargument-hint: [focus]\nallowed-tools:\n  - Bash(git diff:*)\n# a comment\n---\n\nReview $ARGUMENTS\n'),
      ),
    ).toEqual({
      name: 'review',
      description: 'Review the: diff',
      hint: '[focus]',
      body: 'Review $ARGUMENTS',
    });
  });

  it('without front matter takes the first line as the description; CRLF and a BOM are fine', () => {
    expect(parseCommandFile('fix', bytes('\uFEFF# Fix the failing test\r\nRun npm test and fix $1.\r\n'))).toEqual({
      name: 'fix',
      description: 'Fix the failing test',
      body: '# Fix the failing test\nRun npm test and fix $1.',
    });
  });

  it('refuses bad UTF-8, unclosed or broken front matter, and unusable names', () => {
    expect(parseCommandFile('x', new Uint8Array([0x68, 0xff, 0xfe]))).toEqual({ error: 'it is not valid UTF-8' });
    expect(parseCommandFile('x', bytes('---\ndescription: a\nbody'))).toEqual({ error: 'its front matter has no closing ---' });
    expect(parseCommandFile('x', bytes('---\njust words here\n---\nbody'))).toEqual({ error: 'its front matter line 2 is not "key: value"' });
    expect(parseCommandFile('x', bytes("---\ndescription: 'open\n---\nbody"))).toEqual({
      error: 'its front matter value of "description" has an unclosed quote',
    });
    expect(parseCommandFile('a:b', bytes('body'))).toHaveProperty('error');
    expect(parseCommandFile('has space', bytes('body'))).toHaveProperty('error');
  });

  it('front matter keys are plain data (no prototype tricks)', () => {
    const parsed = parseFrontMatter('__proto__: x\nerror: y');
    expect(parsed.ok && parsed.fields['error']).toBe('y');
  });
});

describe('expandCommand', () => {
  it('puts in $ARGUMENTS and $1..$9 (quotes group words; missing ones empty)', () => {
    expect(expandCommand('Fix issue $1 in $2. All: $ARGUMENTS. Third: [$3]', ' 42 "src/a b.ts" ')).toBe(
      'Fix issue 42 in src/a b.ts. All: 42 "src/a b.ts". Third: []',
    );
  });
  it('appends the arguments to a body without placeholders', () => {
    expect(expandCommand('Explain this.', 'the parser')).toBe('Explain this.\n\nthe parser');
    expect(expandCommand('Explain this.', '')).toBe('Explain this.');
  });
  it('splitArguments honours both quotes and escapes', () => {
    expect(splitArguments(`a "b c" 'd e' "h\\"i" key="x y" it's`)).toEqual(['a', 'b c', 'd e', 'h"i', 'key=x y', "it's"]);
  });
});

describe('parseCommandLine', () => {
  it('reads /name and the rest; MCP names keep their colon', () => {
    expect(parseCommandLine('  /review  the parser \n')).toEqual({ name: 'review', args: 'the parser' });
    expect(parseCommandLine('/fx:greet name=Ada')).toEqual({ name: 'fx:greet', args: 'name=Ada' });
    expect(parseCommandLine('/path/to/file is not a command')).toBeUndefined();
    expect(parseCommandLine('hello /review')).toBeUndefined();
  });
});
