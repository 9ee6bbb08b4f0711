/**
 * The configuration `doctor` and `models` check: exactly what `serve()` would use (environment,
 * `.env` in the working directory, flags, the config file, and a local server when nothing is
 * configured), resolved without starting the agent.
 */
import { defaultConfigPath } from '../config/config-file.js';
import type { CliFlags, Config, ConfigError } from '../config/config.js';
import { mergeDotEnv } from '../config/load-config.js';
import type { NamedEndpointSettings } from '../endpoints/endpoint-registry.js';
import type { FetchLike } from '../openai/http.js';
import { createLogger, type Logger } from '../shared/log.js';
import { resolveStaticConfig } from '../endpoints/runtime-config.js';
import { readProjectDotEnv, type SettingSource } from '../config/project-env.js';
import { chooseEndpoints, type FoundServers } from '../endpoints/endpoint-choice.js';
import { COMMAND_DISCOVERY_TIMEOUT_MS } from '../endpoints/local-discovery.js';

/** What the subcommands need to know about the configuration. */
export interface CommandConfig {
  config: Config;
  /** Every invalid value; `undefined` when all are valid. */
  configError: ConfigError | undefined;
  /** The endpoints, default first; empty when none is configured and no local server answered. */
  endpoints: NamedEndpointSettings[];
  /** The default model value (`providerId/modelId` with several endpoints). */
  model: string | undefined;
  /** The config file that would be read (whether or not it exists). */
  configFilePath: string | undefined;
  /** Whether the config file was found and read. */
  configFileRead: boolean;
  /** Start-up warnings (no secrets), and how to configure an endpoint when none was found. */
  warnings: string[];
  /** The local server search, when one ran (nothing configured): ports tried, outcomes, time waited. */
  discovery?: FoundServers | undefined;
  /** Where each set `OPENAI_*` setting came from (flag, environment, `.env` with its path). */
  sources?: Record<string, SettingSource> | undefined;
}

/** What resolving needs. */
export interface ResolveOptions {
  flags: CliFlags;
  env: Record<string, string | undefined>;
  /** Where `.env` is looked for. @defaultValue `process.cwd()` */
  cwd?: string | undefined;
  /** Receives the local server search's records. @defaultValue none */
  logger?: Logger | undefined;
  /** Bound of the local server search, in ms. @defaultValue {@link COMMAND_DISCOVERY_TIMEOUT_MS} */
  discoveryTimeoutMs?: number | undefined;
}

/** What `doctor` and `models` run with. */
export interface CommandRunOptions {
  flags: CliFlags;
  /** The process environment (`.env` in `cwd` is merged under it). */
  env: Record<string, string | undefined>;
  /** Where `.env` is looked for. @defaultValue `process.cwd()` */
  cwd?: string | undefined;
  /** Bound of each network request, in ms. */
  timeoutMs?: number | undefined;
  /** Receives the output. @defaultValue `process.stdout.write` */
  write?: ((text: string) => void) | undefined;
  /** Injectable transport (tests). */
  fetch?: FetchLike | undefined;
}

/**
 * Resolves the configuration as the agent does ({@link resolveStaticConfig}, then
 * {@link chooseEndpoints}: the local server search, within `discoveryTimeoutMs`, when nothing names an endpoint).
 * Never throws for invalid settings (they are in `configError`).
 */
export async function resolveCommandConfig(options: ResolveOptions): Promise<CommandConfig> {
  const resolved = resolveStaticConfig({ flags: options.flags, env: options.env, cwd: options.cwd ?? process.cwd() });
  const quiet = options.logger ?? createLogger({ level: 'error', write: () => undefined });
  const chosen = await chooseEndpoints(resolved, quiet, undefined, undefined, options.discoveryTimeoutMs ?? COMMAND_DISCOVERY_TIMEOUT_MS);
  const warnings = [...resolved.warnings];
  if (chosen.missing) warnings.push(chosen.missing);
  return {
    config: resolved.config,
    configError: resolved.configError,
    endpoints: chosen.endpoints,
    model: chosen.model,
    configFilePath: resolved.configFilePath ?? defaultConfigPath(mergeDotEnv(readProjectDotEnv(options.cwd ?? process.cwd())?.text, options.env)),
    configFileRead: resolved.configFilePath !== undefined,
    warnings,
    discovery: chosen.discovery,
    sources: resolved.sources,
  };
}
