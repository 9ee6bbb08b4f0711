/**
 * The start of a command that runs the agent as a server (`agentconnect`, `serve`): the
 * configuration resolved as for stdio, and a logger redacting its secrets and the server's own
 * (its token), with the configuration's problems and warnings logged once.
 */
import { describeConfigProblems, type CliFlags } from '../config/config.js';
import { resolveStaticConfig, secretsOfAll, type StaticRuntimeConfig } from '../endpoints/runtime-config.js';
import { createLogger, type Logger } from '../shared/log.js';

/** Resolves the configuration from `flags` and `env` (and the process's directory) and starts the logger. */
export function startAgentLogging(options: { flags: CliFlags; env: NodeJS.ProcessEnv; extraSecrets: readonly string[] }): {
  resolved: StaticRuntimeConfig;
  logger: Logger;
  /** Every secret the logger redacts. */
  secrets: string[];
} {
  const resolved = resolveStaticConfig({ flags: options.flags, env: options.env, cwd: process.cwd() });
  const { config, configError } = resolved;
  const secrets = [...secretsOfAll(resolved), ...options.extraSecrets];
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, secrets });
  for (const problem of configError?.problems ?? []) logger.error(`invalid configuration (every prompt will explain it): ${describeConfigProblems([problem])}`);
  for (const warning of resolved.warnings) logger.warn(warning);
  return { resolved, logger, secrets };
}
