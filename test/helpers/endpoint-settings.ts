/** Endpoint settings for tests: a config-file endpoint at `baseUrl` with no key and no retries. */
import type { NamedEndpointSettings } from '../../src/endpoints/endpoint-registry.js';

/** A named endpoint at `baseUrl` (model `${id}-model` unless `extra` says otherwise). */
export function endpointSettings(id: string, baseUrl: string, extra: Partial<NamedEndpointSettings> = {}): NamedEndpointSettings {
  return {
    id,
    source: 'config file',
    baseUrl,
    chatCompletionsUrl: `${baseUrl}/chat/completions`,
    apiKey: undefined,
    headers: {},
    query: undefined,
    model: `${id}-model`,
    models: undefined,
    maxRetries: 0,
    timeoutMs: 10_000,
    ...extra,
  };
}
