/**
 * Azure OpenAI with Microsoft Entra ID: when the provider is Azure and no key is set (neither
 * `OPENAI_API_KEY` nor an `api-key` header), each request carries `Authorization: Bearer <token>`
 * for the scope {@link AZURE_COGNITIVE_SCOPE}, from `DefaultAzureCredential` (loaded lazily from
 * `azure-token.lazy.ts`, its own build chunk). The token is cached and fetched again
 * {@link AZURE_REFRESH_MARGIN_MS} before it expires.
 *
 * Source: https://learn.microsoft.com/azure/ai-services/openai/how-to/managed-identity (scope
 * `https://cognitiveservices.azure.com/.default`, `Authorization: Bearer`).
 */
import { ProviderAuthError, type AuthorizeRequest } from '../openai/authorize.js';
import { loadOnce } from '../shared/load-once.js';
import { refreshingValue } from './refreshing-value.js';

/** The Entra ID scope of Azure OpenAI (Cognitive Services). */
export const AZURE_COGNITIVE_SCOPE = 'https://cognitiveservices.azure.com/.default';

/** Tokens are replaced this long before they expire, in ms (5 minutes). */
const AZURE_REFRESH_MARGIN_MS = 5 * 60_000;

/** An access token as `@azure/core-auth` returns it. */
interface AzureAccessToken {
  token: string;
  /** Expiry, ms since the epoch. */
  expiresOnTimestamp: number;
}

/** The part of `@azure/core-auth`'s `TokenCredential` used here (tests inject a fake). */
export interface AzureTokenCredential {
  getToken(scopes: string | string[]): Promise<AzureAccessToken | null>;
}

/** What {@link createAzureAuthorizer} needs. */
export interface AzureAuthOptions {
  /** Makes the credential, once. @defaultValue `DefaultAzureCredential`, loaded at the first request */
  credential?: (() => AzureTokenCredential | Promise<AzureTokenCredential>) | undefined;
  /** Clock, ms since the epoch. @defaultValue `Date.now` */
  now?: (() => number) | undefined;
}

/** Which `DefaultAzureCredential` source the environment points at (for `doctor`), in its order. */
export function azureCredentialHint(env: Readonly<Record<string, string | undefined>>): string {
  const set = (name: string) => Boolean(env[name]?.trim());
  if (set('AZURE_TENANT_ID') && set('AZURE_CLIENT_ID') && (set('AZURE_CLIENT_SECRET') || set('AZURE_CLIENT_CERTIFICATE_PATH')))
    return 'environment service principal (AZURE_TENANT_ID, AZURE_CLIENT_ID)';
  if (set('AZURE_FEDERATED_TOKEN_FILE') && set('AZURE_CLIENT_ID')) return 'workload identity (AZURE_FEDERATED_TOKEN_FILE, AKS)';
  if (set('IDENTITY_ENDPOINT') || set('MSI_ENDPOINT')) return 'managed identity (IDENTITY_ENDPOINT)';
  return 'managed identity (if on Azure), else the Azure CLI login (`az login`)';
}

/** The fix for a token failure. */
export function azureCredentialFix(message: string): string {
  if (/az login|azure cli/i.test(message)) return 'run `az login` (and `az account set --subscription …` if needed)';
  if (/AADSTS|client secret|certificate/i.test(message)) return 'check AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET of the service principal';
  return (
    'run `az login`, or set AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET, or use a managed or ' +
    'workload identity with the "Cognitive Services OpenAI User" role; or set the key in OPENAI_API_KEY'
  );
}

/** The SDK code, loaded once per process when the first token is asked for. */
const loadToken = loadOnce(() => import('./azure-token.lazy.js'));

/** A new `DefaultAzureCredential`, its code loaded on first call (`doctor` asks it directly). */
export async function loadDefaultAzureCredential(): Promise<AzureTokenCredential> {
  return (await loadToken()).defaultAzureCredential();
}

/**
 * The auth hook for Azure with Entra ID: adds `authorization: Bearer <token>`.
 * The hook throws {@link ProviderAuthError} (with a fix) when no token can be obtained.
 */
export function createAzureAuthorizer(options: AzureAuthOptions = {}): AuthorizeRequest {
  let credential: AzureTokenCredential | undefined;
  const token = refreshingValue<AzureAccessToken>({
    fetch: async () => {
      credential ??= await (options.credential ?? loadDefaultAzureCredential)();
      const got = await credential.getToken(AZURE_COGNITIVE_SCOPE);
      if (!got) throw new Error('the credential returned no token');
      return got;
    },
    expiresAt: (value) => value.expiresOnTimestamp,
    marginMs: AZURE_REFRESH_MARGIN_MS,
    now: options.now,
  });
  return async (request) => {
    try {
      return { authorization: `Bearer ${(await token()).token}` };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ProviderAuthError(
        request.url,
        `no Microsoft Entra ID token (${(message.split('\n')[0] ?? '').slice(0, 300)})`,
        azureCredentialFix(message),
        error,
      );
    }
  };
}
