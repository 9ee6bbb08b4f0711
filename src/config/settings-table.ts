/**
 * The settings table: every environment variable the agent reads, with its default and meaning,
 * as `openai-acp --help` shows it (and the README repeats it). Data only; the values are read and
 * checked by `load-config.ts`.
 */
import { CONFIG_DEFAULTS } from './config.js';
import { PROVIDER_IDS } from './providers.js';

/**
 * Every environment variable as `[name, default as shown, meaning]`, in the order `--help` lists
 * them. The README has the same table (test/readme.test.ts checks it).
 */
export const SETTINGS_TABLE: readonly (readonly [string, string, string])[] = [
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
  ['OPENAI_QUERY_FILE', 'unset', 'file holding OPENAI_QUERY (when it carries a key); trailing newline stripped; not with OPENAI_QUERY'],
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
    'OPENAI_ACP_TOOL_ENV_KEEP',
    'unset',
    'variables (names or * patterns, comma-separated) local commands and stdio MCP servers keep although they look like secrets ' +
      "(*KEY*, *SECRET*, *TOKEN*, *PASSWORD*, *CREDENTIAL*, AWS_*, AZURE_*); the agent's own key and tokens only by exact name",
  ],
  ['OPENAI_ACP_TOOL_ENV_DROP', 'unset', 'variables (names or * patterns) local commands and stdio MCP servers never get'],
  [
    'OPENAI_ACP_SANDBOX',
    'auto under serve, off on stdio',
    'run local commands and stdio MCP servers in a bubblewrap sandbox (Linux): workspace writable, the rest read-only, ' +
      'secrets and sessions hidden; on: refuse commands where it cannot run; auto: where it can',
  ],
  ['OPENAI_ACP_SANDBOX_NETWORK', 'off', 'on: sandboxed commands and MCP servers may use the network'],
  [
    'HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY',
    'unset',
    'outgoing http(s) proxy (HTTPS_PROXY for https endpoints, HTTP_PROXY for http ones); NO_PROXY hosts go direct',
  ],
  ['NODE_EXTRA_CA_CERTS', 'unset', 'PEM file of extra certificate authorities'],
];
