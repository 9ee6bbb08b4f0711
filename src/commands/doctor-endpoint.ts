/**
 * The configuration lines `doctor` prints for one endpoint, before any check: its provider family
 * and how it was decided, its URLs as the provider profile resolves them, the model and why, and
 * where the key goes, secrets masked.
 */
import { detectProvider, resolveEndpoint } from '../config/providers.js';
import { PROVIDER_PROFILES, type ProviderId } from '../config/provider-profiles.js';
import { cloudAuthKind } from '../endpoints/cloud-auth.js';
import { createEndpoint } from '../endpoints/endpoint.js';
import type { NamedEndpointSettings } from '../endpoints/endpoint-registry.js';
import { createLogger } from '../shared/log.js';
import { ollamaChatUrl } from './doctor-ollama.js';
import { describeHeaders, describeSecret, maskUrl } from './mask.js';

/**
 * The provider family of an endpoint, and how it was decided: recognised by the server's answers,
 * found as the local server on its usual port, set (by `OPENAI_PROVIDER` or a config file's
 * `provider`), or detected from the base URL.
 * Exported: a pure step checked per source, without a server.
 */
export function providerOf(settings: NamedEndpointSettings): { id: ProviderId; how: string } {
  const explicit = settings.provider;
  if (!explicit) return { id: detectProvider(settings.baseUrl), how: 'detected from the base URL' };
  if (settings.identifiedBy) return { id: explicit, how: `recognised by its answer to ${settings.identifiedBy}` };
  if (settings.source === 'local server') return { id: explicit, how: `found running at ${new URL(settings.baseUrl).host}` };
  if (settings.source === 'config file') return { id: explicit, how: 'set by "provider" in the config file' };
  if (settings.source === 'client') return { id: explicit, how: 'set by the client' };
  return { id: explicit, how: 'set by OPENAI_PROVIDER' };
}

/**
 * The configuration lines of one endpoint, secrets masked: as the provider profile resolves it
 * (URLs, where the key goes), each `    name            value`.
 */
export function describeEndpoint(settings: NamedEndpointSettings, keyShown: string, modelWhy: string): string[] {
  const provider = providerOf(settings);
  const label = PROVIDER_PROFILES[provider.id]?.label ?? provider.id;
  const resolved = resolveEndpoint({
    baseUrl: settings.baseUrl,
    query: settings.query,
    apiKey: settings.apiKey,
    headers: settings.headers,
    provider: provider.id,
  });
  const keyless = cloudAuthKind(resolved);
  const keyWhere = !settings.apiKey
    ? keyless === 'aws-sigv4'
      ? '; requests are signed with AWS SigV4 (default credential chain)'
      : keyless === 'azure-entra-id'
        ? '; requests carry a Microsoft Entra ID token (DefaultAzureCredential)'
        : ''
    : resolved.bearerKey
      ? ', sent as Authorization: Bearer'
      : ', sent as the api-key header';
  // Ollama: chat goes to the native /api/chat unless it is switched off or found not served.
  const native = PROVIDER_PROFILES[provider.id]?.nativeChat
    ? createEndpoint(settings, { logger: createLogger({ level: 'error', write: () => undefined }), enabled: false }).nativeChat
    : undefined;
  const chatUrl = native ? ollamaChatUrl(maskUrl(native.root), native.inUse, maskUrl(resolved.chatUrl)) : maskUrl(resolved.chatUrl);
  const rows: [string, string][] = [
    ['provider', `${label} (${provider.id}, ${provider.how})`],
    ['base URL', settings.baseUrl],
    ['chat URL', chatUrl],
    ['models URL', resolved.modelsUrl ? maskUrl(resolved.modelsUrl) : 'none (this provider has no model list)'],
    ['model', `${settings.model} (${modelWhy})`],
    ['API key', `${keyShown ? `${keyShown}: ` : ''}${describeSecret(settings.apiKey)}${keyWhere}`],
    ['headers', describeHeaders(settings.headers)],
  ];
  if (settings.models?.length) rows.push(['fallback models', settings.models.join(', ')]);
  rows.push(['limits', `${settings.timeoutMs} ms of silence, ${settings.maxRetries} ${settings.maxRetries === 1 ? 'retry' : 'retries'}`]);
  return rows.map(([name, value]) => `    ${name.padEnd(16)}${value}`);
}
