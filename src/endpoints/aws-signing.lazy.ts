/**
 * The AWS SDK side of Bedrock's SigV4 path, loaded only when that path is taken (built as its own
 * chunk, `dist/chunks/aws-signing.lazy.cjs`, by scripts/lazy-chunks.mjs): the SDK v3 default
 * credential chain and the SigV4 signer. Everything else (refresh, errors, region) lives in
 * `aws-auth.ts`, so this module holds no class the main bundle checks with `instanceof`.
 *
 * Sources: AWS SDK for JavaScript v3 `fromNodeProviderChain`
 * (https://docs.aws.amazon.com/AWSJavaScriptSDK/v3/latest/Package/-aws-sdk-credential-providers/#fromnodeproviderchain);
 * Signature Version 4 (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html).
 */
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { RequestToAuthorize } from '../openai/authorize.js';

/** AWS credentials as the SDK resolves them. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Present for temporary credentials (STS, SSO, roles). */
  sessionToken?: string | undefined;
  /** When temporary credentials expire; absent for long-term keys. */
  expiration?: Date | undefined;
}

/** A credential source; `forceRefresh` bypasses the SDK's own memoization. */
export type AwsCredentialSource = (options?: { forceRefresh?: boolean }) => Promise<AwsCredentials>;

/**
 * The SDK v3 default chain: environment keys, the shared config and credentials files
 * (`AWS_PROFILE`, SSO, assume-role, `credential_process`), web identity (`AWS_WEB_IDENTITY_TOKEN_FILE`,
 * EKS), container credentials (ECS), then instance metadata (EC2, unless `AWS_EC2_METADATA_DISABLED`).
 * Reads the environment and files when first called, not here.
 */
export function defaultAwsCredentials(): AwsCredentialSource {
  return fromNodeProviderChain();
}

/** What a signature is for: the region and the service name of the endpoint. */
export interface SigningTarget {
  region: string;
  /** `bedrock` (bedrock-runtime) or `bedrock-mantle`. */
  service: string;
}

/**
 * Signs `request` with SigV4 and returns only the headers the signature adds (`authorization`,
 * `x-amz-date`, `x-amz-content-sha256`, and `x-amz-security-token` for temporary credentials).
 * The `host` header is signed as `url`'s host (with the port when there is one), which is what
 * Node sends. `signingDate` is the signature's time (tests pass a fixed one).
 */
export async function signRequest(
  request: RequestToAuthorize,
  target: SigningTarget,
  credentials: AwsCredentials,
  signingDate: Date,
): Promise<Record<string, string>> {
  const url = new URL(request.url);
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const previous = query[name];
    query[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  headers['host'] = url.host;
  const unsigned = new HttpRequest({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
  const signer = new SignatureV4({ credentials, region: target.region, service: target.service, sha256: Hash.bind(null, 'sha256') });
  const signed = await signer.sign(unsigned, { signingDate });
  const added: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) {
    if (name !== 'host' && headers[name] !== value) added[name] = value;
  }
  return added;
}
