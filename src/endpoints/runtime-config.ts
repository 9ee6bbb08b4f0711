/**
 * The configuration the agent (and `doctor`, `models`) really uses: environment, `.env` in the
 * working directory, CLI flags and the config file, resolved without touching the network. The
 * endpoints it leads to, a local server found on the usual ports when none is configured at all,
 * are `endpoint-choice.ts`'s.
 */
import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { defaultConfigPath, parseConfigFile, type ConfigFileResult } from '../config/config-file.js';
import { CONFIG_DEFAULTS, ConfigError, secretsOf, type CliFlags, type Config } from '../config/config.js';
import { loadConfig } from '../config/load-config.js';
import { projectEnv, readProjectDotEnv, type ProjectEnv } from '../config/project-env.js';
import type { ConfigProblem } from '../config/config-values.js';
import type { NamedEndpointSettings } from './endpoint-registry.js';
import { takesListedModel } from './default-model.js';
import { detectProvider } from '../config/providers.js';

/** The configuration without the (asynchronous) local server search. */
export interface StaticRuntimeConfig {
  config: Config;
  /** Every invalid value of the environment, flags and config file; `undefined` when all are valid. */
  configError?: ConfigError | undefined;
  /** The endpoints, default first. Empty when none is configured (see `needsDiscovery`). */
  endpoints: NamedEndpointSettings[];
  /** The default model value (`providerId/modelId` with several endpoints). */
  model: string | undefined;
  /** The config file that was read, when one was. */
  configFilePath: string | undefined;
  /** True when neither `OPENAI_BASE_URL`/`--base-url`, `OPENAI_API_KEY` nor a config file names an endpoint. */
  needsDiscovery: boolean;
  /** Things worth a `warn` at start (no secrets), e.g. an `apiKeyEnv` naming an unset variable, or a `.env` key left out. */
  warnings: string[];
  /** Where each set `OPENAI_*` setting came from (flag, environment, `.env` with its path). */
  sources?: ProjectEnv['sources'] | undefined;
}

/** The endpoint the environment describes, as settings named `id`. */
export function environmentEndpoint(config: Config, id: string): NamedEndpointSettings {
  return {
    id,
    source: 'environment',
    provider: config.provider,
    baseUrl: config.baseUrl,
    chatCompletionsUrl: config.chatCompletionsUrl,
    apiKey: config.apiKey,
    headers: config.headers,
    query: config.query,
    model: config.model,
    models: config.models,
    extraBody: config.extraBody,
    maxRetries: config.maxRetries,
    timeoutMs: config.timeoutMs,
    ollamaNumCtx: config.ollamaNumCtx,
  };
}

/** Reads the config file; `undefined` when there is none at the default path. */
function readConfigFileAt(path: string, explicit: boolean, env: Record<string, string | undefined>): ConfigFileResult | ConfigProblem[] | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return undefined;
    return [
      {
        variable: explicit ? 'OPENAI_ACP_CONFIG' : 'the config file',
        problem: code === 'ENOENT' ? `${JSON.stringify(path)} does not exist` : `${JSON.stringify(path)} cannot be read (${code ?? 'error'})`,
        accepted: 'the path of a readable JSON config file',
      },
    ];
  }
  return parseConfigFile(text, env, path);
}

/**
 * Resolves everything but the local server search. Never throws: invalid values end up in
 * `configError` (with a usable fallback configuration).
 *
 * Endpoints: the environment's endpoint (id `default`) when `OPENAI_BASE_URL`/`--base-url` or
 * `OPENAI_API_KEY` is set, then the config file's providers in file order. The default model is
 * `OPENAI_MODEL`/`--model` when set, else the file's `model`, else the first endpoint's own model
 * (`undefined` when that is only a stand-in: the agent then takes the first chat model it lists).
 *
 * @param env - the process environment (`.env` in `cwd` is merged under it, its key only for its
 *   own base URL: `config/project-env.ts`).
 */
export function resolveStaticConfig(options: { flags: CliFlags; env: Record<string, string | undefined>; cwd: string }): StaticRuntimeConfig {
  const project = projectEnv(readProjectDotEnv(options.cwd), options.env, options.flags);
  const env = project.env;
  let config: Config;
  const problems: ConfigProblem[] = [];
  try {
    config = loadConfig(env, options.flags);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    config = error.fallback;
    problems.push(...error.problems);
  }
  const warnings: string[] = [...project.warnings];
  const path = resolvePath(options.cwd, defaultConfigPath(env));
  const file = readConfigFileAt(path, Boolean(env['OPENAI_ACP_CONFIG']?.trim()), env);
  const endpoints: NamedEndpointSettings[] = [];
  if (config.endpointConfigured) {
    const environment = environmentEndpoint(config, 'default');
    // Without OPENAI_MODEL, a self-hosted server's default is the first chat model it lists (gpt-4o only for OpenAI and Azure).
    if (!config.modelConfigured && takesListedModel(config.provider ?? detectProvider(config.baseUrl))) environment.modelIsStandIn = true;
    endpoints.push(environment);
  }
  if (Array.isArray(file)) problems.push(...file);
  else if (file) {
    for (const provider of file.providers) {
      if (endpoints.some((e) => e.id === provider.id)) {
        problems.push({
          variable: `${path} providers`,
          problem: `use the id ${JSON.stringify(provider.id)}, which the environment's endpoint has`,
          accepted: 'another id',
        });
        continue;
      }
      if (provider.missingKeyEnv)
        warnings.push(`provider "${provider.id}": ${provider.missingKeyEnv} (its apiKeyEnv) is not set, so its requests carry no key`);
      endpoints.push({
        id: provider.id,
        source: 'config file',
        provider: provider.provider,
        baseUrl: provider.baseUrl,
        chatCompletionsUrl: `${provider.baseUrl}/chat/completions${provider.query ? `?${provider.query}` : ''}`,
        apiKey: provider.apiKey,
        headers: provider.headers,
        query: provider.query,
        // Without a model of its own, the provider's default is the first chat model it lists.
        model: provider.models?.[0] ?? CONFIG_DEFAULTS.model,
        modelIsStandIn: !provider.models?.length,
        models: provider.models,
        extraBody: provider.extraBody,
        maxRetries: config.maxRetries,
        timeoutMs: config.timeoutMs,
        ollamaNumCtx: config.ollamaNumCtx,
      });
    }
  }
  const several = endpoints.length > 1;
  /**
   * The endpoint a model value names and the id on it: `providerId/modelId` with several
   * endpoints (and always in the file, whose values `setup` writes that way), else the first.
   */
  const address = (value: string, fromFile: boolean) => {
    const named = endpoints.find((e) => (several || fromFile) && value.startsWith(`${e.id}/`) && value.length > e.id.length + 1);
    return named ? { endpoint: named, id: value.slice(named.id.length + 1) } : endpoints[0] && { endpoint: endpoints[0], id: value };
  };
  const fileModel = file && !Array.isArray(file) ? file.model : undefined;
  const chosen = config.modelConfigured ? address(config.model, false) : fileModel ? address(fileModel, true) : undefined;
  if (chosen) {
    // OPENAI_MODEL naming a file provider's model is not the environment endpoint's model.
    const environment = endpoints.find((e) => e.source === 'environment');
    if (environment && chosen.endpoint !== environment) environment.model = CONFIG_DEFAULTS.model;
    chosen.endpoint.model = chosen.id;
    chosen.endpoint.modelIsStandIn = false;
  }
  const optionValue = (e: NamedEndpointSettings) => (several ? `${e.id}/${e.model}` : e.model);
  const first = endpoints[0];
  const model = chosen ? optionValue(chosen.endpoint) : first && !first.modelIsStandIn ? optionValue(first) : undefined;
  return {
    config,
    configError: problems.length > 0 ? new ConfigError(problems, config) : undefined,
    endpoints,
    model,
    configFilePath: file && !Array.isArray(file) ? path : undefined,
    needsDiscovery: endpoints.length === 0 && !Array.isArray(file),
    warnings,
    sources: project.sources,
  };
}

/** Every secret of the configuration (the environment's and each endpoint's, see {@link secretsOf}), for log redaction. */
export function secretsOfAll(resolved: StaticRuntimeConfig): string[] {
  return [...new Set([resolved.config, ...resolved.endpoints].flatMap((settings) => secretsOf(settings)))];
}
