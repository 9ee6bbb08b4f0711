import { describe, expect, it } from 'vitest';
import { shellQuote, tryItLine } from '../../src/commands/try-it.js';

describe('tryItLine', () => {
  it('repeats the settings and flags doctor ran with, as variables, before the acpx command', () => {
    const line = tryItLine({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_TEMPERATURE: '0.2', PATH: '/bin' }, { model: 'qwen3:8b' }, 'node dist/cli.js');
    expect(line).toBe(`Try it: OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=qwen3:8b OPENAI_TEMPERATURE=0.2 npx acpx --agent 'node dist/cli.js' exec hello`);
  });

  it('names secret settings without their values, and leaves out values carrying credentials', () => {
    const line = tryItLine(
      { OPENAI_API_KEY: 'sk-secret-1234', OPENAI_HEADERS: '{"x-api-key":"h-secret"}', OPENAI_BASE_URL: 'https://user:pw@gw.example/v1', OPENAI_QUERY: 'api-version=1&sig=abcd' },
      {},
      'openai-acp',
    );
    for (const secret of ['sk-secret-1234', 'h-secret', 'pw@', 'abcd']) expect(line).not.toContain(secret);
    expect(line).toBe('Try it: npx acpx --agent openai-acp exec hello (with OPENAI_BASE_URL, OPENAI_QUERY, OPENAI_API_KEY, OPENAI_HEADERS set as now; not repeated here)');
  });

  it('never repeats an extra body or a query value other than api-version (either may hold a key)', () => {
    const line = tryItLine({ OPENAI_QUERY: 'tenant=abc123secret', OPENAI_EXTRA_BODY: '{"api_key":"sk-upstream-123"}' }, {}, 'openai-acp');
    for (const secret of ['abc123secret', 'sk-upstream-123']) expect(line).not.toContain(secret);
    expect(line).toBe('Try it: npx acpx --agent openai-acp exec hello (with OPENAI_QUERY, OPENAI_EXTRA_BODY set as now; not repeated here)');
    expect(tryItLine({ OPENAI_QUERY: 'api-version=2024-10-21' }, {}, 'openai-acp')).toBe('Try it: OPENAI_QUERY=api-version=2024-10-21 npx acpx --agent openai-acp exec hello');
  });

  it('quotes for a POSIX shell', () => {
    expect(shellQuote('plain-value_1.2')).toBe('plain-value_1.2');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('{"a": 1}')).toBe(`'{"a": 1}'`);
  });
});
