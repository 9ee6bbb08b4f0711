import { describe, expect, it } from 'vitest';
import { helpText, parseCliArgs } from '../src/cli-args.js';

describe('parseCliArgs', () => {
  it.each([[[]], [['acp']]])('%j serves ACP', (argv) => {
    expect(parseCliArgs(argv)).toEqual({ kind: 'acp', flags: {} });
  });

  it.each([[['--version']], [['-v']], [['acp', '--version']]])('%j prints the version', (argv) => {
    expect(parseCliArgs(argv)).toEqual({ kind: 'version' });
  });

  it.each([[['--help']], [['-h']], [['acp', '-h']], [['--version', '--help']], [['--bogus', '--help']]])('%j prints help', (argv) => {
    expect(parseCliArgs(argv)).toEqual({ kind: 'help' });
  });

  it('takes flags in both forms, anywhere', () => {
    expect(parseCliArgs(['--base-url', 'http://h/v1', 'acp', '--model=llama3.2', '--system-prompt', 'Be brief.'])).toEqual({
      kind: 'acp',
      flags: { baseUrl: 'http://h/v1', model: 'llama3.2', systemPrompt: 'Be brief.' },
    });
  });

  it('keeps "=" inside a value and lets the last repeated flag win', () => {
    expect(parseCliArgs(['--system-prompt=a=b', '--model', 'x', '--model', 'y'])).toEqual({ kind: 'acp', flags: { systemPrompt: 'a=b', model: 'y' } });
  });

  it.each([[['--model']], [['--model', '--base-url', 'http://h']], [['--model=']]])('%j: a missing value is an error', (argv) => {
    const command = parseCliArgs(argv);
    expect(command.kind).toBe('error');
    expect(command.kind === 'error' && command.message).toMatch(/--model needs a value/);
  });

  it('names unknown options and commands and points at --help', () => {
    const command = parseCliArgs(['serve', '--verbose']);
    expect(command.kind).toBe('error');
    if (command.kind !== 'error') return;
    expect(command.message).toContain('"serve"');
    expect(command.message).toContain('"--verbose"');
    expect(command.message).toContain('--help');
  });

  it('suggests the right spelling', () => {
    const command = parseCliArgs(['--base_url', 'http://h']);
    expect(command.kind === 'error' && command.message).toMatch(/did you mean --base-url\?/);
  });

  it('points an unknown setting flag at its variable without echoing the value', () => {
    for (const argv of [['--api-key', 'sk-DISTINCTIVE-cli-key'], ['--api-key=sk-DISTINCTIVE-cli-key']]) {
      const command = parseCliArgs(argv);
      expect(command.kind).toBe('error');
      if (command.kind !== 'error') continue;
      expect(command.message).toContain('OPENAI_API_KEY');
      expect(command.message).not.toContain('sk-DISTINCTIVE-cli-key');
    }
  });

  it('rejects a second command', () => {
    expect(parseCliArgs(['acp', 'acp']).kind).toBe('error');
  });
});

describe('helpText', () => {
  const text = helpText('1.2.3');

  it('shows the version, commands and flags', () => {
    for (const part of ['1.2.3', 'Usage', 'acp', '--version', '--help', '--base-url', '--model', '--system-prompt']) expect(text).toContain(part);
    expect(text.endsWith('\n')).toBe(true);
  });

  it.each([
    ['OPENAI_BASE_URL', 'https://api.openai.com/v1'],
    ['OPENAI_API_KEY', 'empty'],
    ['OPENAI_MODEL', 'gpt-4o'],
    ['OPENAI_SYSTEM_PROMPT', 'unset'],
    ['OPENAI_MAX_TOKENS', 'unset'],
    ['OPENAI_TEMPERATURE', 'unset'],
    ['OPENAI_HEADERS', 'unset'],
    ['OPENAI_QUERY', 'unset'],
    ['OPENAI_MAX_RETRIES', '2'],
    ['OPENAI_TIMEOUT_MS', '600000'],
    ['OPENAI_CONTEXT_WINDOW', 'unset'],
    ['OPENAI_ACP_LOG', 'info'],
  ])('documents %s with default %s', (variable, def) => {
    const lines = text.split('\n');
    const at = lines.findIndex((line) => line.trimStart().startsWith(`${variable} `));
    expect(at).toBeGreaterThan(-1);
    expect(lines[at]!.trim().length).toBeGreaterThan(variable.length + 5);
    expect(lines[at + 1]).toContain(`default: ${def}`);
  });
});
