/**
 * The streaming screen: prose shows as it arrives, text from where a call may begin is kept back, a
 * false start lets go; and the one test of "opens like a call" used for summaries and /compact.
 */
import { describe, expect, it } from 'vitest';
import { bareStart, opensLikeCall, TextCallScreen } from '../../../../src/tools/calls/text/text-call-screen.js';
import { clearOfMarkers } from '../../../../src/tools/calls/text/markers.js';

const names = ['read_file', 'write_file'];
/** Feeds `text` in pieces of `size`; returns each push's output. */
function stream(text: string, size: number): string[] {
  const screen = new TextCallScreen(names);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(screen.push(text.slice(i, i + size)));
  return out;
}

describe('TextCallScreen', () => {
  it.each([1, 3, 8])('shows prose as it arrives and keeps back from a marker on (pieces of %i)', (size) => {
    const text = 'I will read the file now.\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call> done';
    const out = stream(text, size);
    expect(out.join('')).toBe('I will read the file now.\n');
    // The prose went out before the stream ended, not all at once at the end.
    expect(out.findIndex((piece) => piece !== '')).toBeLessThan(5);
  });

  it.each([1, 7])('a marker prose also writes is prose unless an offered tool is named after it (pieces of %i)', (size) => {
    const prose = `The function call fails because ${'the server drops the second argument. '.repeat(12)}Next step: Action: we refactor it.`;
    const out = stream(prose, size);
    // Shown while it streams, the marker too, once no tool is named within reach after it.
    expect(out.join('')).toBe(prose.slice(0, prose.indexOf('Action:')));
    expect(out.slice(0, out.length / 2).join('')).toContain('function call fails');
    const call = `Thought: read it.\nAction: read_file\nAction Input: {"path": "a"}`;
    expect(stream(call, size).join('')).toBe('Thought: read it.\n');
  });

  it('keeps back a marker cut by the end of a piece, and lets it go when it turns out to be none', () => {
    const screen = new TextCallScreen(names);
    expect(screen.push('Use <tool')).toBe('Use ');
    expect(screen.push('box> here')).toBe('<toolbox> here');
    expect(screen.shownLength).toBe('Use <toolbox> here'.length);
  });

  it('keeps back the whole answer while it may be a bare call, and lets go at its first sign of prose', () => {
    const screen = new TextCallScreen(names);
    expect(screen.push('{"na')).toBe('');
    expect(screen.push('me": "read_file"')).toBe('');
    expect(screen.push(', "arguments": {}}')).toBe('');
    const prose = new TextCallScreen(names);
    expect(prose.push('{"ans')).toBe('{"ans');
    const word = new TextCallScreen(names);
    expect(word.push('read')).toBe('');
    expect(word.push('ing it.')).toBe('reading it.');
  });

  it('a marker that is a word is kept back only where a word starts: the `t` ending "it" shows at once', () => {
    expect(new TextCallScreen(names).push('Thinking about it')).toBe('Thinking about it');
    const screen = new TextCallScreen(names);
    expect(screen.push('Reading. to')).toBe('Reading. ');
    expect(screen.push('day')).toBe('today');
  });

  it('a code fence opened for a call is kept back with it; a fence of code is shown once its first line comes', () => {
    expect(stream('Here:\n```xml\n<tool_call>{"name": "read_file", "arguments": {}}</tool_call>\n```', 2).join('')).toBe('Here:\n');
    const code = 'Run:\n```bash\nls -la\n```\nDone.';
    expect(stream(code, 3).join('')).toBe(code);
  });

  it('never takes back what it showed, and keeps back nothing of plain prose', () => {
    const text = 'Plain prose with [brackets], {braces} and <tags>, no call at all.';
    expect(stream(text, 4).join('')).toBe(text);
  });
});

describe('bareStart', () => {
  it.each([
    ['', 'maybe'],
    ['  {', 'maybe'],
    ['{"name"', 'yes'],
    ['{"answer"', 'no'],
    ['[{"arguments"', 'yes'],
    ['```json\n{"name"', 'yes'],
    ['```py', 'maybe'],
    ['```bash\n', 'no'],
    ['read_fi', 'maybe'],
    ['read_file(', 'yes'],
    ['[write_file (', 'yes'],
    ['print(', 'no'],
    ['Sure', 'no'],
    ['{"read_file"', 'yes'],
    ['cal', 'maybe'],
    ['call:read_file{', 'yes'],
    ['call: me', 'no'],
    ['ReadFile(', 'yes'],
    ['functions.read', 'maybe'],
    ['Read.', 'no'],
  ])('%j → %s', (text, expected) => {
    expect(bareStart(text, names)).toBe(expected);
  });
});

describe('opensLikeCall (a summary or /compact answer that is a call)', () => {
  it.each([
    '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/f3.ts"}}\n</tool_call>',
    '```json\n{"name": "search_files", "arguments": {"pattern": "parse"}}\n```',
    '[TOOL_CALLS]read_file[ARGS]{"path": "a"}',
    '  <|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{}',
  ])('%j is a call', (text) => {
    expect(opensLikeCall(text)).toBe(true);
  });

  it.each(['', 'The parser reads each value.', 'We read <tool_call> tags later.', '{"summary": "x"}'])('%j is not', (text) => {
    expect(opensLikeCall(text)).toBe(false);
  });
});

describe('clearOfMarkers (a streamed piece shown without a search)', () => {
  it('is clear of prose, of letters inside words, and of word starts that begin no marker', () => {
    expect(clearOfMarkers(' ', 'Hello there.')).toBe(true);
    expect(clearOfMarkers(' ', ' t5')).toBe(true);
    expect(clearOfMarkers('a', 'to=functions.read')).toBe(true);
    expect(clearOfMarkers(' ', 'cat and dog')).toBe(true);
  });

  it('is not clear where a marker, or a start of one, may stand', () => {
    for (const piece of ['<', 'x <tool', '<tool_call>{', ' to=functions.read', 'commentary t', '[TOOL_CALLS]', '``', '```tool_code'])
      expect(clearOfMarkers(' ', piece), piece).toBe(false);
    expect(clearOfMarkers(' ', 'to=')).toBe(false);
  });
});
