/**
 * One upstream endpoint as the agent uses it: the chat client and the model catalog, built from
 * the same settings so that the agent, `doctor` and `models` reach the endpoint the same way.
 * The provider profile (`providers.ts`) is applied here: URLs, auth header, default query.
 */
import { ChatCompletionsClient } from '../openai/chat-client.js';
import type { Config } from '../config/config.js';
import type { FetchLike } from '../openai/http.js';
import type { Logger } from '../log.js';
import { ModelCatalog } from './model-catalog.js';
import { serverWindowLookup, type ServerWindow } from './server-context.js';
import { resolveEndpoint, type ResolvedEndpoint } from '../config/providers.js';
import type { ProviderId, ProviderProfile } from '../config/provider-profiles.js';
import { AGENT_NAME, VERSION } from '../version.js';
import { cloudAuthorizer, type CloudAuthDeps } from './cloud-auth.js';

/** The settings of one endpoint: a {@link Config} is one, and so is each provider of a config file. */
export type EndpointSettings = Pick<
  Config,
  'baseUrl' | 'chatCompletionsUrl' | 'apiKey' | 'headers' | 'query' | 'model' | 'models' | 'maxRetries' | 'timeoutMs'
> & {
  /** Fields merged into every chat request (`OPENAI_EXTRA_BODY`, a provider's `extraBody`). @defaultValue none */
  extraBody?: Record<string, unknown> | undefined;
  /** Provider family (`OPENAI_PROVIDER`, a config file's `provider`); `undefined` detects it from `baseUrl`. */
  provider?: ProviderId | undefined;
  /**
   * True when `model` is only a stand-in because nothing named a model for this endpoint (a
   * config-file provider without `models`, an endpoint a client set): its picker then offers
   * only what the endpoint lists, and its default model is the first chat model listed.
   * @defaultValue false
   */
  modelIsStandIn?: boolean | undefined;
};

/** What building an endpoint needs besides its settings. */
export interface EndpointDeps {
  logger: Logger;
  /** Injectable transport (tests). @defaultValue `defaultFetch` of http.ts (node:http, proxies from the environment, no header or body timeout) */
  fetch?: FetchLike | undefined;
  /** Limit for `GET /models` in ms. @defaultValue 3000 */
  modelsTimeoutMs?: number | undefined;
  /** When false, the catalog never sends `GET /models` (invalid configuration). @defaultValue true */
  enabled?: boolean | undefined;
  /** Credentials of the keyless Bedrock (SigV4) and Azure (Entra ID) paths (tests). @defaultValue the SDKs' default chains */
  cloudAuth?: CloudAuthDeps | undefined;
}

/** A ready endpoint. */
export interface Endpoint {
  readonly settings: EndpointSettings;
  /** The provider family in use (explicit, or detected from the base URL). */
  readonly provider: ProviderId;
  /** Its profile, e.g. for `reasoningEffortLevels(profile, model)`. */
  readonly profile: ProviderProfile;
  /** URLs and headers actually used (`chatUrl` includes a default `api-version` for Azure classic). */
  readonly resolved: ResolvedEndpoint;
  readonly client: ChatCompletionsClient;
  readonly catalog: ModelCatalog;
  /**
   * What the server says of `model`'s context window (tokens): the window it runs the model with
   * and the trained one (Ollama `/api/ps` and `/api/show`, LM Studio `/api/v0/models`, llama.cpp
   * `/props`; see `server-context.ts`); `{}` for servers whose profile has no `contextWindowQuery` or
   * when the server does not say. Cached; each request bounded by 2 s (an Ollama model load by
   * 5 min); never rejects.
   */
  readonly serverWindowOf?: ((model: string) => Promise<ServerWindow>) | undefined;
}

/** The `User-Agent` sent with every request, e.g. `openai-acp/0.1.0`. */
export const USER_AGENT = `${AGENT_NAME}/${VERSION}`;

/**
 * Builds the chat client and the model catalog of one endpoint, with its provider profile
 * applied (see {@link resolveEndpoint}). Sends nothing by itself.
 */
export function createEndpoint(settings: EndpointSettings, deps: EndpointDeps): Endpoint {
  const resolved = resolveEndpoint({
    baseUrl: settings.baseUrl,
    query: settings.query,
    apiKey: settings.apiKey,
    headers: settings.headers,
    provider: settings.provider,
  });
  // One hook for both, so the credentials (and their refresh) are shared.
  const authorize = cloudAuthorizer(resolved, settings.baseUrl, deps.cloudAuth);
  const client = new ChatCompletionsClient({
    url: resolved.chatUrl,
    apiKey: resolved.bearerKey,
    headers: resolved.headers,
    profile: resolved.profile,
    maxRetries: settings.maxRetries,
    timeoutMs: settings.timeoutMs,
    extraBody: settings.extraBody,
    userAgent: USER_AGENT,
    logger: deps.logger,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    authorize,
  });
  const catalog = new ModelCatalog({
    baseUrl: settings.baseUrl,
    modelsUrl: resolved.modelsUrl,
    apiKey: resolved.bearerKey,
    headers: resolved.headers,
    query: settings.query,
    timeoutMs: deps.modelsTimeoutMs,
    userAgent: USER_AGENT,
    fetch: deps.fetch,
    logger: deps.logger,
    configuredModel: settings.model,
    fallbackModels: settings.models,
    offerConfigured: !settings.modelIsStandIn,
    enabled: deps.enabled ?? true,
    authorize,
  });
  const serverWindowOf = serverWindowLookup({ query: resolved.profile.contextWindowQuery, baseUrl: settings.baseUrl, headers: buildAuthHeaders(resolved.bearerKey, resolved.headers), extraBody: settings.extraBody, fetch: deps.fetch });
  return { settings, provider: resolved.provider, profile: resolved.profile, resolved, client, catalog, serverWindowOf };
}

/** The auth and user headers every request of this endpoint carries. */
function buildAuthHeaders(bearerKey: string | undefined, headers: Record<string, string>): Record<string, string> {
  return { 'user-agent': USER_AGENT, ...(bearerKey ? { authorization: `Bearer ${bearerKey}` } : {}), ...headers };
}
