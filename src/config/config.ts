/**
 * Configuration loading, kept pure: an environment (optionally merged with `.env` text) and the
 * CLI flags become a validated {@link Config}, or a {@link ConfigError} that lists every invalid
 * value at once. Values of `OPENAI_API_KEY` and `OPENAI_HEADERS` are secrets and never appear in
 * an error message.
 */
import { parse as parseDotEnv } from 'dotenv';
import { parseProviderId, PROVIDER_IDS } from './providers.js';
import type { ProviderId } from './provider-profiles.js';
import { LOG_FORMATS, type LogFormat, type LogLevel } from '../log.js';
import {
  ACCEPTED,
  invalid,
  InvalidValue,
  MAX_NUM_CTX,
  MAX_TIMER_MS,
  NOT_SENDABLE,
  parseBaseUrl,
  parseHeaders,
  parseInteger,
  parseModelList,
  parseTemperature,
  queryProblem,
  quote,
  type ConfigProblem,
} from './config-values.js';
import { decodeQueryPiece, mergeQueries } from './query-string.js';
import { applySecretFiles, readTextFile, type ReadTextFile } from './secret-files.js';
import { EXTRA_BODY_ACCEPTED, parseExtraBody } from './extra-body.js';
import { PUBLIC_HEADER, PUBLIC_QUERY } from '../redact.js';

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
}

/** Thrown by {@link loadConfig} when at least one value is invalid. */
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

/** The log levels, most severe first. */
const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

/**
 * Builds the {@link Config} from environment variables (see the table in the README or `--help`)
 * and CLI flags, which override their variables. Values are trimmed; empty means unset.
 *
 * `OPENAI_API_KEY_FILE` and `OPENAI_HEADERS_FILE` are read through `readFile` (see `secret-files.ts`).
 *
 * @throws {ConfigError} listing every invalid value at once (and never any other error).
 */
export function loadConfig(givenEnv: Record<string, string | undefined>, flags: CliFlags = {}, readFile: ReadTextFile = readTextFile): Config {
  const { env, problems } = applySecretFiles(givenEnv, readFile);
  const read = (name: string, flag?: string): [string | undefined, string] => {
    const fromFlag = typeof flag === 'string' ? flag.trim() : '';
    if (fromFlag) return [fromFlag, `--${name.slice(7).toLowerCase().replace(/_/g, '-')}`];
    const value = env[name];
    return [typeof value === 'string' && value.trim() ? value.trim() : undefined, name];
  };
  /** Runs `parse` on the variable when set; records a problem and returns `undefined` when invalid. */
  const check = <T>(name: string, accepted: string, parse: (raw: string) => T | InvalidValue, flag?: string): T | undefined => {
    const [raw, variable] = read(name, flag);
    if (raw === undefined) return undefined;
    let result: T | InvalidValue;
    try {
      result = parse(raw);
    } catch {
      result = invalid('could not be read');
    }
    if (!(result instanceof InvalidValue)) return result;
    problems.push({ variable, problem: result.text, accepted });
    return undefined;
  };
  const integer =
    (min: number, max = Number.MAX_SAFE_INTEGER) =>
    (raw: string) =>
      parseInteger(raw, min, max);

  const base = check('OPENAI_BASE_URL', ACCEPTED.url, parseBaseUrl, flags.baseUrl);
  const apiKey = check('OPENAI_API_KEY', 'the key as one line of plain text (no control or non-Latin-1 characters)', (raw) =>
    NOT_SENDABLE.test(raw) ? invalid('contains characters that cannot be sent in an HTTP header') : raw.replace(/^bearer\s+/i, '') || undefined,
  );
  const [model] = read('OPENAI_MODEL', flags.model);
  const models = check('OPENAI_MODELS', 'model ids separated by commas, or a JSON array of strings', parseModelList);
  const [systemPrompt] = read('OPENAI_SYSTEM_PROMPT', flags.systemPrompt);
  const maxTokens = check('OPENAI_MAX_TOKENS', ACCEPTED.tokens, integer(1));
  const temperature = check('OPENAI_TEMPERATURE', 'a number from 0 to 2', parseTemperature);
  const headers = check('OPENAI_HEADERS', ACCEPTED.headers, (raw) => {
    const result = parseHeaders(raw);
    for (const problem of result.problems) problems.push({ variable: 'OPENAI_HEADERS', problem, accepted: ACCEPTED.headers });
    return result.headers;
  });
  const extraQuery = check('OPENAI_QUERY', 'URL query parameters such as api-version=2024-10-21', (raw) => {
    const query = raw.replace(/^\?/, '');
    const bad = queryProblem(query);
    return bad ? invalid(bad) : query;
  });
  const extraBody = check('OPENAI_EXTRA_BODY', EXTRA_BODY_ACCEPTED, parseExtraBody);
  const maxRetries = check('OPENAI_MAX_RETRIES', 'a whole number, 0 or more', integer(0));
  const timeoutMs = check('OPENAI_TIMEOUT_MS', `a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`, integer(1, MAX_TIMER_MS));
  const contextWindow = check('OPENAI_CONTEXT_WINDOW', ACCEPTED.tokens, integer(1));
  const logLevel = check(
    'OPENAI_ACP_LOG',
    'one of error, warn, info, debug',
    (raw) => LOG_LEVELS.find((level) => level === raw.toLowerCase()) ?? invalid(`${quote(raw)} is not a log level`),
  );

  const logFormat = check(
    'OPENAI_ACP_LOG_FORMAT',
    'text or json',
    (raw) => LOG_FORMATS.find((format) => format === raw.toLowerCase()) ?? invalid(`${quote(raw)} is not a log format`),
  );
  const provider = check(
    'OPENAI_PROVIDER',
    `one of ${PROVIDER_IDS.join(', ')}`,
    (raw) => parseProviderId(raw) ?? invalid(`${quote(raw)} is not a known provider`),
  );
  const [stateDir] = read('OPENAI_ACP_STATE_DIR');
  const [ripgrep] = read('OPENAI_ACP_RIPGREP');
  const searchTimeoutMs = check('OPENAI_ACP_SEARCH_TIMEOUT_MS', `a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`, integer(1, MAX_TIMER_MS));
  const sessionIdleMs = check('OPENAI_ACP_SESSION_IDLE_MS', `a whole number of milliseconds from 0 (never) to ${MAX_TIMER_MS}`, integer(0, MAX_TIMER_MS));
  const tools = check('OPENAI_ACP_TOOLS', 'on or off', (raw) =>
    /^(on|true|1|yes)$/i.test(raw) ? true : /^(off|false|0|no)$/i.test(raw) ? false : invalid(`${quote(raw)} is neither on nor off`),
  );
  const maxSteps = check('OPENAI_ACP_MAX_STEPS', 'a whole number of model requests, 1 or more', integer(1, 10_000));
  const mcpStartupMs = check('OPENAI_ACP_MCP_STARTUP_MS', `a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`, integer(1, MAX_TIMER_MS));
  const mcpToolTimeoutMs = check('OPENAI_ACP_MCP_TOOL_TIMEOUT_MS', `a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`, integer(1, MAX_TIMER_MS));
  const fetchTimeoutMs = check('OPENAI_ACP_FETCH_TIMEOUT_MS', `a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`, integer(1, MAX_TIMER_MS));
  const ollamaNumCtx = check('OPENAI_ACP_OLLAMA_NUM_CTX', ACCEPTED.ollamaNumCtx, integer(0, MAX_NUM_CTX));
  const inContainer = check('OPENAI_ACP_IN_CONTAINER', 'auto, true or false', (raw) => {
    const value = raw.toLowerCase();
    if (value === 'auto') return 'auto' as const;
    if (['1', 'true', 'yes', 'on'].includes(value)) return true;
    return ['0', 'false', 'no', 'off'].includes(value) ? false : invalid(`${quote(raw)} is not auto, true or false`);
  });

  const baseUrl = base?.baseUrl ?? CONFIG_DEFAULTS.baseUrl;
  const query = mergeQueries(base?.query, extraQuery);
  const config: Config = {
    baseUrl,
    chatCompletionsUrl: `${baseUrl}/chat/completions${query ? `?${query}` : ''}`,
    apiKey,
    model: model ?? CONFIG_DEFAULTS.model,
    models,
    systemPrompt,
    maxTokens,
    temperature,
    headers: headers ?? {},
    query,
    extraBody,
    maxRetries: maxRetries ?? CONFIG_DEFAULTS.maxRetries,
    timeoutMs: timeoutMs ?? CONFIG_DEFAULTS.timeoutMs,
    contextWindow,
    logLevel: logLevel ?? CONFIG_DEFAULTS.logLevel,
    logFormat: logFormat ?? 'text',
    provider,
    stateDir,
    tools: tools ?? CONFIG_DEFAULTS.tools,
    maxSteps: maxSteps ?? CONFIG_DEFAULTS.maxSteps,
    mcpStartupMs: mcpStartupMs ?? CONFIG_DEFAULTS.mcpStartupMs,
    mcpToolTimeoutMs: mcpToolTimeoutMs ?? CONFIG_DEFAULTS.mcpToolTimeoutMs,
    fetchTimeoutMs: fetchTimeoutMs ?? CONFIG_DEFAULTS.fetchTimeoutMs,
    ripgrep,
    searchTimeoutMs: searchTimeoutMs ?? CONFIG_DEFAULTS.searchTimeoutMs,
    sessionIdleMs: sessionIdleMs ?? CONFIG_DEFAULTS.sessionIdleMs,
    inContainer: inContainer === 'auto' ? undefined : inContainer,
    endpointConfigured: read('OPENAI_BASE_URL', flags.baseUrl)[0] !== undefined || read('OPENAI_API_KEY')[0] !== undefined,
    modelConfigured: model !== undefined,
    // The window the user set is the one asked of Ollama, unless they chose num_ctx themselves.
    ollamaNumCtx: ollamaNumCtx ?? contextWindow ?? CONFIG_DEFAULTS.ollamaNumCtx,
  };
  if (problems.length > 0) throw new ConfigError(problems, config);
  return config;
}

/**
 * Merges `.env` file text under a real environment: a variable present in `env` (even empty) wins.
 * Uses dotenv's `parse`; malformed text yields what could be read, and never throws.
 *
 * @returns a new object; neither input is modified.
 */
export function mergeDotEnv(envFileText: string | undefined, env: Record<string, string | undefined>): Record<string, string | undefined> {
  let fromFile: Record<string, string> = {};
  try {
    if (envFileText) fromFile = parseDotEnv(envFileText);
  } catch {
    fromFile = {};
  }
  const present = Object.entries(env).filter(([, value]) => value !== undefined);
  return Object.fromEntries([...Object.entries(fromFile), ...present]);
}

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
