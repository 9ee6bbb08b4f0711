/**
 * The configuration `doctor` and `models` check: exactly what `serve()` would use (environment,
 * `.env` in the working directory, flags, the config file, and a local server when nothing is
 * configured), resolved without starting the agent.
 */
import { defaultConfigPath } from '../config-file.js';
import type { CliFlags, Config, ConfigError } from '../config.js';
import type { NamedEndpointSettings } from '../endpoint-registry.js';
import { discoverLocalServer } from '../local-discovery.js';
import type { Logger } from '../log.js';
import { resolveStaticConfig } from '../runtime-config.js';

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
  /** Start-up warnings (no secrets). */
  warnings: string[];
}

/** What resolving needs. */
export interface ResolveOptions {
  flags: CliFlags;
  env: Record<string, string | undefined>;
  /** Where `.env` is looked for. @defaultValue `process.cwd()` */
  cwd?: string | undefined;
  logger?: Logger | undefined;
}

/**
 * Resolves the configuration as the agent does. Never throws for invalid settings (they are in
 * `configError`); when nothing names an endpoint, looks for a local server (about 300 ms).
 */
export async function resolveCommandConfig(options: ResolveOptions): Promise<CommandConfig> {
  const resolved = resolveStaticConfig({ flags: options.flags, env: options.env, cwd: options.cwd ?? process.cwd() });
  const endpoints = [...resolved.endpoints];
  let model = resolved.model;
  const warnings = [...resolved.warnings];
  if (resolved.needsDiscovery) {
    const server = await discoverLocalServer({ logger: options.logger });
    if (server) {
      const config = resolved.config;
      const id = config.modelConfigured ? config.model : server.defaultModel;
      endpoints.push({
        id: 'default',
        source: 'local server',
        provider: server.provider,
        baseUrl: server.baseUrl,
        chatCompletionsUrl: `${server.baseUrl}/chat/completions`,
        apiKey: undefined,
        headers: {},
        query: undefined,
        model: id,
        models: undefined,
        maxRetries: config.maxRetries,
        timeoutMs: config.timeoutMs,
      });
      model = id;
    } else warnings.push('no endpoint is configured and no local server answered on the usual ports');
  }
  const configFilePath = resolved.configFilePath ?? defaultConfigPath(options.env);
  return {
    config: resolved.config,
    configError: resolved.configError,
    endpoints,
    model,
    configFilePath,
    configFileRead: resolved.configFilePath !== undefined,
    warnings,
  };
}
