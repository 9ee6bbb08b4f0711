/**
 * Command-line parsing for `openai-acp`, kept pure: argv in, a {@link CliCommand} out. No process
 * exits or output here; `cli.ts` acts on the result.
 */
import { CONFIG_DEFAULTS, type CliFlags } from './config.js';

/** The flags of the `acp` command (defined with the configuration they override). */
export type { CliFlags } from './config.js';

/**
 * What the command line asks for: serve ACP with flags (the default), print the version or the
 * help, or an error whose `message` names the offending arguments and points at `--help`.
 */
export type CliCommand = { kind: 'acp'; flags: CliFlags } | { kind: 'version' } | { kind: 'help' } | { kind: 'error'; message: string };

/** Flags taking a value, with the {@link CliFlags} key, placeholder and environment variable. */
const VALUE_FLAGS = {
  '--base-url': { key: 'baseUrl', placeholder: 'URL', variable: 'OPENAI_BASE_URL' },
  '--model': { key: 'model', placeholder: 'ID', variable: 'OPENAI_MODEL' },
  '--system-prompt': { key: 'systemPrompt', placeholder: 'TEXT', variable: 'OPENAI_SYSTEM_PROMPT' },
} as const satisfies Record<string, { key: keyof CliFlags; placeholder: string; variable: string }>;
type ValueFlag = keyof typeof VALUE_FLAGS;
const isValueFlag = (name: string): name is ValueFlag => Object.hasOwn(VALUE_FLAGS, name);

/** Every environment variable: name, default (as shown) and meaning. The README has the same table. */
const SETTINGS: readonly (readonly [string, string, string])[] = [
  ['OPENAI_BASE_URL', CONFIG_DEFAULTS.baseUrl, 'endpoint base; /chat/completions is appended (never doubled)'],
  ['OPENAI_API_KEY', 'empty', 'sent as "Authorization: Bearer <key>"; when empty, no Authorization header (local servers)'],
  ['OPENAI_MODEL', CONFIG_DEFAULTS.model, 'model id'],
  ['OPENAI_MODELS', 'unset', 'model picker ids when GET /models lists none: a comma list or JSON array (OPENAI_MODEL is always offered)'],
  ['OPENAI_SYSTEM_PROMPT', 'unset', 'system message put before every request'],
  ['OPENAI_MAX_TOKENS', 'unset', 'answer length limit (max_tokens), a positive integer'],
  ['OPENAI_TEMPERATURE', 'unset', 'sampling temperature, a number from 0 to 2'],
  ['OPENAI_HEADERS', 'unset', 'JSON object of extra request headers, e.g. {"api-key":"..."}'],
  ['OPENAI_QUERY', 'unset', 'extra query string for request URLs, e.g. api-version=2024-10-21'],
  ['OPENAI_MAX_RETRIES', String(CONFIG_DEFAULTS.maxRetries), 'retries of a failed request (HTTP 408, 409, 429, 5xx, connection failures)'],
  ['OPENAI_TIMEOUT_MS', String(CONFIG_DEFAULTS.timeoutMs), 'longest silence from the endpoint, in ms, before a request is abandoned'],
  ['OPENAI_CONTEXT_WINDOW', 'unset', "the model's context window in tokens; enables usage updates"],
  ['OPENAI_ACP_LOG', CONFIG_DEFAULTS.logLevel, 'stderr log level: error, warn, info or debug'],
  ['HTTPS_PROXY, HTTP_PROXY, NO_PROXY', 'unset', 'outgoing proxy'],
  ['NODE_EXTRA_CA_CERTS', 'unset', 'PEM file of extra certificate authorities'],
];

const KNOWN = ['--help', '--version', ...Object.keys(VALUE_FLAGS)];
const squash = (name: string) => name.toLowerCase().replace(/[^a-z]/g, '');
const show = (arg: string) => JSON.stringify(arg.length > 40 ? `${arg.slice(0, 37)}…` : arg);

/** A hint for an unknown option: a near-miss of a known flag, or the variable that sets it. */
function hint(name: string): string {
  const near = KNOWN.find((known) => squash(known) === squash(name));
  if (near) return ` (did you mean ${near}?)`;
  const variable = `OPENAI_${name.replace(/^-+/, '').toUpperCase().replace(/-/g, '_')}`;
  return SETTINGS.some(([names]) => names === variable) ? ` (set ${variable} in the environment instead)` : '';
}

/**
 * Parses argv without node and the script. `[]` or `['acp']` serve ACP; `--version`/`-v` and
 * `--help`/`-h` win over everything else (help first); `--base-url X`, `--base-url=X`, `--model`
 * and `--system-prompt` may appear anywhere (the last of a repeated flag wins). A value flag takes
 * the next argument unless it is missing or looks like an option (use `--flag=value` then).
 * Unknown options and commands give `{kind:'error'}`; the value after an unknown option, and
 * anything after its `=`, are never echoed (it may be a key).
 */
export function parseCliArgs(argv: string[]): CliCommand {
  const flags: CliFlags = {};
  const problems: string[] = [];
  let help = false;
  let version = false;
  let sawCommand = false;
  const looksLikeOption = (arg: string | undefined) => arg === undefined || arg.startsWith('--') || arg === '-h' || arg === '-v';
  for (let i = 0; i < argv.length; i++) {
    const arg = String(argv[i]);
    if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--version' || arg === '-v') version = true;
    else if (arg.startsWith('-') && arg !== '-') {
      const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
      const name = eq === -1 ? arg : arg.slice(0, eq);
      let value = eq === -1 ? undefined : arg.slice(eq + 1);
      if (value === undefined && !looksLikeOption(argv[i + 1])) value = argv[++i];
      if (!isValueFlag(name)) problems.push(`unknown option ${show(name)}${hint(name)}`);
      else if (value === undefined || value.trim() === '') problems.push(`${name} needs a value, e.g. ${name} ${VALUE_FLAGS[name].placeholder}`);
      else flags[VALUE_FLAGS[name].key] = value;
    } else if (arg === 'acp' && !sawCommand) sawCommand = true;
    else problems.push(`unknown command ${show(arg)}`);
  }
  if (help) return { kind: 'help' };
  if (version) return { kind: 'version' };
  if (problems.length > 0) return { kind: 'error', message: `${problems.join('; ')}. Run openai-acp --help for usage.` };
  return { kind: 'acp', flags };
}

/**
 * The `--help` text, ending in a newline: usage, commands, flags, and every environment variable
 * with its default and meaning.
 */
export function helpText(version: string): string {
  const width = Math.max(...SETTINGS.map(([name]) => name.length)) + 2;
  const settings = SETTINGS.map(([name, def, meaning]) => `  ${name.padEnd(width)}${meaning}\n  ${' '.repeat(width)}default: ${def}`);
  const flags = Object.entries(VALUE_FLAGS).map(([flag, f]) => `  ${`${flag} ${f.placeholder}`.padEnd(22)}overrides ${f.variable}`);
  return [
    `openai-acp ${version} — an Agent Client Protocol (ACP) agent for any OpenAI Chat Completions-compatible endpoint`,
    '',
    'Usage:',
    '  openai-acp [acp] [flags]   serve ACP over stdin/stdout (the default command; an editor runs this)',
    '  openai-acp --version, -v   print the version',
    '  openai-acp --help, -h      print this help',
    '',
    'Flags (also as --flag=value):',
    ...flags,
    '',
    'Environment (also read from a .env file in the working directory; the real environment wins',
    'over .env, and flags win over both; empty values count as unset):',
    ...settings,
    '',
    'Logs go to stderr; stdout carries only JSON-RPC.',
    '',
  ].join('\n');
}
