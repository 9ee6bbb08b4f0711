/**
 * Endpoints a client hands the agent at run time with the unstable `providers/set` method.
 *
 * Source: ACP provider methods (unstable), `SetProviderRequest` in `@agentclientprotocol/sdk`'s
 * schema: `{providerId, apiType, baseUrl, headers?}`.
 */
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import type { Config } from '../config/config.js';
import type { NamedEndpointSettings } from '../endpoints/endpoint-registry.js';

/** The `apiType`s the agent speaks: all three are the Chat Completions API. */
export const SUPPORTED_API_TYPES = ['openai', 'azure', 'bedrock'] as const;

/**
 * Endpoint settings from `providers/set` (`apiType` `openai`, `azure` or `bedrock`; the headers
 * carry the credentials, so no key of ours is sent).
 * @throws {RequestError} -32602 for another `apiType` or a base URL that is not http(s).
 */
export function clientEndpoint(params: { providerId: string; apiType: string; baseUrl: string; headers?: Record<string, string> | undefined }, config: Config): NamedEndpointSettings {
  if (!(SUPPORTED_API_TYPES as readonly string[]).includes(params.apiType)) {
    throw RequestError.invalidParams({ apiType: params.apiType }, `openai-acp speaks the OpenAI Chat Completions API; apiType ${JSON.stringify(params.apiType)} is not supported (use openai, azure or bedrock)`);
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(params.providerId)) {
    throw RequestError.invalidParams({ providerId: params.providerId }, 'providerId must be letters, digits, ".", "_" or "-", starting with a letter or digit (it is the first part of model values providerId/modelId)');
  }
  let url: URL;
  try {
    url = new URL(params.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw RequestError.invalidParams({ baseUrl: params.baseUrl }, 'baseUrl must be an http:// or https:// URL');
  }
  const query = url.search.slice(1) || undefined;
  const baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/chat\/completions$/i, '')}`;
  return {
    id: params.providerId,
    source: 'client',
    provider: params.apiType === 'azure' || params.apiType === 'bedrock' ? params.apiType : undefined,
    baseUrl,
    chatCompletionsUrl: `${baseUrl}/chat/completions${query ? `?${query}` : ''}`,
    apiKey: undefined,
    headers: { ...(params.headers ?? {}) },
    query,
    model: config.model,
    modelIsStandIn: true,
    models: undefined,
    maxRetries: config.maxRetries,
    timeoutMs: config.timeoutMs,
  };
}

