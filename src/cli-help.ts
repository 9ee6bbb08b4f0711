/**
 * The words `openai-acp` prints about itself: `--help` (the commands, their flags, every
 * environment variable from the settings table), each subcommand's `--help`, and the one line
 * shown when it is started by hand in a terminal. Pure text; `cli.ts` prints it.
 */
import { DEFAULT_PORT } from './agentconnect/front-door-flags.js';
import { CHECK_TIMEOUT_MS, VALUE_FLAGS, type Subcommand } from './cli-args.js';
import { SETTINGS_TABLE } from './config/settings-table.js';
import { COMMAND_DISCOVERY_TIMEOUT_MS } from './endpoints/local-discovery.js';
import { DEFAULT_SERVE_PORT, SERVE_LIMITS } from './serve/serve-flags.js';

/**
 * The one stderr line printed when `openai-acp` is started by hand in a terminal (stdin is a
 * TTY): it serves ACP anyway (JSON-RPC lines typed by hand work), but a person probably wanted
 * `doctor`.
 */
export const TTY_NOTICE =
  'openai-acp speaks the Agent Client Protocol on stdin/stdout and is meant to be started by an editor or ACP ' +
  'client (Zed, JetBrains, acpx); to check your setup, run `openai-acp doctor` (serving anyway: Ctrl-D quits).';

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
    `  --timeout-ms MS       limit of each check in ms (default ${CHECK_TIMEOUT_MS}), and of the search for a local
                        server when nothing is configured (default ${COMMAND_DISCOVERY_TIMEOUT_MS})`,
  ],
  models: [
    'Usage: openai-acp models [--base-url URL] [--timeout-ms MS]',
    '',
    "Lists the endpoint's models (GET /models), one id per line, with the context window when the",
    'endpoint reports it. Exit status 1, with the reason on stderr, when the list cannot be read.',
    '',
    'Flags:',
    `  --base-url URL        overrides OPENAI_BASE_URL`,
    `  --timeout-ms MS       limit of the request in ms (default ${CHECK_TIMEOUT_MS}), and of the search for a local
                        server when nothing is configured (default ${COMMAND_DISCOVERY_TIMEOUT_MS})`,
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
    '                        [--max-output-stall-ms MS] [--max-connections-per-address N] [--handshake-timeout-ms MS]',
    '                        [--idle-timeout-ms MS] [--allow-mcp COMMAND,...] [--allow-private-urls RANGE,...]',
    '                        [--base-url URL] [--model ID]',
    '',
    "Serves the agent over the network on ACP's Streamable HTTP & WebSocket transport: one endpoint,",
    'http://HOST:PORT/acp (POST/GET/DELETE, or a WebSocket upgrade). Each connection is its own ACP',
    'connection over the sessions of this process, saved in the state directory as for the stdio',
    "agent (a volume several replicas share: one process writes a session at a time). A client's",
    'files and terminals are used when it advertises them; otherwise tools run here, inside the root.',
    'GET /health answers 200 while the process runs; GET /ready 200 while it is healthy, 503 while',
    'stopping, configured wrongly, its event loop held up or its session store unwritable (a full',
    'server stays ready: a new connection is refused 503). SIGTERM drains: running turns answer',
    'cancelled first; a second SIGTERM waits for the same drain.',
    '',
    'A client cannot make this machine run its commands or reach its network: stdio MCP servers it',
    'names are refused unless --allow-mcp names the command; HTTP MCP servers and fetch_url never',
    'reach link-local or cloud metadata addresses, nor private or loopback ones unless allowed.',
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
    `  --max-connections-per-address N  connections open at once from one client address (default`,
    `                        ${SERVE_LIMITS.maxConnectionsPerAddress}; behind a reverse proxy every client has its address: raise it)`,
    `  --handshake-timeout-ms MS  a WebSocket without initialize is closed after this (default ${SERVE_LIMITS.handshakeTimeoutMs})`,
    `  --idle-timeout-ms MS  a WebSocket with no message either way is closed after this (default ${SERVE_LIMITS.idleTimeoutMs})`,
    '  --allow-mcp COMMAND,... stdio MCP server commands clients may name, matched exactly ("npx",',
    '                        "/opt/mcp/bin/server"; * for any: that is running their code here); or set',
    '                        OPENAI_ACP_SERVE_ALLOW_MCP. Default: none',
    '  --allow-private-urls RANGE,...  private or loopback addresses HTTP MCP servers and fetch_url may',
    '                        reach (10.0.0.0/8, 127.0.0.1, or all); or set OPENAI_ACP_SERVE_ALLOW_PRIVATE_URLS.',
    '                        Link-local and cloud metadata addresses are never reached. Default: none',
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
  const width = Math.max(...SETTINGS_TABLE.map(([name]) => name.length)) + 2;
  const settings = SETTINGS_TABLE.map(([name, def, meaning]) => `  ${name.padEnd(width)}${meaning}\n  ${' '.repeat(width)}default: ${def}`);
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
    `  openai-acp serve           serve ACP over the network (WebSocket and Streamable HTTP) on port ${DEFAULT_SERVE_PORT} (see serve --help)`,
    '  openai-acp --version, -v   print the version',
    '  openai-acp --help, -h      print this help (openai-acp COMMAND --help for a command)',
    '',
    'Flags (also as --flag=value):',
    ...flags,
    `  ${'--timeout-ms MS'.padEnd(22)}doctor and models: limit of each check in ms (default ${CHECK_TIMEOUT_MS})`,
    `  ${''.padEnd(22)}and of the search for a local server (default ${COMMAND_DISCOVERY_TIMEOUT_MS})`,
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
