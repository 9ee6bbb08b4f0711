/**
 * Provider functions over the profile data of `provider-profiles.ts`: a provider id from user
 * text, the provider family of a base URL, the parameter spellings a model takes, and the one
 * function that turns endpoint settings into the URLs and headers to send. Sources of the
 * provider facts: `provider-profiles.ts` (each profile's `docs`).
 */
import { mergeQueries } from './query-string.js';
import { PROVIDER_PROFILES, type ModelRule, type ProviderId, type ProviderProfile } from './provider-profiles.js';

/** Every provider id, in the order of {@link PROVIDER_PROFILES}; `generic` last. */
export const PROVIDER_IDS: readonly ProviderId[] = Object.keys(PROVIDER_PROFILES) as ProviderId[];

/** The token-limit parameter name a request uses. */
export type MaxTokensParam = 'max_tokens' | 'max_completion_tokens';

/** Other spellings accepted by {@link parseProviderId} (lower case). */
const ALIASES: Readonly<Record<string, ProviderId>> = {
  'azure-openai': 'azure',
  azureopenai: 'azure',
  'aws-bedrock': 'bedrock',
  aws: 'bedrock',
  'llama.cpp': 'llamacpp',
  'llama-cpp': 'llamacpp',
  'lm-studio': 'lmstudio',
  'lm studio': 'lmstudio',
  google: 'gemini',
  'x.ai': 'xai',
  grok: 'xai',
  'together.ai': 'together',
  togetherai: 'together',
  'openai-compatible': 'generic',
  custom: 'generic',
};

/**
 * A provider id from user text (`OPENAI_PROVIDER`, a config file): trimmed, case-insensitive,
 * with a few aliases (`llama.cpp`, `lm-studio`, `azure-openai`, `google`…).
 * @returns the id, or `undefined` when the text names no provider (the caller reports it, listing {@link PROVIDER_IDS}).
 */
export function parseProviderId(raw: string): ProviderId | undefined {
  const text = raw.trim().toLowerCase();
  if ((PROVIDER_IDS as readonly string[]).includes(text)) return text as ProviderId;
  return Object.hasOwn(ALIASES, text) ? ALIASES[text] : undefined;
}

/**
 * The base URL without query, fragment, trailing slashes or a trailing `/chat/completions` (any number of them).
 */
function normalizeBaseUrl(baseUrl: string): string {
  let base = baseUrl.trim().split(/[?#]/)[0] ?? '';
  for (let previous = ''; previous !== base; ) {
    previous = base;
    base = base.replace(/\/+$/, '').replace(/\/chat\/completions$/i, '');
  }
  return base;
}

/**
 * The provider family of a base URL: by host name first (api.openai.com, *.openai.azure.com,
 * bedrock-runtime.REGION.amazonaws.com, openrouter.ai…), then by path (`/openai/deployments/`
 * behind a gateway is Azure), then by the usual port of a local server (11434 Ollama, 1234 LM
 * Studio, 8000 vLLM, 8080 llama.cpp, 4000 LiteLLM). Never throws.
 * @returns `generic` when nothing matches or the URL does not parse.
 */
export function detectProvider(baseUrl: string): ProviderId {
  return providerDetection(baseUrl).id;
}

/**
 * {@link detectProvider} with how it decided: `host` or `path` (certain), `port` (only a hint:
 * another server may listen there), `none` (`generic`: nothing matched or the URL does not parse).
 */
function providerDetection(baseUrl: string): { id: ProviderId; by: 'host' | 'path' | 'port' | 'none' } {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return { id: 'generic', by: 'none' };
  }
  const host = url.hostname.toLowerCase();
  const profiles = Object.values(PROVIDER_PROFILES);
  const byHost = profiles.find((profile) => profile.detect.hosts?.some((pattern) => pattern.test(host)));
  if (byHost) return { id: byHost.id, by: 'host' };
  const byPath = profiles.find((profile) => profile.detect.paths?.some((pattern) => pattern.test(url.pathname)));
  if (byPath) return { id: byPath.id, by: 'path' };
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const byPort = profiles.find((profile) => profile.detect.port === port);
  return byPort ? { id: byPort.id, by: 'port' } : { id: 'generic', by: 'none' };
}

/**
 * Whether a base URL may be a self-hosted server worth asking who it is (`endpoints/server-identity.ts`):
 * its provider was not recognised by host name or path, and it is not a public HTTPS API on the
 * default port (an `https://` URL without a port on a dotted host name that is not an IP address).
 */
export function mayBeSelfHosted(baseUrl: string): boolean {
  const detection = providerDetection(baseUrl);
  if (detection.by === 'host' || detection.by === 'path') return false;
  try {
    const url = new URL(baseUrl.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    const ip = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/i.test(url.hostname);
    return !(url.protocol === 'https:' && !url.port && url.hostname.includes('.') && !ip);
  } catch {
    return false;
  }
}

/** The value of the first rule whose pattern matches `model`, else `fallback`. */
function firstRule<T>(rules: readonly ModelRule<T>[] | undefined, model: string, fallback: T): T {
  return rules?.find((rule) => rule.model.test(model))?.value ?? fallback;
}

/**
 * Which token-limit parameter `model` takes on this provider: `max_completion_tokens` for the
 * models the profile lists (OpenAI and Azure o-series and gpt-5 family), else `max_tokens`.
 */
export function maxTokensParam(profile: ProviderProfile, model: string): MaxTokensParam {
  return profile.maxCompletionTokensModels.some((pattern) => pattern.test(model)) ? 'max_completion_tokens' : 'max_tokens';
}

/**
 * The reasoning-effort levels to offer for `model`, `default` first (which means: send nothing).
 * `['default']` alone when the provider has no effort parameter or the model is documented to
 * reject it (e.g. OpenAI gpt-4o, xAI grok-4).
 */
export function reasoningEffortLevels(profile: ProviderProfile, model: string): string[] {
  if (!profile.reasoningEffort.spelling) return ['default'];
  return ['default', ...firstRule(profile.reasoningEffort.levels, model, profile.reasoningEffort.defaultLevels)];
}

/** What {@link resolveEndpoint} needs: the endpoint settings, as in `Config`. */
export interface EndpointInput {
  /** Base URL; trailing slashes, `/chat/completions` and a query are tolerated. */
  baseUrl: string;
  /** Extra query string without `?` (OPENAI_QUERY and the base URL's own, combined). */
  query?: string | undefined;
  /** The key; sent as the profile's auth header. */
  apiKey?: string | undefined;
  /** User headers; they win over the auth header. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Explicit provider (`OPENAI_PROVIDER`); `undefined` detects it from the base URL. */
  provider?: ProviderId | undefined;
}

/** How to reach one endpoint, ready for the chat client and the model catalog. */
export interface ResolvedEndpoint {
  provider: ProviderId;
  profile: ProviderProfile;
  /** The matched URL variant (`azure-classic`, `azure-v1`), if any. */
  variant: string | undefined;
  /** `{base}/chat/completions[?query]`, never doubled. */
  chatUrl: string;
  /** `{base}{modelsPath}[?query]`, or `null` when the provider has no `/models` there (Azure classic, Bedrock). */
  modelsUrl: string | null;
  /** Key to send as `Authorization: Bearer`; `undefined` when there is none or it travels in `headers`. */
  bearerKey: string | undefined;
  /** Headers to add: the `api-key` header when the profile uses it, then the user's (which win). */
  headers: Record<string, string>;
}

/** Whether a key looks like a JWT (Microsoft Entra ID token), which Azure takes as Bearer, not `api-key`. */
const looksLikeJwt = (key: string) => /^eyJ[\w-]*\.[\w-]+\.[\w-]*$/.test(key);

/**
 * Applies the provider profile to endpoint settings: the chat and models URLs (the profile's
 * default query added when its key is absent, e.g. Azure classic `api-version=2024-10-21`), and
 * where the key goes (`Authorization: Bearer`, or `api-key` for Azure unless the key is an Entra
 * ID token). Pure; never throws.
 */
export function resolveEndpoint(input: EndpointInput): ResolvedEndpoint {
  const provider = input.provider ?? detectProvider(input.baseUrl);
  const profile = PROVIDER_PROFILES[provider];
  const base = normalizeBaseUrl(input.baseUrl);
  let path = '';
  let host = '';
  try {
    const url = new URL(base);
    path = url.pathname.replace(/\/+$/, '');
    host = url.hostname.toLowerCase();
  } catch {
    // an unparsable base matches no variant
  }
  const variant = profile.variants?.find((candidate) => candidate.path.test(path) && (!candidate.host || candidate.host.test(host)));
  const auth = variant?.auth ?? profile.auth;
  const modelsPath = variant && 'modelsPath' in variant ? variant.modelsPath : profile.modelsPath;
  const ownQuery = /\?([^#]*)/.exec(input.baseUrl)?.[1];
  const given = mergeQueries(ownQuery, input.query) ?? '';
  const givenKeys = new Set(given.split('&').map((piece) => piece.split('=')[0]));
  const defaults = Object.entries({ ...profile.defaultQuery, ...variant?.defaultQuery })
    .filter(([key]) => !givenKeys.has(key))
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
  const query = mergeQueries(given, defaults) ?? '';
  const suffix = query ? `?${query}` : '';
  const key = input.apiKey || undefined;
  const useHeader = key !== undefined && auth === 'api-key' && !looksLikeJwt(key);
  const headers: Record<string, string> = useHeader ? { 'api-key': key } : {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (useHeader && name.toLowerCase() === 'api-key') delete headers['api-key'];
    headers[name] = value;
  }
  return {
    provider,
    profile,
    variant: variant?.name,
    chatUrl: `${base}/chat/completions${suffix}`,
    modelsUrl: modelsPath === null ? null : `${base}${modelsPath}${suffix}`,
    bearerKey: useHeader ? undefined : key,
    headers,
  };
}
