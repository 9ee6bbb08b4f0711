/**
 * The methods that change the endpoints: the unstable `providers/list`, `providers/set` (endpoints
 * a client hands the agent at run time) and `providers/disable`, and `authenticate` (the
 * configuration read again after `openai-acp setup`). Each change keeps held sessions' model
 * values meaning the same model (`provider-change.ts`).
 *
 * Source: ACP provider methods (unstable), `SetProviderRequest` in `@agentclientprotocol/sdk`'s
 * schema: `{providerId, apiType, baseUrl, headers?}`; ACP authentication
 * https://agentclientprotocol.com/protocol/initialization#authentication.
 */
import { RequestError, type AgentContext } from '@agentclientprotocol/sdk/unstable';
import { describeConfigProblems, secretsOf, type Config } from '../config/config.js';
import { PROVIDER_PROFILES } from '../config/provider-profiles.js';
import { PROVIDER_IDS } from '../config/providers.js';
import type { NamedEndpointSettings } from '../endpoints/endpoint-registry.js';
import type { AgentState } from '../app/agent-state.js';
import type { ClientPeer } from '../app/client-peer.js';
import { SETUP_AUTH_METHOD_ID } from './initialize.js';
import { changeProviders } from './provider-change.js';

/** The `apiType`s the agent speaks: all three are the Chat Completions API. */
const SUPPORTED_API_TYPES = ['openai', 'azure', 'bedrock'] as const;

/**
 * Endpoint settings from `providers/set` (`apiType` `openai`, `azure` or `bedrock`; the headers
 * carry the credentials, so no key of ours is sent).
 * @throws {RequestError} -32602 for another `apiType` or a base URL that is not http(s).
 */
function clientEndpoint(
  params: { providerId: string; apiType: string; baseUrl: string; headers?: Record<string, string> | undefined },
  config: Config,
): NamedEndpointSettings {
  if (!(SUPPORTED_API_TYPES as readonly string[]).includes(params.apiType)) {
    throw RequestError.invalidParams(
      { apiType: params.apiType },
      `openai-acp speaks the OpenAI Chat Completions API; apiType ${JSON.stringify(params.apiType)} is not supported (use openai, azure or bedrock)`,
    );
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(params.providerId)) {
    throw RequestError.invalidParams(
      { providerId: params.providerId },
      'providerId must be letters, digits, ".", "_" or "-", starting with a letter or digit (it is the first part of model values providerId/modelId)',
    );
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
    // `openai` names no profile: the provider is detected from the base URL.
    provider: PROVIDER_IDS.find((id) => PROVIDER_PROFILES[id].acpApiType === params.apiType),
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

/**
 * `authenticate` with the `setup` method: the configuration read again (after `openai-acp setup`)
 * and its endpoints used from now on.
 * @throws {RequestError} -32602 for another method; -32000 (auth required) when the configuration is still invalid.
 */
export async function authenticate(state: AgentState, params: { methodId: string }, client: AgentContext) {
  if (params.methodId !== SETUP_AUTH_METHOD_ID) {
    throw RequestError.invalidParams({ methodId: params.methodId }, `Unknown auth method ${JSON.stringify(params.methodId)}; valid: ${SETUP_AUTH_METHOD_ID}`);
  }
  if (!state.reload) return {};
  const next = await state.reload();
  state.config = next.config;
  state.configError = next.configError;
  // The first search finishes first, so what was read now is what stays.
  await state.endpointsKnown();
  await changeProviders(state, client, () => state.useEndpoints(next.endpoints), { keepDefaultModel: true });
  state.logger.info('configuration re-read', { endpoints: next.endpoints.endpoints.map((e) => e.id).join(', ') || 'none' });
  if (state.configError)
    throw RequestError.authRequired(
      { problems: state.configError.problems },
      `The configuration is still invalid:\n${describeConfigProblems(state.configError.problems)}`,
    );
  return {};
}

/** `providers/list`: every endpoint in use, with the API type it speaks. */
export async function listProviders(state: AgentState) {
  await state.endpointsKnown();
  return {
    providers: state.registry.list().map((endpoint) => ({
      providerId: endpoint.settings.id,
      supported: [...SUPPORTED_API_TYPES],
      required: false,
      current: { apiType: endpoint.profile.acpApiType ?? 'openai', baseUrl: endpoint.settings.baseUrl },
    })),
  };
}

/**
 * Refuses a change of the endpoints from a client that shares the agent with others (`openai-acp
 * serve`): the endpoints serve every connection's sessions, so one client's would carry the
 * others' conversations (and `initialize` does not advertise `providers` there).
 * @throws {RequestError} -32601 naming the method.
 */
function checkMayChangeEndpoints(peer: ClientPeer, method: string): void {
  if (!peer.sharesAgent) return;
  throw new RequestError(
    -32601,
    `${method} is not available over openai-acp serve: its endpoints serve every connection; set them where the server runs (OPENAI_BASE_URL, the config file)`,
    { method },
  );
}

/** `providers/set`: adds the client's endpoint, or replaces the one of the same id. @throws {RequestError} -32601 over `serve` (see {@link checkMayChangeEndpoints}). */
export async function setProvider(state: AgentState, params: Parameters<typeof clientEndpoint>[0], client: AgentContext, peer: ClientPeer) {
  checkMayChangeEndpoints(peer, 'providers/set');
  await state.endpointsKnown();
  const settings = clientEndpoint(params, state.config);
  // The client's headers may carry credentials: they are redacted from every log line from now on.
  state.logger.addSecrets?.(secretsOf(settings));
  await changeProviders(state, client, () => state.registry.set(settings));
  state.logger.info('provider set by the client', { providerId: params.providerId, apiType: params.apiType, baseUrl: settings.baseUrl });
  return {};
}

/** `providers/disable`: stops using an endpoint (an unknown id changes nothing). @throws {RequestError} -32601 over `serve`. */
export async function disableProvider(state: AgentState, params: { providerId: string }, client: AgentContext, peer: ClientPeer) {
  checkMayChangeEndpoints(peer, 'providers/disable');
  await state.endpointsKnown();
  if (!state.registry.get(params.providerId)) return {};
  await changeProviders(state, client, () => state.registry.disable(params.providerId));
  state.logger.info('provider disabled by the client', { providerId: params.providerId });
  return {};
}
