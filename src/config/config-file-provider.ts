/**
 * One provider entry of the config file (`config-file.ts`) checked and made ready to become an
 * endpoint: its base URL, provider family, key (from `apiKeyEnv`, `apiKey` or `apiKeyFile`),
 * headers, query, models and extra body, each problem reported with the entry's JSON path and
 * never a secret value.
 */
import { ACCEPTED, InvalidValue, parseBaseUrl, parseHeaders, queryProblem, type ConfigProblem } from './config-values.js';
import { checkExtraBody, EXTRA_BODY_ACCEPTED } from './extra-body.js';
import type { ProviderId } from './provider-profiles.js';
import { parseProviderId, PROVIDER_IDS } from './providers.js';
import { mergeQueries } from './query-string.js';
import type { ReadTextFile } from './secret-files.js';

/** A provider entry after validation, ready to become an endpoint. */
export interface FileProvider {
  id: string;
  /** The provider family; `undefined` = detect from the base URL. */
  provider: ProviderId | undefined;
  baseUrl: string;
  query: string | undefined;
  apiKey: string | undefined;
  headers: Record<string, string>;
  models: string[] | undefined;
  /** Fields merged into every chat request (`extraBody`); `undefined` when absent or `{}`. */
  extraBody?: Record<string, unknown> | undefined;
  /** Set when `apiKeyEnv` names a variable that is not set (requests go without a key). */
  missingKeyEnv?: string;
}

/** Reports one problem of an entry: where (its JSON path), what, and what is accepted there. */
type Report = (where: string, problem: string, accepted: ConfigProblem['accepted']) => void;

/** Whether `key` can travel in an HTTP header: one line, Latin-1 only. */
const sendableKey = (key: string) => !/[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/.test(key);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The provider entry `entry`, whose `id` was checked already; `at(key)` is the JSON path of one of
 * its keys. `env` is read only for `apiKeyEnv`, `readFile` only for `apiKeyFile`.
 * @returns the provider, or `undefined` when a problem with it was reported.
 */
export function parseProviderEntry(
  entry: Record<string, unknown>,
  id: string,
  at: (key: string) => string,
  given: Report,
  env: Record<string, string | undefined>,
  readFile: ReadTextFile,
): FileProvider | undefined {
  let failed = false;
  const report: Report = (where, problem, accepted) => {
    failed = true;
    given(where, problem, accepted);
  };
  const base = typeof entry['baseUrl'] === 'string' ? parseBaseUrl(entry['baseUrl'].trim()) : new InvalidValue('is missing');
  if (base instanceof InvalidValue) report(at('baseUrl'), base.text, ACCEPTED.url);
  const provider = entry['provider'];
  const family = typeof provider === 'string' ? parseProviderId(provider) : undefined;
  if (provider !== undefined && !family) report(at('provider'), 'is not a known provider family', `one of ${PROVIDER_IDS.join(', ')}`);
  const { apiKey, missingKeyEnv } = entryKey(entry, at, report, env, readFile);
  let headers: Record<string, string> = {};
  if (entry['headers'] !== undefined) {
    const result = parseHeaders(JSON.stringify(entry['headers']));
    for (const problem of result.problems) report(at('headers'), problem, ACCEPTED.headers);
    headers = result.headers;
  }
  let query: string | undefined;
  if (entry['query'] !== undefined) {
    const raw = typeof entry['query'] === 'string' ? entry['query'].trim().replace(/^\?/, '') : undefined;
    const bad = raw === undefined ? 'is not a string' : queryProblem(raw);
    if (bad) report(at('query'), bad, 'URL query parameters such as api-version=2024-10-21');
    else query = raw || undefined;
  }
  let models: string[] | undefined;
  if (entry['models'] !== undefined) {
    const list = entry['models'];
    if (!Array.isArray(list) || !list.every((m) => typeof m === 'string'))
      report(at('models'), 'is not an array of strings', 'model ids such as ["llama3.2", "qwen3"]');
    else models = [...new Set(list.map((m) => m.trim()).filter(Boolean))];
  }
  let extraBody: Record<string, unknown> | undefined;
  if (entry['extraBody'] !== undefined) {
    const checked = checkExtraBody(entry['extraBody']);
    if (checked instanceof InvalidValue) report(at('extraBody'), checked.text, EXTRA_BODY_ACCEPTED);
    else extraBody = checked;
  }
  if (failed || base instanceof InvalidValue) return undefined;
  return {
    id,
    provider: family,
    baseUrl: base.baseUrl,
    query: mergeQueries(base.query, query),
    apiKey,
    headers,
    models: models?.length ? models : undefined,
    ...(extraBody ? { extraBody } : {}),
    ...(missingKeyEnv ? { missingKeyEnv } : {}),
  };
}

/** The key of an entry from `apiKeyEnv`, `apiKey` or `apiKeyFile`; `missingKeyEnv` when `apiKeyEnv` names an unset variable. */
function entryKey(
  entry: Record<string, unknown>,
  at: (key: string) => string,
  report: Report,
  env: Record<string, string | undefined>,
  readFile: ReadTextFile,
): { apiKey: string | undefined; missingKeyEnv: string | undefined } {
  let apiKey: string | undefined;
  let missingKeyEnv: string | undefined;
  const keyEnv = entry['apiKeyEnv'];
  if (keyEnv !== undefined) {
    if (typeof keyEnv !== 'string' || !ENV_NAME.test(keyEnv))
      report(at('apiKeyEnv'), 'is not an environment variable name', 'a name such as OPENROUTER_API_KEY');
    else {
      const value = env[keyEnv]?.trim();
      if (value && !sendableKey(value))
        report(at('apiKeyEnv'), `names ${keyEnv}, whose value cannot be sent in an HTTP header`, 'the key as one line of plain text');
      else if (value) apiKey = value.replace(/^bearer\s+/i, '');
      else missingKeyEnv = keyEnv;
    }
  }
  const key = entry['apiKey'];
  if (key !== undefined) {
    if (typeof key !== 'string' || !sendableKey(key))
      report(at('apiKey'), 'is not a key that can be sent in an HTTP header', 'the key as one line of plain text');
    else if (!apiKey && key.trim()) {
      apiKey = key.trim().replace(/^bearer\s+/i, '');
      missingKeyEnv = undefined;
    }
  }
  const keyFile = entry['apiKeyFile'];
  if (keyFile !== undefined) {
    const accepted = 'the path of a readable file holding the key (and neither apiKey nor apiKeyEnv)';
    if (typeof keyFile !== 'string' || !keyFile.trim()) report(at('apiKeyFile'), 'is not a file path', accepted);
    else if (keyEnv !== undefined || key !== undefined) report(at('apiKeyFile'), 'is set together with apiKey or apiKeyEnv', accepted);
    else {
      try {
        const value = readFile(keyFile.trim())
          .replace(/\r?\n$/, '')
          .trim();
        if (value && !sendableKey(value)) report(at('apiKeyFile'), `names ${keyFile.trim()}, whose content cannot be sent in an HTTP header`, accepted);
        else apiKey = value.replace(/^bearer\s+/i, '') || undefined;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        report(at('apiKeyFile'), `cannot read the file ${keyFile.trim()}${typeof code === 'string' ? ` (${code})` : ''}`, accepted);
      }
    }
  }
  return { apiKey, missingKeyEnv };
}
