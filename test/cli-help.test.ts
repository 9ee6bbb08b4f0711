import { describe, expect, it } from 'vitest';
import { helpText } from '../src/cli-help.js';

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
    ['OPENAI_MAX_TOKENS', 'the room kept for the answer, when the context window is known'],
    ['OPENAI_TEMPERATURE', 'unset'],
    ['OPENAI_HEADERS', 'unset'],
    ['OPENAI_QUERY', 'unset'],
    ['OPENAI_MAX_RETRIES', '2'],
    ['OPENAI_TIMEOUT_MS', '600000'],
    ['OPENAI_CONTEXT_WINDOW', 'what the server reports'],
    ['OPENAI_ACP_LOG', 'info'],
  ])('documents %s with default %s', (variable, def) => {
    const lines = text.split('\n');
    const at = lines.findIndex((line) => line.trimStart().startsWith(`${variable} `));
    expect(at).toBeGreaterThan(-1);
    expect(lines[at]!.trim().length).toBeGreaterThan(variable.length + 5);
    expect(lines[at + 1]).toContain(`default: ${def}`);
  });
});

describe('helpText of subcommands', () => {
  it('lists the subcommands in the main help', () => {
    const text = helpText('1.2.3');
    for (const part of ['openai-acp doctor', 'openai-acp models', 'openai-acp setup', '--timeout-ms', 'OPENAI_ACP_CONFIG', 'OPENAI_PROVIDER'])
      expect(text).toContain(part);
  });

  it('aligns the descriptions of the commands in one column', () => {
    const usage = helpText('1.2.3')
      .split('\n')
      .filter((line) => line.startsWith('  openai-acp '));
    expect(usage.length).toBeGreaterThanOrEqual(7);
    const columns = new Set(usage.map((line) => /^ {2}openai-acp .*? {2,}(?=\S)/.exec(line)?.[0].length));
    expect([...columns]).toHaveLength(1);
  });

  it.each([
    ['doctor', ['endpoint answers', 'authentication', '/models', 'one-token', 'usage', 'reasoning effort', 'Exit status', '--timeout-ms']],
    ['models', ['one id per line', 'context window', '--timeout-ms']],
    ['setup', ['0600', 'OPENAI_ACP_CONFIG', 'openai-acp doctor', 'Ctrl-D']],
  ] as const)('%s --help explains the command', (topic, parts) => {
    const text = helpText('1.2.3', topic);
    expect(text.startsWith(`openai-acp 1.2.3 ${topic}`)).toBe(true);
    expect(text.endsWith('\n')).toBe(true);
    for (const part of parts) expect(text).toContain(part);
  });
});
