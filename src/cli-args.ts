/**
 * Command-line parsing for `openai-acp`, kept pure: argv in, a {@link CliCommand} out. No process
 * exits or output here; `cli.ts` acts on the result.
 */
import { CONFIG_DEFAULTS, type CliFlags } from './config/config.js';
import { PROVIDER_IDS } from './config/providers.js';
import { nearestWords } from './did-you-mean.js';
import {
  DEFAULT_PORT,
  FRONT_DOOR_FLAGS,
  isFrontDoorFlag,
  parseFrontDoorFlags,
  type FrontDoorFlag,
  type FrontDoorFlags,
} from './agentconnect/front-door-flags.js';
import { DEFAULT_SERVE_PORT, isServeFlag, parseServeFlags, SERVE_FLAGS, SERVE_LIMITS, type ServeFlag, type ServeFlags } from './serve/serve-flags.js';

/** The flags of the `acp` command (defined with the configuration they override). */
export type { CliFlags } from './config/config.js';

/** The subcommands besides `acp`, each with its own `--help`. */
export type Subcommand = 'doctor' | 'models' | 'setup' | 'agentconnect' | 'serve';

/**
 * What the command line asks for: serve ACP with flags (the default), check the configuration
 * (`doctor`), list the endpoint's models (`models`), run the setup wizard (`setup`), print the
 * version or the help (of one subcommand when `topic` is set), or an error whose `message` names
 * the offending arguments and points at `--help`. `timeoutMs` is `--timeout-ms`, the bound of each
 * network check in ms, absent when not given.
 */
export type CliCommand =
  | { kind: 'acp'; flags: CliFlags }
  | { kind: 'doctor'; flags: CliFlags; timeoutMs?: number }
  | { kind: 'models'; flags: CliFlags; timeoutMs?: number }
  | { kind: 'setup' }
  | { kind: 'agentconnect'; flags: CliFlags; frontDoor: FrontDoorFlags }
  | { kind: 'serve'; flags: CliFlags; serve: ServeFlags }
  | { kind: 'version' }
  | { kind: 'help'; topic?: Subcommand }
  | { kind: 'error'; message: string };

/**
 * The one stderr line printed when `openai-acp` is started by hand in a terminal (stdin is a
 * TTY): it serves ACP anyway (JSON-RPC lines typed by hand work), but a person probably wanted
 * `doctor`.
 */
export const TTY_NOTICE =
  'openai-acp speaks the Agent Client Protocol on stdin/stdout and is meant to be started by an editor or ACP ' +
  'client (Zed, JetBrains, acpx); to check your setup, run `openai-acp doctor` (serving anyway: Ctrl-D quits).';

/** Default bound of each network check of `doctor` and `models`, in ms. */
const CHECK_TIMEOUT_MS = 10_000;
/** Largest `--timeout-ms` accepted (Node's timer limit), in ms. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The commands, and which flags each accepts (`--help`/`--version` are accepted everywhere). */
const COMMANDS = {
  acp: { settings: true, timeout: false },
  doctor: { settings: true, timeout: true },
  models: { settings: true, timeout: true },
  setup: { settings: false, timeout: false },
  agentconnect: { settings: true, timeout: false },
  serve: { settings: true, timeout: false },
} as const;
type CommandName = keyof typeof COMMANDS;
const isCommand = (name: string): name is CommandName => Object.hasOwn(COMMANDS, name);

/** Flags taking a value, with the {@link CliFlags} key, placeholder and environment variable. */
const VALUE_FLAGS = {
  '--base-url': { key: 'baseUrl', placeholder: 'URL', variable: 'OPENAI_BASE_URL' },
  '--model': { key: 'model', placeholder: 'ID', variable: 'OPENAI_MODEL' },
  '--system-prompt': { key: 'systemPrompt', placeholder: 'TEXT', variable: 'OPENAI_SYSTEM_PROMPT' },
} as const satisfies Record<string, { key: keyof CliFlags; placeholder: string; variable: string }>;
type ValueFlag = keyof typeof VALUE_FLAGS;
const isValueFlag = (name: string): name is ValueFlag => Object.hasOwn(VALUE_FLAGS, name);

/** Every environment variable: name, default (as shown) and meaning. The README has the same table (test/readme.test.ts checks it). */
const SETTINGS: readonly (readonly [string, string, string])[] = [
  [
    'OPENAI_BASE_URL',
    `${CONFIG_DEFAULTS.baseUrl} when OPENAI_API_KEY is set; else a local server on 127.0.0.1 (ports 11434, 1234, 8000, 8080, 4000)`,
    'endpoint base; /chat/completions is appended (never doubled)',
  ],
  [
    'OPENAI_API_KEY',
    'empty',
    'sent as "Authorization: Bearer <key>"; when empty, no Authorization header (local servers), AWS SigV4 for Bedrock, Entra ID for Azure',
  ],
  ['OPENAI_API_KEY_FILE', 'unset', 'file holding OPENAI_API_KEY (Docker/Kubernetes secret); trailing newline stripped; not with OPENAI_API_KEY'],
  ['OPENAI_MODEL', `${CONFIG_DEFAULTS.model} for OpenAI and Azure; otherwise the first chat model the endpoint lists`, 'model id'],
  ['OPENAI_PROVIDER', 'detected from the base URL', `provider family: ${PROVIDER_IDS.join(', ')}`],
  ['OPENAI_ACP_CONFIG', '$XDG_CONFIG_HOME/openai-acp/config.json', 'config file naming several providers (written by openai-acp setup)'],
  ['OPENAI_MODELS', 'unset', 'model picker ids when GET /models lists none: a comma list or JSON array (OPENAI_MODEL is always offered)'],
  ['OPENAI_SYSTEM_PROMPT', 'unset', 'system message put before every request'],
  ['OPENAI_MAX_TOKENS', 'the room kept for the answer, when the context window is known', 'answer length limit (max_tokens), a positive integer'],
  ['OPENAI_TEMPERATURE', 'unset', 'sampling temperature, a number from 0 to 2'],
  ['OPENAI_HEADERS', 'unset', 'JSON object of extra request headers, e.g. {"api-key":"..."}'],
  ['OPENAI_HEADERS_FILE', 'unset', 'file holding OPENAI_HEADERS (a secret); trailing newline stripped; not with OPENAI_HEADERS'],
  [
    'AWS_REGION, AWS_PROFILE, AWS_ACCESS_KEY_ID, …',
    'unset',
    'Bedrock without a key: SigV4 with the AWS default credential chain; region from the base URL, else AWS_REGION/AWS_DEFAULT_REGION',
  ],
  [
    'AZURE_TENANT_ID, AZURE_CLIENT_ID, …',
    'unset',
    'Azure without a key: Entra ID token from DefaultAzureCredential (service principal, workload or managed identity, az login)',
  ],
  [
    'OPENAI_EXTRA_BODY',
    'unset',
    'JSON object merged into every chat request, e.g. {"options":{"num_ctx":32768}} (model, messages, stream, tools stay the agent\'s)',
  ],
  ['OPENAI_QUERY', 'unset', 'extra query string for request URLs, e.g. api-version=2024-10-21'],
  ['OPENAI_MAX_RETRIES', String(CONFIG_DEFAULTS.maxRetries), 'retries of a failed request (HTTP 408, 409, 429, 5xx, connection failures)'],
  [
    'OPENAI_TIMEOUT_MS',
    String(CONFIG_DEFAULTS.timeoutMs),
    'longest wait, in ms, for the response headers and then between two data events before a request is abandoned; keep-alive comments (": ping") do not count',
  ],
  [
    'OPENAI_CONTEXT_WINDOW',
    'what the server reports',
    "the model's context window in tokens, over what the server reports: requests are fitted to it and the context " +
      'meter shows it (a smaller window the server states when it rejects a request wins)',
  ],
  ['OPENAI_ACP_LOG', CONFIG_DEFAULTS.logLevel, 'stderr log level: error, warn, info or debug'],
  [
    'OPENAI_ACP_TOOLS',
    'on',
    'offer the model tools (read, write, edit, list and search files; run commands; fetch web pages; keep a plan; ' +
      "the client's MCP servers); off: a pure chat bridge",
  ],
  ['OPENAI_ACP_MAX_STEPS', String(CONFIG_DEFAULTS.maxSteps), 'most model requests in one prompt turn; reached, the turn ends with max_turn_requests'],
  [
    'OPENAI_ACP_MCP_STARTUP_MS',
    String(CONFIG_DEFAULTS.mcpStartupMs),
    'how long session/new, load and resume wait for MCP servers in total, in ms; a slower server joins later',
  ],
  ['OPENAI_ACP_MCP_TOOL_TIMEOUT_MS', String(CONFIG_DEFAULTS.mcpToolTimeoutMs), 'limit of one MCP tool call, in ms'],
  ['OPENAI_ACP_FETCH_TIMEOUT_MS', String(CONFIG_DEFAULTS.fetchTimeoutMs), 'limit of one fetch_url call (redirects and body included), in ms'],
  ['OPENAI_ACP_RIPGREP', 'rg on the PATH', 'the ripgrep search_files runs (a path, or a name on the PATH); off: the slower built-in search'],
  [
    'OPENAI_ACP_SEARCH_TIMEOUT_MS',
    String(CONFIG_DEFAULTS.searchTimeoutMs),
    'time one search_files call may take, in ms; then it answers with what it found so far',
  ],
  [
    'OPENAI_ACP_OLLAMA_NUM_CTX',
    String(CONFIG_DEFAULTS.ollamaNumCtx),
    "Ollama: the context window asked for through its native /api/chat (options.num_ctx), capped by the model's " +
      "trained window; 0 keeps the server's own window and /v1",
  ],
  ['OPENAI_ACP_LOG_FORMAT', 'text', 'stderr line format: text, or json (one {time, level, message, ...fields} object per line)'],
  ['OPENAI_ACP_IN_CONTAINER', 'auto', 'true: the zero-configuration search also tries host.docker.internal (auto: when /.dockerenv or cgroups say so)'],
  [
    'OPENAI_ACP_STATE_DIR',
    '$XDG_STATE_HOME/openai-acp/sessions',
    'where sessions are saved (one file each, for session/load, list and resume); off keeps them in memory only',
  ],
  [
    'OPENAI_ACP_SESSION_IDLE_MS',
    String(CONFIG_DEFAULTS.sessionIdleMs),
    'how long, in ms, a session may go without a prompt before its conversation leaves memory (read again from the state directory at its next prompt); 0: never',
  ],
  [
    'HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY',
    'unset',
    'outgoing http(s) proxy (HTTPS_PROXY for https endpoints, HTTP_PROXY for http ones); NO_PROXY hosts go direct',
  ],
  ['NODE_EXTRA_CA_CERTS', 'unset', 'PEM file of extra certificate authorities'],
];

const KNOWN = ['--help', '--version', '--timeout-ms', ...Object.keys(VALUE_FLAGS), ...new Set([...FRONT_DOOR_FLAGS, ...SERVE_FLAGS])];
const show = (arg: string) => JSON.stringify(arg.length > 40 ? `${arg.slice(0, 37)}…` : arg);

/** ` (did you mean X?)` for a mistyped flag or command: the nearest flags and commands, spelled as they are typed; '' when none is near. */
function didYouMean(word: string): string {
  const near = nearestWords(word, [...KNOWN, ...Object.keys(COMMANDS)]);
  return near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : '';
}

/** A hint for an unknown option: a near flag or command, else the variable that sets it. */
function hint(name: string): string {
  const near = didYouMean(name);
  if (near) return near;
  const variable = `OPENAI_${name.replace(/^-+/, '').toUpperCase().replace(/-/g, '_')}`;
  return SETTINGS.some(([names]) => names === variable) ? ` (set ${variable} in the environment instead)` : '';
}

/**
 * Parses argv without node and the script. The first word is the command: none or `acp` serves
 * ACP; `doctor`, `models` and `setup` run those. `--version`/`-v` and `--help`/`-h` win over
 * everything else (help first; with a subcommand, its own help). `--base-url X`, `--base-url=X`,
 * `--model` and `--system-prompt` may appear anywhere for `acp`, `doctor` and `models` (the last of
 * a repeated flag wins); `--timeout-ms N` (a whole number of ms, 1 or more) only for `doctor` and
 * `models`; `setup` takes no flags. A value flag takes the next argument unless it is missing or
 * looks like an option (use `--flag=value` then). Unknown options and commands give
 * `{kind:'error'}`; the value after an unknown option, and anything after its `=`, are never
 * echoed (it may be a key).
 */
export function parseCliArgs(argv: string[]): CliCommand {
  const flags: CliFlags = {};
  const problems: string[] = [];
  let help = false;
  let version = false;
  let command: CommandName | undefined;
  let timeoutMs: number | undefined;
  const used: string[] = [];
  /** The values of the network commands' own flags (agentconnect, serve), checked against the command once it is known. */
  const networkPairs: [FrontDoorFlag | ServeFlag, string][] = [];
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
      if (name === '--timeout-ms') {
        used.push(name);
        const ms = value === undefined ? Number.NaN : Number(value.trim());
        if (value === undefined || value.trim() === '') problems.push('--timeout-ms needs a value, e.g. --timeout-ms 10000');
        else if (!/^\d+$/.test(value.trim()) || ms < 1 || ms > MAX_TIMEOUT_MS)
          problems.push(`--timeout-ms takes a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, not ${show(value)}`);
        else timeoutMs = ms;
      } else if (isFrontDoorFlag(name) || isServeFlag(name)) {
        used.push(name);
        // A --token value is never echoed, not even when it is empty.
        if (value === undefined || value.trim() === '') problems.push(`${name} needs a value`);
        else networkPairs.push([name, value]);
      } else if (!isValueFlag(name)) problems.push(`unknown option ${show(name)}${hint(name)}`);
      else if (value === undefined || value.trim() === '') problems.push(`${name} needs a value, e.g. ${name} ${VALUE_FLAGS[name].placeholder}`);
      else {
        used.push(name);
        flags[VALUE_FLAGS[name].key] = value;
      }
    } else if (command === undefined && isCommand(arg)) command = arg;
    else if (command === undefined) problems.push(`unknown command ${show(arg)}${didYouMean(arg)}`);
    else problems.push(`unexpected argument ${show(arg)} (openai-acp ${command} takes only flags)`);
  }
  const name = command ?? 'acp';
  if (help) return name === 'acp' ? { kind: 'help' } : { kind: 'help', topic: name };
  if (version) return { kind: 'version' };
  for (const flag of new Set(used)) {
    const allowed =
      flag === '--timeout-ms'
        ? COMMANDS[name].timeout
        : isFrontDoorFlag(flag) || isServeFlag(flag)
          ? (name === 'agentconnect' && isFrontDoorFlag(flag)) || (name === 'serve' && isServeFlag(flag))
          : COMMANDS[name].settings;
    if (!allowed) problems.push(`${name === 'acp' ? 'serving ACP' : `openai-acp ${name}`} does not take ${flag}`);
  }
  const frontDoor =
    name === 'agentconnect' ? parseFrontDoorFlags(networkPairs.filter((pair): pair is [FrontDoorFlag, string] => isFrontDoorFlag(pair[0]))) : undefined;
  if (frontDoor && 'problems' in frontDoor) problems.push(...frontDoor.problems);
  const serve = name === 'serve' ? parseServeFlags(networkPairs.filter((pair): pair is [ServeFlag, string] => isServeFlag(pair[0]))) : undefined;
  if (serve && 'problems' in serve) problems.push(...serve.problems);
  if (problems.length > 0) {
    const helpCommand = name === 'acp' ? 'openai-acp --help' : `openai-acp ${name} --help`;
    return { kind: 'error', message: `${problems.join('; ')}. Run ${helpCommand} for usage.` };
  }
  switch (name) {
    case 'acp':
      return { kind: 'acp', flags };
    case 'setup':
      return { kind: 'setup' };
    case 'agentconnect':
      return { kind: 'agentconnect', flags, frontDoor: (frontDoor as { flags: FrontDoorFlags }).flags };
    case 'serve':
      return { kind: 'serve', flags, serve: (serve as { flags: ServeFlags }).flags };
    default:
      return timeoutMs === undefined ? { kind: name, flags } : { kind: name, flags, timeoutMs };
  }
}

/** The help of each subcommand, without the trailing newline. */
const SUBCOMMAND_HELP: Record<Subcommand, string[]> = {
  doctor: [
    'Usage: openai-acp doctor [--base-url URL] [--model ID] [--timeout-ms MS]',
    '',
    'Resolves the configuration the agent would use (environment, .env, config file, flags) and',
    'prints it with secrets masked, then checks, one line each (✓ passed, ✗ failed with a fix,',
    '– not applicable or not checked):',
    '  - the endpoint answers',
    '  - authentication is accepted',
    '  - GET /models works and lists the configured model',
    '  - a one-token streamed completion works',
    '  - usage (token counts) is reported',
    '  - reasoning effort is accepted (where the provider has it)',
    '',
    'Exit status: 0 when the agent would work (the endpoint answers, the key is accepted and the',
    'completion works), 1 otherwise.',
    '',
    'Flags:',
    `  --base-url URL        overrides OPENAI_BASE_URL`,
    `  --model ID            overrides OPENAI_MODEL`,
    `  --timeout-ms MS       limit of each check in ms (default ${CHECK_TIMEOUT_MS})`,
  ],
  models: [
    'Usage: openai-acp models [--base-url URL] [--timeout-ms MS]',
    '',
    "Lists the endpoint's models (GET /models), one id per line, with the context window when the",
    'endpoint reports it. Exit status 1, with the reason on stderr, when the list cannot be read.',
    '',
    'Flags:',
    `  --base-url URL        overrides OPENAI_BASE_URL`,
    `  --timeout-ms MS       limit of the request in ms (default ${CHECK_TIMEOUT_MS})`,
  ],
  agentconnect: [
    'Usage: openai-acp agentconnect [--port 9630] [--host 127.0.0.1] [--mode read-only|accept-edits|full-access]',
    '                               [--allow-origin ORIGIN ...] [--token SECRET] [--base-url URL] [--model ID]',
    '',
    'Serves AgentConnect protocol v0 (JSON-RPC over a WebSocket) as its "local" provider, so an',
    'AgentConnect app uses the endpoint through this agent: streaming, tools, sessions that survive',
    "a restart. Tools run locally in each session's cwd, allowed by the mode fixed here; nothing",
    'asks at run time. The machine itself (acp.fs.*, acp.process.*, acp.net.request, …) is not offered.',
    '',
    'Flags:',
    `  --port N              port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)`,
    '  --host ADDRESS        address to listen on (default 127.0.0.1: this machine only)',
    '  --mode MODE           read-only (default: read, list, search), accept-edits (also edit files',
    "                        in the session's cwd) or full-access (also run commands)",
    '  --allow-origin ORIGIN a web app origin let in, e.g. http://localhost:5173 (repeatable); a',
    '                        browser page of any other origin is refused; clients without an Origin',
    '                        header (a Node backend) are let in',
    '  --token SECRET        also require this secret: ws://HOST:PORT/?token=SECRET or the header',
    '                        "Authorization: Bearer SECRET" (or set OPENAI_ACP_AGENTCONNECT_TOKEN)',
    '  --base-url, --model   as for the agent (see openai-acp --help)',
  ],
  serve: [
    'Usage: openai-acp serve [--port 8765] [--host 127.0.0.1] [--token SECRET] [--allow-origin ORIGIN ...] [--root DIR]',
    '                        [--max-connections N] [--max-sessions N] [--max-message-bytes N] [--max-buffered-bytes N]',
    '                        [--max-output-stall-ms MS] [--base-url URL] [--model ID]',
    '',
    "Serves the agent over the network on ACP's Streamable HTTP & WebSocket transport: one endpoint,",
    'http://HOST:PORT/acp (POST/GET/DELETE, or a WebSocket upgrade). Each connection is its own ACP',
    'connection over the sessions of this process, saved in the state directory as for the stdio',
    "agent (a volume several replicas share: one process writes a session at a time). A client's",
    'files and terminals are used when it advertises them; otherwise tools run here, inside the root.',
    'GET /health answers 200 while the process runs; GET /ready 200 once it serves, 503 while it',
    'cannot take a connection (starting, stopping, full, or configured wrongly). SIGTERM drains.',
    '',
    'Flags:',
    `  --port N              port to listen on (default ${DEFAULT_SERVE_PORT}; 0 picks a free one)`,
    '  --host ADDRESS        address to listen on (default 127.0.0.1: this machine only); any other',
    '                        address needs a token',
    '  --token SECRET        the bearer token every request must carry ("Authorization: Bearer SECRET",',
    '                        or ?token=SECRET for a browser WebSocket); or set OPENAI_ACP_SERVE_TOKEN',
    '  --allow-origin ORIGIN a web app origin let in, e.g. http://localhost:5173 (repeatable); a browser',
    '                        page of any other origin is refused; clients without an Origin header are let in',
    "  --root DIR            the workspace root (default: the current directory): every session's cwd",
    '                        must be inside it, and local tools never leave it',
    `  --max-connections N   connections open at once (default ${SERVE_LIMITS.maxConnections})`,
    `  --max-sessions N      sessions one connection may hold open (default ${SERVE_LIMITS.maxSessions})`,
    `  --max-message-bytes N largest message a client may send (default ${SERVE_LIMITS.maxMessageBytes / 1024 / 1024} MiB)`,
    `  --max-buffered-bytes N output held for a client that does not read, before the agent waits`,
    `                        (default ${SERVE_LIMITS.maxBufferedBytes / 1024 / 1024} MiB)`,
    `  --max-output-stall-ms MS  how long a connection holding that much may go unread before it is`,
    `                        closed (default ${SERVE_LIMITS.maxOutputStallMs})`,
    '  --base-url, --model   as for the agent (see openai-acp --help)',
    '',
    'More: docs/remote.md (TLS through a reverse proxy, Docker, Kubernetes, connecting a client).',
  ],
  setup: [
    'Usage: openai-acp setup',
    '',
    'An interactive wizard: pick the provider, the base URL, the API key (the name of the variable',
    'holding it, preferably, or the key itself) and the model (from the live list of the endpoint),',
    'then write the config file (mode 0600) at OPENAI_ACP_CONFIG, default',
    '$XDG_CONFIG_HOME/openai-acp/config.json (~/.config/openai-acp/config.json). An existing file',
    'keeps its other providers. End of input (Ctrl-D) aborts without writing anything.',
    '',
    'Try the result with: openai-acp doctor',
  ],
};

/**
 * The `--help` text, ending in a newline: usage, commands, flags, and every environment variable
 * with its default and meaning; with `topic`, the help of that subcommand.
 */
export function helpText(version: string, topic?: Subcommand): string {
  if (topic) return [`openai-acp ${version} ${topic}`, '', ...SUBCOMMAND_HELP[topic], ''].join('\n');
  const width = Math.max(...SETTINGS.map(([name]) => name.length)) + 2;
  const settings = SETTINGS.map(([name, def, meaning]) => `  ${name.padEnd(width)}${meaning}\n  ${' '.repeat(width)}default: ${def}`);
  const flags = Object.entries(VALUE_FLAGS).map(([flag, f]) => `  ${`${flag} ${f.placeholder}`.padEnd(22)}overrides ${f.variable}`);
  return [
    `openai-acp ${version} — an Agent Client Protocol (ACP) agent for any OpenAI Chat Completions-compatible endpoint`,
    '',
    'Usage:',
    '  openai-acp [acp] [flags]   serve ACP over stdin/stdout (the default command; an editor runs this)',
    '  openai-acp doctor [flags]  check the configuration and the endpoint, with a fix for each problem',
    '  openai-acp models [flags]  list the models of the endpoint',
    '  openai-acp setup           interactive wizard that writes the config file',
    '  openai-acp agentconnect    serve AgentConnect apps on ws://127.0.0.1:9630 (see agentconnect --help)',
    `  openai-acp serve          serve ACP over the network (WebSocket and Streamable HTTP) on port ${DEFAULT_SERVE_PORT} (see serve --help)`,
    '  openai-acp --version, -v   print the version',
    '  openai-acp --help, -h      print this help (openai-acp COMMAND --help for a command)',
    '',
    'Flags (also as --flag=value):',
    ...flags,
    `  ${'--timeout-ms MS'.padEnd(22)}doctor and models: limit of each check in ms (default ${CHECK_TIMEOUT_MS})`,
    '',
    'Environment (also read from a .env file in the working directory; the real environment wins',
    'over .env, and flags win over both; empty values count as unset):',
    ...settings,
    '',
    'Logs go to stderr; stdout carries only JSON-RPC.',
    'Limits: one stdin line (one JSON-RPC message) is at most 64 MiB; a longer one is answered with',
    'an error naming the limit and not read. From the endpoint: an error body is read up to 1 MiB,',
    'one server-sent event up to 16 MiB.',
    '',
  ].join('\n');
}
