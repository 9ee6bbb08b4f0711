/**
 * One upstream endpoint as the agent uses it: the chat client and the model catalog, built from
 * the same settings so that the agent, `doctor` and `models` reach the endpoint the same way.
 * The provider profile (`providers.ts`) is applied here: URLs, auth header, default query.
 */
import { ChatCompletionsClient } from '../openai/chat-client.js';
import { CONFIG_DEFAULTS, type Config } from '../config/config.js';
import { OllamaNativeChat } from './ollama-native.js';
import type { FetchLike } from '../openai/http.js';
import type { Logger } from '../shared/log.js';
import { ModelCatalog } from './model-catalog.js';
import { serverWindowLookup, type ServerWindow } from './server-context.js';
import { resolveEndpoint, type ResolvedEndpoint } from '../config/providers.js';
import type { ProviderId, ProviderProfile } from '../config/provider-profiles.js';
import { AGENT_NAME, VERSION } from '../shared/version.js';
import { cloudAuthorizer, type CloudAuthDeps } from './cloud-auth.js';
import { LearnedFacts } from './learned-facts.js';
import { modelLoadState, type ModelLoadState } from './model-loading.js';
import { SessionSlots } from './session-slots.js';

/** The settings of one endpoint: a {@link Config} is one, and so is each provider of a config file. */
export type EndpointSettings = Pick<
  Config,
  'baseUrl' | 'chatCompletionsUrl' | 'apiKey' | 'headers' | 'query' | 'model' | 'models' | 'maxRetries' | 'timeoutMs'
> & {
  /** Fields merged into every chat request (`OPENAI_EXTRA_BODY`, a provider's `extraBody`). @defaultValue none */
  extraBody?: Record<string, unknown> | undefined;
  /**
   * `OPENAI_ACP_OLLAMA_NUM_CTX`: the window asked of a server with a native chat API (Ollama),
   * tokens; 0 keeps Chat Completions. @defaultValue `CONFIG_DEFAULTS.ollamaNumCtx` (32768)
   */
  ollamaNumCtx?: number | undefined;
  /** Provider family (`OPENAI_PROVIDER`, a config file's `provider`); `undefined` detects it from `baseUrl`. */
  provider?: ProviderId | undefined;
  /**
   * Set when `provider` was not configured but recognised from the server's own answers
   * (`server-identity.ts`): the answer that showed it, e.g. `GET /props`. @defaultValue unset
   */
  identifiedBy?: string | undefined;
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
  /** What the agent learns about its endpoints (windows, text paths, corrections). @defaultValue learned facts of this endpoint's own */
  learned?: LearnedFacts | undefined;
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
   * `/props`; see `server-context.ts`); on Ollama's native API, the window each request asks for
   * (`ollama-native.ts`) is the runtime one. `{}` for servers whose profile has no
   * `contextWindowQuery` or when the server does not say. Cached; each request bounded by 2 s (an
   * Ollama model load by 5 min); never rejects.
   */
  readonly serverWindowOf?: ((model: string) => Promise<ServerWindow>) | undefined;
  /**
   * The native chat API of the provider (Ollama's `/api/chat`, when the profile has one; used
   * when `ollamaNumCtx` is not 0): its window, memory note and `doctor` facts. `undefined` otherwise.
   */
  readonly nativeChat?: OllamaNativeChat | undefined;
  /** What the agent learned about this endpoint and its models (shared with its other endpoints). */
  readonly learned: LearnedFacts;
  /**
   * Whether the server has `model` loaded yet (`model-loading.ts`, by the profile's
   * `loadingQuery`; one GET of 2 s at most, stopped by `signal`); `undefined` when it does not
   * say or is not asked. Never rejects.
   */
  readonly loadState: (model: string, signal?: AbortSignal) => Promise<ModelLoadState | undefined>;
}

/** The `User-Agent` sent with every request, e.g. `openai-acp/0.1.0`. */
const USER_AGENT = `${AGENT_NAME}/${VERSION}`;

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
  const authHeaders = buildAuthHeaders(resolved.bearerKey, resolved.headers);
  const numCtx = settings.ollamaNumCtx ?? CONFIG_DEFAULTS.ollamaNumCtx;
  const nativeProfile = resolved.profile.nativeChat;
  const learned = deps.learned ?? new LearnedFacts();
  // Built even at 0, when it routes nothing: doctor reads the server's windows through it.
  const nativeChat = nativeProfile
    ? new OllamaNativeChat({
        baseUrl: settings.baseUrl,
        numCtx,
        profile: nativeProfile,
        headers: authHeaders,
        extraBody: settings.extraBody,
        logger: deps.logger,
        fetch: deps.fetch,
        notServed: learned.nativeNotServed,
      })
    : undefined;
  // A slot per session where the server has several (llama.cpp `/props` `total_slots`).
  const slots = resolved.profile.contextWindowQuery === 'llamacpp-props' ? sessionSlots(settings.baseUrl, authHeaders, learned, deps) : undefined;
  const client = new ChatCompletionsClient({
    url: resolved.chatUrl,
    baseUrl: settings.baseUrl,
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
    native: nativeChat,
    corrections: learned.corrections,
    slots: slots?.router,
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
  const serverWindow = serverWindowLookup({
    query: resolved.profile.contextWindowQuery,
    baseUrl: settings.baseUrl,
    headers: authHeaders,
    extraBody: settings.extraBody,
    fetch: deps.fetch,
  });
  // On the native API the runtime window is the one asked for (and the model is not loaded with
  // another one first); after a fallback to /v1, or at OPENAI_ACP_OLLAMA_NUM_CTX=0, the server's own.
  slots?.windows(serverWindow);
  const serverWindowOf = nativeChat ? async (model: string) => (await nativeChat.serverWindow(model)) ?? serverWindow(model) : serverWindow;
  const loadState = (model: string, signal?: AbortSignal) =>
    modelLoadState(resolved.profile.loadingQuery, settings.baseUrl, model, { headers: authHeaders, fetch: deps.fetch, signal });
  return { settings, provider: resolved.provider, profile: resolved.profile, resolved, client, catalog, serverWindowOf, nativeChat, learned, loadState };
}

/** The slot router of a llama.cpp server, its state in `learned.slots` by server root; `windows` gives it the endpoint's `/props` lookup once built. */
function sessionSlots(baseUrl: string, headers: Record<string, string>, learned: LearnedFacts, deps: EndpointDeps) {
  const root = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  let state = learned.slots.get(root);
  if (!state) learned.slots.set(root, (state = { saved: new Map() }));
  let lookup: ((model: string) => Promise<ServerWindow>) | undefined;
  const router = new SessionSlots({
    root,
    state,
    headers,
    logger: deps.logger,
    fetch: deps.fetch,
    slotsOf: async (model) => (await lookup?.(model))?.slots,
  });
  return { router, windows: (of: (model: string) => Promise<ServerWindow>) => void (lookup = of) };
}

/** The auth and user headers every request of this endpoint carries. */
function buildAuthHeaders(bearerKey: string | undefined, headers: Record<string, string>): Record<string, string> {
  return { 'user-agent': USER_AGENT, ...(bearerKey ? { authorization: `Bearer ${bearerKey}` } : {}), ...headers };
}
