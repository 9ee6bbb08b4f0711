/**
 * The optional config file that names several endpoints (providers) for one agent:
 * `OPENAI_ACP_CONFIG`, default `$XDG_CONFIG_HOME/openai-acp/config.json`
 * (`~/.config/openai-acp/config.json`). Read once at start (each provider entry checked by
 * `config-file-provider.ts`); written by `openai-acp setup`.
 *
 * ```json
 * { "providers": [{ "id": "ollama", "baseUrl": "http://127.0.0.1:11434/v1" },
 *                 { "id": "openrouter", "baseUrl": "https://openrouter.ai/api/v1", "apiKeyEnv": "OPENROUTER_API_KEY" }],
 *   "model": "ollama/llama3.2" }
 * ```
 */
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ConfigProblem } from './config-values.js';
import { parseProviderEntry, type FileProvider } from './config-file-provider.js';
import { readTextFile, type ReadTextFile } from './secret-files.js';
import { isRecord } from '../shared/json-value.js';

/** One provider entry as written in the file. */
export interface ConfigFileProvider {
  /** Name used in model values `providerId/modelId`: letters, digits, `.`, `_`, `-`. */
  id: string;
  /** Provider family (`ollama`, `azure`, …); detected from `baseUrl` when absent. */
  provider?: string;
  /** Endpoint base, as `OPENAI_BASE_URL`. */
  baseUrl: string;
  /** Name of the environment variable holding the key (the documented way). */
  apiKeyEnv?: string;
  /** The key itself (allowed; prefer `apiKeyEnv`). */
  apiKey?: string;
  /** A file holding the key (a Docker or Kubernetes secret); one trailing newline stripped. Not with `apiKey` or `apiKeyEnv`. */
  apiKeyFile?: string;
  /** Extra request headers, as `OPENAI_HEADERS`. */
  headers?: Record<string, string>;
  /** Extra query string, as `OPENAI_QUERY`. */
  query?: string;
  /** Model ids offered when the endpoint's `/models` lists nothing, as `OPENAI_MODELS`. */
  models?: string[];
  /** Fields merged into every chat request to this provider, as `OPENAI_EXTRA_BODY`. */
  extraBody?: Record<string, unknown>;
}

/** The whole file. */
export interface ConfigFileData {
  providers: ConfigFileProvider[];
  /** The default model, `providerId/modelId` (or a bare id of the first provider). */
  model?: string;
}

/** The result of reading the file. */
export interface ConfigFileResult {
  path: string;
  providers: FileProvider[];
  model: string | undefined;
}

/** `line L, column C` (1-based) of a character offset in `text`. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/** Provider ids: used in `providerId/modelId`, so no `/`. */
const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * The agent's config directory: `$XDG_CONFIG_HOME/openai-acp`, else `~/.config/openai-acp` (XDG
 * Base Directory spec: an unset or relative `XDG_CONFIG_HOME` is ignored). It holds `config.json`,
 * the user-wide `AGENTS.md` and the user's `commands/*.md`.
 */
export function agentConfigDir(env: Record<string, string | undefined>): string {
  const xdg = env['XDG_CONFIG_HOME']?.trim();
  const base = xdg?.startsWith('/') ? xdg : join(env['HOME']?.trim() || homedir(), '.config');
  return join(base, 'openai-acp');
}

/**
 * The config file path: `OPENAI_ACP_CONFIG` when set, else `config.json` in {@link agentConfigDir}
 * (`$XDG_CONFIG_HOME/openai-acp/config.json`, else `~/.config/openai-acp/config.json`).
 */
export function defaultConfigPath(env: Record<string, string | undefined>): string {
  const explicit = env['OPENAI_ACP_CONFIG']?.trim();
  if (explicit) return explicit;
  return join(agentConfigDir(env), 'config.json');
}

/**
 * Validates the file's text. Pure: `env` is only read for `apiKeyEnv` variables, and `readFile`
 * only for `apiKeyFile` paths.
 *
 * @param label - how problems name the file, e.g. its path.
 * @returns the providers, or every problem found (each naming `label` and the entry's JSON path; never a secret value).
 */
export function parseConfigFile(
  text: string,
  env: Record<string, string | undefined>,
  label: string,
  readFile: ReadTextFile = readTextFile,
): ConfigFileResult | ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const report = (where: string, problem: string, accepted: string) => problems.push({ variable: `${label} ${where}`.trim(), problem, accepted });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text around the error, which may be a key: only its position is kept.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    report(
      '',
      `is not valid JSON${position === undefined ? '' : ` (${lineAndColumn(text, Number(position))})`}`,
      'a JSON object like {"providers": [{"id": "ollama", "baseUrl": "http://127.0.0.1:11434/v1"}]}',
    );
    return problems;
  }
  if (!isRecord(parsed) || !Array.isArray(parsed['providers'])) {
    report('', 'has no "providers" array', 'a JSON object like {"providers": [{"id": "ollama", "baseUrl": "http://127.0.0.1:11434/v1"}]}');
    return problems;
  }
  const providers: FileProvider[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of (parsed['providers'] as unknown[]).entries()) {
    const at = (key: string) => `providers[${index}]${key ? `.${key}` : ''}`;
    if (!isRecord(entry)) {
      report(at(''), 'is not an object', 'an object with "id" and "baseUrl"');
      continue;
    }
    const id = entry['id'];
    if (typeof id !== 'string' || !PROVIDER_ID.test(id)) {
      report(at('id'), 'is missing or not a valid id', 'letters, digits, ".", "_" or "-", starting with a letter or digit (no "/")');
      continue;
    }
    if (seen.has(id)) {
      report(at('id'), `repeats the id ${JSON.stringify(id)}`, 'a unique id per provider');
      continue;
    }
    seen.add(id);
    const provider = parseProviderEntry(entry, id, at, report, env, readFile);
    if (provider) providers.push(provider);
  }
  if (parsed['providers'].length === 0) report('providers', 'is empty', 'at least one provider');
  const model = parsed['model'];
  if (model !== undefined && (typeof model !== 'string' || !model.trim() || model.trim().endsWith('/')))
    report('model', 'is not a model id', '"providerId/modelId", e.g. "ollama/llama3.2"');
  if (problems.length > 0) return problems;
  return { path: label, providers, model: typeof model === 'string' ? model.trim() : undefined };
}

/**
 * Writes the config file atomically (temp file, fsync, rename) with mode 0600, creating its
 * directory with mode 0700 when missing.
 *
 * @throws the file system's error (e.g. EACCES) when it cannot be written.
 */
export async function writeConfigFile(path: string, data: ConfigFileData): Promise<void> {
  // Loaded here: only `openai-acp setup` writes the file, and the agent's start-up need not pay for them.
  const [{ randomUUID }, { chmod, mkdir, open, rename, rm }] = await Promise.all([import('node:crypto'), import('node:fs/promises')]);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // A name of its own per write, so overlapping writes never share a temp file.
  const temp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(data, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, 0o600);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
