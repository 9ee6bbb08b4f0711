/**
 * Which credentials an endpoint uses when it has no key: its profile's `keylessAuth`, AWS SigV4
 * for Bedrock, Microsoft Entra ID for Azure (see `aws-auth.ts`, `azure-auth.ts`). Decided from the
 * resolved profile and headers; the SDKs are loaded only when the first request is sent.
 */
import type { AuthorizeRequest } from '../openai/authorize.js';
import type { KeylessAuth } from '../config/provider-profiles.js';
import type { ResolvedEndpoint } from '../config/providers.js';
import { createAwsAuthorizer, type AwsCredentialSource } from './aws-auth.js';
import { createAzureAuthorizer, type AzureTokenCredential } from './azure-auth.js';

/** The credential path of an endpoint. */
export type CloudAuthKind = KeylessAuth;

/** Injectable parts of the cloud credential paths (tests; `doctor`). */
export interface CloudAuthDeps {
  /** Environment for the AWS region. @defaultValue `process.env` */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** AWS credential source. @defaultValue the SDK's default chain */
  awsCredentials?: AwsCredentialSource | undefined;
  /** Azure credential factory. @defaultValue `DefaultAzureCredential` */
  azureCredential?: (() => AzureTokenCredential | Promise<AzureTokenCredential>) | undefined;
  /** Clock, ms since the epoch. @defaultValue `Date.now` */
  now?: (() => number) | undefined;
}

const hasHeader = (headers: Readonly<Record<string, string>>, ...names: string[]) => Object.keys(headers).some((name) => names.includes(name.toLowerCase()));

/**
 * The credential path `resolved` takes: its profile's `keylessAuth` (`aws-sigv4` for Bedrock,
 * `azure-entra-id` for Azure) when it has no key: no bearer key, no `authorization` header, and
 * for a profile whose key goes in `api-key` (Azure) no such header; else `undefined` (the key, or
 * nothing, is sent as before). Pure.
 */
export function cloudAuthKind(resolved: Pick<ResolvedEndpoint, 'profile' | 'bearerKey' | 'headers'>): CloudAuthKind | undefined {
  const kind = resolved.profile.keylessAuth;
  if (!kind || resolved.bearerKey) return undefined;
  const keyHeaders = resolved.profile.auth === 'api-key' ? ['authorization', 'api-key'] : ['authorization'];
  return hasHeader(resolved.headers, ...keyHeaders) ? undefined : kind;
}

/** The auth hook for `resolved` ({@link cloudAuthKind}), or `undefined` when it needs none. Sends and loads nothing. */
export function cloudAuthorizer(
  resolved: Pick<ResolvedEndpoint, 'profile' | 'bearerKey' | 'headers'>,
  baseUrl: string,
  deps: CloudAuthDeps = {},
): AuthorizeRequest | undefined {
  switch (cloudAuthKind(resolved)) {
    case 'aws-sigv4':
      return createAwsAuthorizer({ baseUrl, env: deps.env, credentials: deps.awsCredentials, now: deps.now });
    case 'azure-entra-id':
      return createAzureAuthorizer({ credential: deps.azureCredential, now: deps.now });
    default:
      return undefined;
  }
}
