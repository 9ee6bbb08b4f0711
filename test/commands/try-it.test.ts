import { describe, expect, it } from 'vitest';
import { acpxSpec, agentCommandFor, shellQuote, tryItLine } from '../../src/commands/try-it.js';

describe('tryItLine', () => {
  it('repeats the settings and flags doctor ran with, as variables, before the acpx command', () => {
    const line = tryItLine(
      { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_TEMPERATURE: '0.2', PATH: '/bin' },
      { model: 'qwen3:8b' },
      'node dist/cli.js',
      '22.13.0',
    );
    expect(line).toBe(
      'Try it: OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=qwen3:8b OPENAI_TEMPERATURE=0.2 npx --yes ' +
        `acpx@0.19.1 --agent 'node dist/cli.js' exec hello`,
    );
  });

  it('names secret settings without their values, and leaves out values carrying credentials', () => {
    const line = tryItLine(
      {
        OPENAI_API_KEY: 'sk-secret-1234',
        OPENAI_HEADERS: '{"x-api-key":"h-secret"}',
        OPENAI_BASE_URL: 'https://user:pw@gw.example/v1',
        OPENAI_QUERY: 'api-version=1&sig=abcd',
      },
      {},
      'openai-acp',
      '22.13.0',
    );
    for (const secret of ['sk-secret-1234', 'h-secret', 'pw@', 'abcd']) expect(line).not.toContain(secret);
    expect(line).toBe(
      'Try it: npx --yes acpx@0.19.1 --agent openai-acp exec hello (with OPENAI_BASE_URL, OPENAI_QUERY, ' +
        'OPENAI_API_KEY, OPENAI_HEADERS set as now; not repeated here)',
    );
  });

  it('never repeats an extra body or a query value other than api-version (either may hold a key)', () => {
    const line = tryItLine({ OPENAI_QUERY: 'tenant=abc123secret', OPENAI_EXTRA_BODY: '{"api_key":"sk-upstream-123"}' }, {}, 'openai-acp', '22.13.0');
    for (const secret of ['abc123secret', 'sk-upstream-123']) expect(line).not.toContain(secret);
    expect(line).toBe('Try it: npx --yes acpx@0.19.1 --agent openai-acp exec hello (with OPENAI_QUERY, OPENAI_EXTRA_BODY set as now; not repeated here)');
    expect(tryItLine({ OPENAI_QUERY: 'api-version=2024-10-21' }, {}, 'openai-acp', '22.13.0')).toBe(
      'Try it: OPENAI_QUERY=api-version=2024-10-21 npx --yes acpx@0.19.1 --agent openai-acp exec hello',
    );
  });

  it('pins an acpx that runs on the Node doctor ran on: 0.19.1 from Node 22.13, 0.1.15 before', () => {
    expect(acpxSpec('24.1.0')).toBe('acpx@0.19.1');
    expect(acpxSpec('22.13.0')).toBe('acpx@0.19.1');
    expect(acpxSpec('v22.12.9')).toBe('acpx@0.1.15');
    expect(acpxSpec('20.20.0')).toBe('acpx@0.1.15');
    expect(tryItLine({}, {}, 'openai-acp', '20.20.0')).toBe('Try it: npx --yes acpx@0.1.15 --agent openai-acp exec hello');
  });

  it('quotes for a POSIX shell', () => {
    expect(shellQuote('plain-value_1.2')).toBe('plain-value_1.2');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('{"a": 1}')).toBe(`'{"a": 1}'`);
  });
});

describe('agentCommandFor', () => {
  const files = (map: Record<string, string>) => (path: string) => map[path];
  const script = '/usr/lib/node_modules/openai-acp/dist/cli.js';

  it('openai-acp when the first one on the PATH is this script (an install, started through its bin link)', () => {
    const realpath = files({ '/usr/bin/openai-acp': script, [script]: script });
    expect(agentCommandFor('/usr/bin/openai-acp', '/usr/local/bin:/usr/bin', realpath)).toBe('openai-acp');
  });

  it('node <absolute path> from a clone, with no openai-acp on the PATH', () => {
    const clone = '/home/me/openai-acp/dist/cli.js';
    expect(agentCommandFor(clone, '/usr/bin:/bin', files({ [clone]: clone }))).toBe(`node ${clone}`);
    expect(agentCommandFor('/home/me/my dir/dist/cli.js', '/usr/bin', files({}))).toBe(`node '/home/me/my dir/dist/cli.js'`);
  });

  it('node <absolute path> under npx (its .bin is on the PATH of doctor only) or when another openai-acp comes first', () => {
    const cached = '/home/me/.npm/_npx/ab12/node_modules/openai-acp/dist/cli.js';
    const npx = files({ '/home/me/.npm/_npx/ab12/node_modules/.bin/openai-acp': cached, [cached]: cached });
    expect(agentCommandFor('/home/me/.npm/_npx/ab12/node_modules/.bin/openai-acp', '/home/me/.npm/_npx/ab12/node_modules/.bin:/usr/bin', npx)).toBe(
      `node ${cached}`,
    );
    const other = files({ '/usr/bin/openai-acp': '/usr/lib/node_modules/openai-acp/dist/cli.js', '/src/dist/cli.js': '/src/dist/cli.js' });
    expect(agentCommandFor('/src/dist/cli.js', '/usr/bin', other)).toBe('node /src/dist/cli.js');
  });
});
