/**
 * The agent's settings: the validated {@link Config}, the defaults, the CLI flags that override
 * variables, the {@link ConfigError} listing every invalid value, and which values are secrets.
 * Reading them from the environment is `load-config.ts`; what each variable means, for the help,
 * `settings-table.ts`.
 */
import type { ProviderId } from './provider-profiles.js';
import type { LogFormat, LogLevel } from '../shared/log.js';
import type { ConfigProblem } from './config-values.js';
import { decodeQueryPiece } from './query-string.js';
import { PUBLIC_HEADER, PUBLIC_QUERY } from '../shared/redact.js';

/** The agent's settings, validated and normalized. */
export interface Config {
  /** Endpoint base without trailing slashes, `/chat/completions` or query, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** `baseUrl + '/chat/completions'`, plus `'?' + query` when there is a query. Never doubled. */
  chatCompletionsUrl: string;
  /** Sent as `Authorization: Bearer …`; `undefined` (no `Authorization` header at all) when empty or unset. */
  apiKey: string | undefined;
  /** Model id; default `gpt-4o`. */
  model: string;
  /**
   * Model ids offered in the model picker when the endpoint's `GET /models` lists nothing, from
   * `OPENAI_MODELS` (a comma-separated list or a JSON array of strings), deduplicated, in order;
   * `undefined` when unset.
   */
  models: string[] | undefined;
  /** System message put before every request; `undefined` when unset. */
  systemPrompt: string | undefined;
  /** `max_tokens` for every request, a positive integer (tokens); `undefined` when unset. */
  maxTokens: number | undefined;
  /** Sampling temperature from 0 to 2; `undefined` when unset. */
  temperature: number | undefined;
  /** Extra request headers from `OPENAI_HEADERS` (JSON numbers and booleans become strings); default `{}`. */
  headers: Record<string, string>;
  /** Query string without its leading `?`, e.g. `api-version=2024-10-21` (OPENAI_QUERY and the base URL's own, combined). */
  query: string | undefined;
  /**
   * Fields merged into every chat request (`OPENAI_EXTRA_BODY`, a JSON object; see
   * `openai/extra-body.ts` for precedence); `undefined` when unset or `{}`.
   */
  extraBody: Record<string, unknown> | undefined;
  /** Retries of a failed request, a non-negative integer; default 2. */
  maxRetries: number;
  /** Longest silence in ms before a request is abandoned, 1 to 2147483647; default 600000. */
  timeoutMs: number;
  /** The model's context window, a positive integer (tokens); `undefined` when unset. */
  contextWindow: number | undefined;
  /** stderr log level; default `info`. */
  logLevel: LogLevel;
  /** stderr line format (`OPENAI_ACP_LOG_FORMAT`): `text`, or `json` for log collectors; default `text`. */
  logFormat: LogFormat;
  /** Provider family from `OPENAI_PROVIDER` (lower-cased; validated against the known families); `undefined` = detect from the base URL. */
  provider: ProviderId | undefined;
  /**
   * `OPENAI_ACP_IN_CONTAINER`: whether the zero-configuration search also looks on the container's
   * host (`host.docker.internal`); `undefined` (`auto`, the default) detects it.
   */
  inContainer: boolean | undefined;
  /** Raw `OPENAI_ACP_STATE_DIR`: a directory, `off`, or `undefined` for the default. */
  stateDir: string | undefined;
  /** Whether `OPENAI_BASE_URL` (or `--base-url`) or `OPENAI_API_KEY` is set: when neither is, a local server is looked for. */
  endpointConfigured: boolean;
  /** Whether the model is offered tools (`OPENAI_ACP_TOOLS`, `on` or `off`); default true. Off: a pure chat bridge, no `tools` sent. */
  tools: boolean;
  /** Most model requests in one prompt turn (`OPENAI_ACP_MAX_STEPS`); default 50. */
  maxSteps: number;
  /** How long `session/new`, `load` and `resume` wait for MCP servers in total, in ms (`OPENAI_ACP_MCP_STARTUP_MS`); default 10000. */
  mcpStartupMs: number;
  /** Limit of one MCP tool call, in ms (`OPENAI_ACP_MCP_TOOL_TIMEOUT_MS`); default 60000. */
  mcpToolTimeoutMs: number;
  /** Limit of one `fetch_url` call, redirects and body included, in ms (`OPENAI_ACP_FETCH_TIMEOUT_MS`); default 30000. */
  fetchTimeoutMs: number;
  /**
   * `OPENAI_ACP_RIPGREP`: the ripgrep `search_files` runs (a path or a name on the PATH), `off` for the
   * JavaScript search; `undefined` (or `auto`) looks for `rg` on the PATH.
   */
  ripgrep: string | undefined;
  /** Time one `search_files` call may take, in ms (`OPENAI_ACP_SEARCH_TIMEOUT_MS`); default 10000. Then it answers with what it found so far. */
  searchTimeoutMs: number;
  /**
   * How long a session may go untouched (no prompt) before its conversation is let go of from
   * memory, read again from disk at its next prompt, in ms (`OPENAI_ACP_SESSION_IDLE_MS`); 0 never;
   * default 600000 (10 minutes).
   */
  sessionIdleMs: number;
  /** Whether `OPENAI_MODEL` (or `--model`) is set. */
  modelConfigured: boolean;
  /**
   * `OPENAI_ACP_OLLAMA_NUM_CTX`: the context window (tokens) asked of an Ollama server through its
   * native `/api/chat` (`options.num_ctx`), capped by the model's trained window; `0` keeps the
   * server's own window and the OpenAI-compatible `/v1` path. Default: `OPENAI_CONTEXT_WINDOW`
   * when that is set (so requests are planned for the window Ollama runs), else 32768.
   */
  ollamaNumCtx: number;
  /**
   * `OPENAI_ACP_SANDBOX`: whether local commands and stdio MCP servers run in a bubblewrap sandbox:
   * `on` (refuse to run them where the sandbox cannot run), `off`, `auto` (where it can run);
   * `undefined` (unset): `auto` under `serve`, `off` on stdio.
   */
  sandbox: 'on' | 'off' | 'auto' | undefined;
  /** `OPENAI_ACP_SANDBOX_NETWORK`: whether sandboxed processes reach the network; default false (loopback of their own only). */
  sandboxNetwork: boolean;
  /** `OPENAI_ACP_TOOL_ENV_KEEP`: variable names or `*` patterns tool processes keep over the default drop patterns; default `[]`. */
  toolEnvKeep: string[];
  /** `OPENAI_ACP_TOOL_ENV_DROP`: variable names or `*` patterns tool processes never get; default `[]`. */
  toolEnvDrop: string[];
}

/** Thrown by `loadConfig` (`load-config.ts`) when at least one value is invalid. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /**
   * @param problems - every invalid value, in the order of the settings table.
   * @param fallback - a Config built from the valid values with defaults in place of invalid ones,
   *   so the agent can still run and explain the problems.
   */
  constructor(
    readonly problems: ConfigProblem[],
    readonly fallback: Config,
  ) {
    super(`invalid configuration:\n${describeConfigProblems(problems)}`);
  }
}

/** Command-line flags; each overrides its environment variable. */
export interface CliFlags {
  /** `--base-url`, overrides OPENAI_BASE_URL. */
  baseUrl?: string;
  /** `--model`, overrides OPENAI_MODEL. */
  model?: string;
  /** `--system-prompt`, overrides OPENAI_SYSTEM_PROMPT. */
  systemPrompt?: string;
}

/** Defaults of the settings that have one. */
export const CONFIG_DEFAULTS = {
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-4o',
  maxRetries: 2,
  timeoutMs: 600_000,
  logLevel: 'info',
  tools: true,
  maxSteps: 50,
  mcpStartupMs: 10_000,
  mcpToolTimeoutMs: 60_000,
  fetchTimeoutMs: 30_000,
  searchTimeoutMs: 10_000,
  sessionIdleMs: 600_000,
  ollamaNumCtx: 32_768,
} as const satisfies Partial<Config>;

/** Human text of a {@link ConfigError}, one line per problem: `OPENAI_TEMPERATURE: "hot" is not a number; expected a number from 0 to 2.` */
export function describeConfigProblems(problems: ConfigProblem[]): string {
  return problems.map((p) => `${p.variable}: ${p.problem}; expected ${p.accepted}.`).join('\n');
}

/**
 * Secret strings to redact from logs and user-facing texts: the API key, every header value
 * except those of headers known to be public (`PUBLIC_HEADER`: `X-Title`, `HTTP-Referer`, …; an
 * `X-Gateway` value is a secret whatever its name), and every query value except a public
 * `api-version` (raw and decoded); for a value like `Bearer abc` also `abc` alone. Deduplicated,
 * longest first.
 */
export function secretsOf(config: Pick<Config, 'apiKey' | 'headers' | 'query'>): string[] {
  const found = new Set<string>();
  const add = (value: string | undefined, schemed = false) => {
    if (!value) return;
    found.add(value);
    const token = schemed ? /^[A-Za-z]+\s+(\S.*)$/.exec(value)?.[1] : undefined;
    if (token) found.add(token);
  };
  add(config.apiKey, true);
  for (const [name, value] of Object.entries(config.headers)) if (!PUBLIC_HEADER.test(name)) add(value, true);
  for (const piece of (config.query ?? '').split('&')) {
    const [name = '', value = ''] = piece.split(/=(.*)/s);
    if (!name || PUBLIC_QUERY.test(decodeQueryPiece(name))) continue;
    add(value);
    add(decodeQueryPiece(value));
  }
  return [...found].sort((a, b) => b.length - a.length);
}
