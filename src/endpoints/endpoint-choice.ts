/**
 * The endpoints the agent uses, chosen once its configuration is resolved
 * (`runtime-config.ts`): the configured ones, each self-hosted server's provider recognised by its
 * answers; or, when none is configured at all, the local OpenAI-compatible server found on the
 * usual ports, or words saying how to configure one.
 */
import { detectProvider, mayBeSelfHosted } from '../config/providers.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../shared/log.js';
import { probeNearbyServers } from './container.js';
import type { NamedEndpointSettings } from './endpoint-registry.js';
import type { LocalDiscovery } from './local-discovery.js';
import { noLocalServerHelp } from './no-server-help.js';
import { environmentEndpoint, type StaticRuntimeConfig } from './runtime-config.js';
import { identifyServer, type ServerIdentity } from './server-identity.js';

/** The endpoints the agent uses, their default model, and what to say when there are none. */
export interface EndpointChoice {
  /** Default first; may be empty, then every prompt answers with {@link missing}. */
  endpoints: NamedEndpointSettings[];
  /** Default model value (`providerId/modelId` with several endpoints); the first endpoint's model when absent. */
  model?: string | undefined;
  /** Words for every prompt when there is no endpoint (how to configure one). */
  missing?: string | undefined;
  /** The local server search, when one ran (nothing configured). */
  discovery?: FoundServers | undefined;
}

/** What a local server search found (`waitedMs` and `timeoutMs` as {@link LocalDiscovery}'s, when known); `container: true` when the container's host was searched too. */
export type FoundServers = Pick<LocalDiscovery, 'server' | 'probes'> & Partial<Pick<LocalDiscovery, 'waitedMs' | 'timeoutMs'>> & { container?: boolean };

/** The environment's endpoint as the only one (the choice when the agent is given none). */
export function environmentChoice(config: Config): EndpointChoice {
  return { endpoints: [environmentEndpoint(config, 'default')], model: config.model };
}

/**
 * The endpoints of a resolved configuration: its own; or, when it names none
 * ({@link StaticRuntimeConfig.needsDiscovery}), the local server found on the usual ports (its
 * first chat model unless `OPENAI_MODEL` is set), or words saying how to configure one.
 * Never rejects; logs what was chosen at `info`.
 *
 * @param discover - injectable search (tests); `container: true` in its result adds how to reach
 *   the container's host to the help text. @defaultValue {@link probeNearbyServers} bounded by
 *   `discoveryTimeoutMs`
 * @param discoveryTimeoutMs - bound of the default search, in ms. @defaultValue `LOCAL_PROBE_TIMEOUT_MS` (2 s)
 */
export async function chooseEndpoints(
  resolved: StaticRuntimeConfig,
  logger: Logger,
  discover: (logger: Logger) => Promise<FoundServers> = (log) =>
    probeNearbyServers({ logger: log, container: resolved.config.inContainer, timeoutMs: discoveryTimeoutMs }),
  identify: (settings: NamedEndpointSettings) => Promise<ServerIdentity> = (settings) =>
    identifyServer(settings.baseUrl, { headers: settings.apiKey ? { ...settings.headers, authorization: `Bearer ${settings.apiKey}` } : settings.headers }),
  discoveryTimeoutMs?: number,
): Promise<EndpointChoice> {
  if (!resolved.needsDiscovery) return { endpoints: await identifyEndpoints(resolved.endpoints, logger, identify), model: resolved.model };
  const { config } = resolved;
  const found = await discover(logger);
  const server = found.server;
  if (!server) {
    logger.warn('no endpoint configured and no local server found; every prompt will say how to configure one');
    const help = noLocalServerHelp({ probes: found.probes, waitedMs: found.waitedMs, container: found.container === true });
    return { endpoints: [], model: undefined, missing: help, discovery: found };
  }
  const model = config.modelConfigured ? config.model : server.defaultModel;
  logger.info('using the local server found', {
    provider: server.provider,
    baseUrl: server.baseUrl,
    model,
    models: server.models.length,
    waitedMs: found.waitedMs,
  });
  return {
    discovery: found,
    endpoints: [
      {
        id: server.provider,
        source: 'local server',
        provider: server.provider,
        baseUrl: server.baseUrl,
        chatCompletionsUrl: `${server.baseUrl}/chat/completions`,
        apiKey: undefined,
        // With no endpoint configured, OPENAI_HEADERS can only be meant for the local server (a LiteLLM key).
        headers: config.headers,
        query: undefined,
        model,
        models: config.models,
        extraBody: config.extraBody,
        maxRetries: config.maxRetries,
        timeoutMs: config.timeoutMs,
        ollamaNumCtx: config.ollamaNumCtx,
      },
    ],
    model,
  };
}

/**
 * The endpoints with the provider of each one whose provider was neither configured nor
 * recognised by host name (`mayBeSelfHosted`) set from the server's own answers
 * (`server-identity.ts`: llama.cpp on any port is llama.cpp); an endpoint whose server says
 * nothing keeps its port's guess. The looks run at once, each bounded (2 s), once per process.
 * Never rejects; logs each recognised server at `info`.
 * @internal takes the look as an argument, so it is checked without any server.
 */
export async function identifyEndpoints(
  endpoints: NamedEndpointSettings[],
  logger: Logger,
  identify: (settings: NamedEndpointSettings) => Promise<ServerIdentity>,
): Promise<NamedEndpointSettings[]> {
  return Promise.all(
    endpoints.map(async (settings) => {
      if (settings.provider || !mayBeSelfHosted(settings.baseUrl)) return settings;
      const found = await identify(settings).catch((): ServerIdentity => ({}));
      if (!found.provider) return settings;
      const guessed = detectProvider(settings.baseUrl);
      logger.info('recognised the server by its answers', {
        endpoint: settings.id,
        baseUrl: settings.baseUrl,
        provider: found.provider,
        by: found.evidence,
        ...(guessed !== found.provider ? { portGuess: guessed } : {}),
      });
      return { ...settings, provider: found.provider, identifiedBy: found.evidence };
    }),
  );
}
