import { describe, expect, it } from 'vitest';
import { SERVE_LIMITS } from '../src/serve/serve-flags.js';
import { parseCliArgs } from '../src/cli-args.js';
import { helpText } from '../src/cli-help.js';

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
    const command = parseCliArgs(['serv', '--verbose']);
    expect(command.kind).toBe('error');
    if (command.kind !== 'error') return;
    expect(command.message).toContain('"serv"');
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

describe('subcommands', () => {
  it.each([
    [['doctor'], { kind: 'doctor', flags: {} }],
    [['models'], { kind: 'models', flags: {} }],
    [['setup'], { kind: 'setup' }],
    [['doctor', '--timeout-ms', '2500', '--model', 'm'], { kind: 'doctor', flags: { model: 'm' }, timeoutMs: 2500 }],
    [['--base-url=http://h/v1', 'models', '--timeout-ms=100'], { kind: 'models', flags: { baseUrl: 'http://h/v1' }, timeoutMs: 100 }],
  ])('%j', (argv, expected) => {
    expect(parseCliArgs(argv)).toEqual(expected);
  });

  it.each([[['doctor', '--help']], [['-h', 'doctor']], [['models', '-h']], [['setup', '--help']]])("%j prints that command's help", (argv) => {
    const command = parseCliArgs(argv);
    expect(command).toEqual({ kind: 'help', topic: argv.find((a) => !a.startsWith('-')) });
  });

  it.each([
    [['setup', '--model', 'x'], /openai-acp setup does not take --model/],
    [['acp', '--timeout-ms', '5'], /serving ACP does not take --timeout-ms/],
    [['doctor', '--timeout-ms', 'soon'], /--timeout-ms takes a whole number of milliseconds/],
    [['doctor', '--timeout-ms', '0'], /--timeout-ms takes a whole number/],
    [['doctor', '--timeout-ms'], /--timeout-ms needs a value/],
    [['doctor', 'models'], /unexpected argument "models" \(openai-acp doctor takes only flags\)/],
    [['docter'], /unknown command "docter"/],
  ])('%j is an error', (argv, message) => {
    const command = parseCliArgs(argv);
    expect(command.kind).toBe('error');
    expect(command.kind === 'error' && command.message).toMatch(message);
  });

  it("points a subcommand's errors at its own help", () => {
    const command = parseCliArgs(['doctor', '--bogus']);
    expect(command.kind === 'error' && command.message).toMatch(/Run openai-acp doctor --help/);
  });

  it('suggests a near-miss command', () => {
    const command = parseCliArgs(['Doctor']);
    expect(command.kind === 'error' && command.message).toMatch(/did you mean doctor\?/);
  });
});

describe('agentconnect', () => {
  it('takes its own flags and the settings flags', () => {
    expect(parseCliArgs(['agentconnect'])).toEqual({
      kind: 'agentconnect',
      flags: {},
      frontDoor: { port: 9630, host: '127.0.0.1', mode: 'read-only', allowOrigins: [], token: undefined },
    });
    expect(
      parseCliArgs([
        'agentconnect',
        '--port=0',
        '--mode',
        'accept-edits',
        '--allow-origin',
        'https://a.example',
        '--allow-origin=http://localhost:5173',
        '--model',
        'm',
        '--token',
        'sekrit-value',
      ]),
    ).toEqual({
      kind: 'agentconnect',
      flags: { model: 'm' },
      frontDoor: { port: 0, host: '127.0.0.1', mode: 'accept-edits', allowOrigins: ['https://a.example', 'http://localhost:5173'], token: 'sekrit-value' },
    });
  });

  it('refuses its flags elsewhere and bad values, never echoing a token', () => {
    const elsewhere = parseCliArgs(['--port', '9630']);
    expect(elsewhere.kind === 'error' && elsewhere.message).toMatch(/serving ACP does not take --port/);
    const bad = parseCliArgs(['agentconnect', '--mode', 'ask', '--token', 'tiny']);
    expect(bad.kind === 'error' && bad.message).toMatch(/--mode takes read-only, accept-edits, full-access/);
    expect(bad.kind === 'error' && bad.message).not.toContain('tiny');
    expect(parseCliArgs(['agentconnect', '--help'])).toEqual({ kind: 'help', topic: 'agentconnect' });
  });
});

describe('serve', () => {
  it('takes its own flags, the limits and the settings flags', () => {
    expect(parseCliArgs(['serve'])).toEqual({
      kind: 'serve',
      flags: {},
      serve: {
        port: 8765,
        host: '127.0.0.1',
        token: undefined,
        allowOrigins: [],
        root: undefined,
        limits: SERVE_LIMITS,
        allowMcp: undefined,
        allowPrivateUrls: undefined,
      },
    });
    expect(
      parseCliArgs([
        'serve',
        '--port=0',
        '--host',
        '0.0.0.0',
        '--token',
        'sekrit-value',
        '--allow-origin',
        'https://A.example/',
        '--root',
        'work',
        '--max-connections',
        '10',
        '--max-sessions=2',
        '--max-message-bytes',
        '4096',
        '--max-buffered-bytes',
        '65536',
        '--max-output-stall-ms',
        '500',
        '--max-connections-per-address',
        '3',
        '--handshake-timeout-ms',
        '2000',
        '--idle-timeout-ms',
        '60000',
        '--allow-mcp',
        'npx,uvx',
        '--allow-mcp=/opt/mcp/server',
        '--allow-private-urls',
        '10.0.0.0/8',
        '--model',
        'm',
      ]),
    ).toEqual({
      kind: 'serve',
      flags: { model: 'm' },
      serve: {
        port: 0,
        host: '0.0.0.0',
        token: 'sekrit-value',
        allowOrigins: ['https://a.example'],
        root: 'work',
        limits: {
          maxConnections: 10,
          maxSessions: 2,
          maxMessageBytes: 4096,
          maxBufferedBytes: 65536,
          maxOutputStallMs: 500,
          maxConnectionsPerAddress: 3,
          handshakeTimeoutMs: 2000,
          idleTimeoutMs: 60000,
        },
        allowMcp: ['npx', 'uvx', '/opt/mcp/server'],
        allowPrivateUrls: ['10.0.0.0/8'],
      },
    });
  });

  it("refuses bad values, another command's flags, and its flags elsewhere, never echoing a token", () => {
    const bad = parseCliArgs(['serve', '--max-connections', '0', '--max-message-bytes', '12', '--port', '70000', '--token', 'tiny']);
    expect(bad.kind === 'error' && bad.message).toMatch(/--max-connections takes a whole number from 1/);
    expect(bad.kind === 'error' && bad.message).toMatch(/--max-message-bytes takes a whole number from 1024/);
    expect(bad.kind === 'error' && bad.message).toMatch(/--port takes a port number/);
    expect(bad.kind === 'error' && bad.message).toMatch(/--token needs a secret of at least 8 characters/);
    expect(bad.kind === 'error' && bad.message).not.toContain('tiny');
    const mode = parseCliArgs(['serve', '--mode', 'read-only']);
    expect(mode.kind === 'error' && mode.message).toMatch(/openai-acp serve does not take --mode/);
    const root = parseCliArgs(['agentconnect', '--root', '/x']);
    expect(root.kind === 'error' && root.message).toMatch(/openai-acp agentconnect does not take --root/);
    const elsewhere = parseCliArgs(['--max-sessions', '3']);
    expect(elsewhere.kind === 'error' && elsewhere.message).toMatch(/serving ACP does not take --max-sessions/);
    expect(parseCliArgs(['serve', '--help'])).toEqual({ kind: 'help', topic: 'serve' });
    expect(helpText('1.2.3')).toContain('openai-acp serve');
    expect(helpText('1.2.3', 'serve')).toContain('OPENAI_ACP_SERVE_TOKEN');
  });
});

describe('did you mean, for every flag and command', () => {
  const FLAGS = [
    '--help',
    '--version',
    '--timeout-ms',
    '--base-url',
    '--model',
    '--system-prompt',
    '--port',
    '--host',
    '--mode',
    '--allow-origin',
    '--token',
    '--root',
    '--max-connections',
    '--max-sessions',
    '--max-message-bytes',
    '--max-buffered-bytes',
    '--max-output-stall-ms',
    '--max-connections-per-address',
    '--handshake-timeout-ms',
    '--idle-timeout-ms',
    '--allow-mcp',
    '--allow-private-urls',
  ];
  const COMMANDS = ['acp', 'doctor', 'models', 'setup', 'agentconnect', 'serve'];
  const ALL = [...FLAGS, ...COMMANDS];
  const squashed = (word: string) => word.toLowerCase().replace(/[^a-z0-9]/g, '');

  it('the lists are every flag and command the help texts name', () => {
    const help = [helpText('0'), ...(['doctor', 'models', 'setup', 'agentconnect', 'serve'] as const).map((topic) => helpText('0', topic))].join('\n');
    // `--flag=value` is how any flag may be written, not a flag.
    expect(new Set(help.match(/--[a-z][a-z-]+/g)?.filter((flag) => flag !== '--flag'))).toEqual(new Set(FLAGS));
    expect(COMMANDS.filter((command) => command !== 'acp').every((command) => help.includes(`openai-acp ${command}`))).toBe(true);
    expect(help).toContain('openai-acp [acp]');
  });

  /**
   * The usual slips on `word`: case, `_` for `-`, one or no dash, a letter dropped, doubled or
   * swapped with its neighbour, a flag typed as a command and back.
   */
  function slips(word: string): string[] {
    const core = word.replace(/^-+/, '');
    const middle = Math.floor(core.length / 2);
    const dashes = word.startsWith('--') ? '--' : '';
    const variants = [
      word.toUpperCase(),
      word.replace(/(?<=\w)-(?=\w)/g, '_'),
      dashes ? `-${core}` : `--${core}`,
      dashes ? core : `-${core}`,
      `${dashes}${core.slice(0, middle)}${core.slice(middle + 1)}`,
      `${dashes}${core.slice(0, middle)}${core[middle]}${core.slice(middle)}`,
      `${dashes}${core.slice(0, middle - 1)}${core[middle]}${core[middle - 1]}${core.slice(middle + 1)}`,
      `${dashes}${core.slice(0, -1)}`,
    ];
    // A slip that is another word exactly (`--mode` from `--model`) is that word, not a slip.
    return [...new Set(variants)].filter(
      (slip) => slip !== word && !ALL.some((other) => squashed(other) === squashed(slip) && other !== word) && slip !== '-v' && slip !== '-h',
    );
  }

  it.each(ALL)('%s: every usual slip gets "did you mean" naming it', (word) => {
    const tried = slips(word);
    expect(tried.length).toBeGreaterThanOrEqual(5);
    for (const slip of tried) {
      const command = parseCliArgs([slip]);
      expect(command.kind, slip).toBe('error');
      const hinted = command.kind === 'error' ? /\(did you mean ([^?]+)\?\)/.exec(command.message)?.[1] : undefined;
      expect(hinted?.split(' or '), `${slip}: ${command.kind === 'error' ? command.message : ''}`).toContain(word);
    }
  });

  it('says nothing near for a word that is near nothing, and the variable for a setting', () => {
    for (const word of ['--verbose', '--xyzzy', 'mo', '--max']) {
      const command = parseCliArgs([word]);
      expect(command.kind === 'error' && command.message).not.toContain('did you mean');
    }
    // A known flag with more written after it is that flag (`--root-dir` is `--root`).
    const rootDir = parseCliArgs(['serve', '--root-dir', '/srv']);
    expect(rootDir.kind === 'error' && rootDir.message).toMatch(/did you mean --root\?/);
    const temperature = parseCliArgs(['--temperature', '0.2']);
    expect(temperature.kind === 'error' && temperature.message).toContain('(set OPENAI_TEMPERATURE in the environment instead)');
  });
});
