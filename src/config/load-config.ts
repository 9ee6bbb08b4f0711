/**
 * Configuration loading, kept pure: an environment (optionally merged with `.env` text) and the
 * CLI flags become a validated {@link Config}, or a {@link ConfigError} that lists every invalid
 * value at once. Values of `OPENAI_API_KEY` and `OPENAI_HEADERS` are secrets and never appear in
 * an error message.
 */
import { parse as parseDotEnv } from 'dotenv';
import { parseProviderId, PROVIDER_IDS } from './providers.js';
import { LOG_FORMATS, type LogLevel } from '../shared/log.js';
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
  parseNameList,
  parseTemperature,
  queryProblem,
  quote,
} from './config-values.js';
import { mergeQueries } from './query-string.js';
import { applySecretFiles, CONFIG_SECRET_FILES, readTextFile, type ReadTextFile } from './secret-files.js';
import { EXTRA_BODY_ACCEPTED, parseExtraBody } from './extra-body.js';
import { CONFIG_DEFAULTS, ConfigError, type CliFlags, type Config } from './config.js';

/** The log levels, most severe first. */
const LOG_LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

/**
 * Builds the {@link Config} from environment variables (see the table in the README or `--help`)
 * and CLI flags, which override their variables. Values are trimmed; empty means unset.
 *
 * `OPENAI_API_KEY_FILE`, `OPENAI_HEADERS_FILE` and `OPENAI_QUERY_FILE` are read through `readFile` (see `secret-files.ts`).
 *
 * @throws {ConfigError} listing every invalid value at once (and never any other error).
 */
export function loadConfig(givenEnv: Record<string, string | undefined>, flags: CliFlags = {}, readFile: ReadTextFile = readTextFile): Config {
  const { env, problems } = applySecretFiles(givenEnv, readFile, CONFIG_SECRET_FILES);
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

  const onOff = (raw: string) =>
    /^(on|true|1|yes)$/i.test(raw) ? true : /^(off|false|0|no)$/i.test(raw) ? false : invalid(`${quote(raw)} is neither on nor off`);
  const sandbox = check('OPENAI_ACP_SANDBOX', 'on, off or auto', (raw) => {
    if (raw.toLowerCase() === 'auto') return 'auto' as const;
    const value = onOff(raw);
    return value instanceof InvalidValue ? invalid(`${quote(raw)} is not on, off or auto`) : value ? ('on' as const) : ('off' as const);
  });
  const sandboxNetwork = check('OPENAI_ACP_SANDBOX_NETWORK', 'on or off', onOff);
  const nameList = 'variable names or * patterns separated by commas, e.g. GITHUB_TOKEN,NPM_*';
  const toolEnvKeep = check('OPENAI_ACP_TOOL_ENV_KEEP', nameList, parseNameList);
  const toolEnvDrop = check('OPENAI_ACP_TOOL_ENV_DROP', nameList, parseNameList);

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
    sandbox,
    sandboxNetwork: sandboxNetwork ?? false,
    toolEnvKeep: toolEnvKeep ?? [],
    toolEnvDrop: toolEnvDrop ?? [],
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
