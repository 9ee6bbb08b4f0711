/**
 * Bedrock with AWS credentials: SigV4-signed requests when the provider is Bedrock and no API key
 * is set. The region and signing service come from the base URL (else `AWS_REGION`,
 * `AWS_DEFAULT_REGION`); credentials from the AWS SDK v3 default chain, loaded lazily
 * (`aws-signing.lazy.ts`, its own build chunk) at the first request, cached and fetched again
 * {@link AWS_REFRESH_MARGIN_MS} before they expire.
 *
 * Signing service names (source: openai-java `bedrock.md`, https://github.com/openai/openai-java/blob/main/bedrock.md,
 * "Mantle requests use the `bedrock-mantle` SigV4 service name. Runtime requests use the `bedrock`
 * SigV4 service name"; endpoints: https://docs.aws.amazon.com/bedrock/latest/userguide/inference-chat-completions-mantle.html):
 * - `bedrock-mantle.<region>.api.aws` → `bedrock-mantle`;
 * - `bedrock-runtime[-fips].<region>.amazonaws.com` (and its VPC endpoints) → `bedrock`;
 * - any other host (a gateway, a test server) → `bedrock`, as the Bedrock profile's default base
 *   URL is the runtime endpoint.
 */
import { ProviderAuthError, type AuthorizeRequest } from '../openai/authorize.js';
import { loadOnce } from '../shared/load-once.js';
import { refreshingValue } from './refreshing-value.js';
import type { AwsCredentials, AwsCredentialSource, SigningTarget } from './aws-signing.lazy.js';

export type { AwsCredentials, AwsCredentialSource } from './aws-signing.lazy.js';

/** Temporary credentials are replaced this long before they expire, in ms (the SDK's own 5 minutes). */
const AWS_REFRESH_MARGIN_MS = 5 * 60_000;

/** Where the region came from. */
type RegionSource = 'base URL' | 'AWS_REGION' | 'AWS_DEFAULT_REGION';

/** The region and service to sign for, or why there is none. */
export type AwsTarget = (SigningTarget & { regionFrom: RegionSource }) | { problem: string; fix: string; service: string };

const MANTLE = /^bedrock-mantle(-fips)?\.([a-z0-9-]+)\.api\.aws$/;
const RUNTIME = /(^|\.)bedrock-runtime(-fips)?\.([a-z0-9-]+)\.(vpce\.)?amazonaws\.com(\.cn)?$/;

/** The SigV4 region and service of a Bedrock base URL (see the module comment). Pure. */
export function awsSigningTarget(baseUrl: string, env: Readonly<Record<string, string | undefined>>): AwsTarget {
  let host = '';
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    // an unparsable URL names no region
  }
  const mantle = MANTLE.exec(host);
  const runtime = RUNTIME.exec(host);
  const service = mantle ? 'bedrock-mantle' : 'bedrock';
  const fromUrl = mantle?.[2] ?? runtime?.[3];
  if (fromUrl) return { region: fromUrl, service, regionFrom: 'base URL' };
  for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION'] as const) {
    const value = env[name]?.trim();
    if (value) return { region: value, service, regionFrom: name };
  }
  return {
    problem: `no AWS region: the base URL ${host || baseUrl} names none and AWS_REGION is not set`,
    fix: 'set AWS_REGION (e.g. us-east-1), or use the regional base URL https://bedrock-runtime.<region>.amazonaws.com/openai/v1',
    service,
  };
}

/** Which source of the default chain will answer, as far as the environment tells (for `doctor`). */
export interface AwsCredentialHint {
  /** e.g. `environment (AWS_ACCESS_KEY_ID)`, `profile dev (AWS_PROFILE)`, `web identity (EKS)`. */
  source: string;
  /** The profile the chain reads, when one is named. */
  profile: string | undefined;
}

/**
 * The first source of the default chain the environment points at, in the chain's order:
 * environment keys, a named profile, web identity, container credentials, the shared files in
 * HOME, instance metadata. `hasSharedFiles` says whether `~/.aws/config` or `~/.aws/credentials`
 * exists. `undefined` when nothing points anywhere (and instance metadata is disabled).
 */
export function awsCredentialHint(env: Readonly<Record<string, string | undefined>>, hasSharedFiles: boolean): AwsCredentialHint | undefined {
  const set = (name: string) => Boolean(env[name]?.trim());
  const profile = env['AWS_PROFILE']?.trim() || undefined;
  if (!profile && set('AWS_ACCESS_KEY_ID') && set('AWS_SECRET_ACCESS_KEY')) {
    return { source: `environment (AWS_ACCESS_KEY_ID${set('AWS_SESSION_TOKEN') ? ', AWS_SESSION_TOKEN' : ''})`, profile };
  }
  if (profile) return { source: `profile ${profile} (AWS_PROFILE)`, profile };
  if (set('AWS_WEB_IDENTITY_TOKEN_FILE') && set('AWS_ROLE_ARN')) return { source: 'web identity (AWS_WEB_IDENTITY_TOKEN_FILE, e.g. EKS)', profile };
  if (set('AWS_CONTAINER_CREDENTIALS_RELATIVE_URI') || set('AWS_CONTAINER_CREDENTIALS_FULL_URI'))
    return { source: 'container credentials (ECS task role)', profile };
  if (hasSharedFiles) return { source: 'profile default (~/.aws)', profile };
  if (env['AWS_EC2_METADATA_DISABLED']?.trim().toLowerCase() !== 'true')
    return { source: 'instance metadata (EC2 instance profile), if this runs on EC2', profile };
  return undefined;
}

/** The fix for a credential failure, from the SDK's message. */
export function awsCredentialFix(message: string, profile: string | undefined): string {
  const named = profile ? ` --profile ${profile}` : '';
  if (/sso/i.test(message)) return `run \`aws sso login${named}\``;
  if (/expired/i.test(message))
    return `refresh the credentials (e.g. \`aws sso login${named}\`, or new keys in AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN)`;
  if (profile && /profile/i.test(message)) return `check the profile ${profile} in ~/.aws/config (\`aws configure list --profile ${profile}\`)`;
  return (
    'set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (for SSO, then `aws sso login`), or ' +
    'run with a role (EKS web identity, ECS task role, EC2 instance profile); or set a Bedrock API key in ' +
    'OPENAI_API_KEY'
  );
}

/** What {@link createAwsAuthorizer} needs. */
export interface AwsAuthOptions {
  /** The endpoint's base URL (region and service, {@link awsSigningTarget}). */
  baseUrl: string;
  /** @defaultValue `process.env` */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Credential source (tests). @defaultValue the SDK's default chain, loaded at the first request */
  credentials?: AwsCredentialSource | undefined;
  /** Clock for expiry and the signature's date, ms since the epoch. @defaultValue `Date.now` */
  now?: (() => number) | undefined;
}

/** The SDK code, loaded once per process when the first request is signed. */
const loadSigning = loadOnce(() => import('./aws-signing.lazy.js'));

/** The SDK's default chain, its code loaded on first call (`doctor` asks it directly). */
export async function loadDefaultAwsCredentials(): Promise<AwsCredentialSource> {
  return (await loadSigning()).defaultAwsCredentials();
}

/**
 * The auth hook for Bedrock with AWS credentials: each request signed with SigV4 for the region and
 * service of {@link awsSigningTarget}. Credentials are fetched at the first request and again when
 * they are within {@link AWS_REFRESH_MARGIN_MS} of their `expiration`.
 * The hook throws {@link ProviderAuthError} (with a fix) when there is no region or no credentials.
 */
export function createAwsAuthorizer(options: AwsAuthOptions): AuthorizeRequest {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const target = awsSigningTarget(options.baseUrl, env);
  const profile = env['AWS_PROFILE']?.trim() || undefined;
  let source: AwsCredentialSource | undefined = options.credentials;
  const credentials = refreshingValue<AwsCredentials>({
    fetch: async (forceRefresh) => {
      source ??= (await loadSigning()).defaultAwsCredentials();
      return source({ forceRefresh });
    },
    expiresAt: (value) => value.expiration?.getTime(),
    marginMs: AWS_REFRESH_MARGIN_MS,
    now,
  });
  return async (request) => {
    if ('problem' in target) throw new ProviderAuthError(request.url, target.problem, target.fix);
    let resolved: AwsCredentials;
    try {
      resolved = await credentials();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ProviderAuthError(request.url, `no AWS credentials (${firstLine(message)})`, awsCredentialFix(message, profile), error);
    }
    const { signRequest } = await loadSigning();
    return signRequest(request, target, resolved, new Date(now()));
  };
}

const firstLine = (text: string) => (text.split('\n')[0] ?? '').slice(0, 300);
