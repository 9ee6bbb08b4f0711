/**
 * `doctor`'s checks of the keyless cloud credential paths (see `endpoints/cloud-auth.ts`): for
 * Bedrock, which AWS credential source the environment points at, the region, and credentials
 * actually obtained from the SDK's default chain; for Azure, which Entra ID source applies and a
 * token actually obtained. The signed `GET /models` and one-token completion that follow are the
 * usual endpoint checks, sent through the same auth hook. Each failure comes with its fix.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { awsCredentialFix, awsCredentialHint, awsSigningTarget, loadDefaultAwsCredentials, type AwsCredentials } from '../endpoints/aws-auth.js';
import { AZURE_COGNITIVE_SCOPE, azureCredentialFix, azureCredentialHint, loadDefaultAzureCredential } from '../endpoints/azure-auth.js';
import { cloudAuthKind, type CloudAuthDeps } from '../endpoints/cloud-auth.js';
import type { EndpointSettings } from '../endpoints/endpoint.js';
import { resolveEndpoint } from '../config/providers.js';
import { line, type CheckLine } from './doctor-lines.js';

/** The check names, in report order. */
const CLOUD_CHECK_TITLES = {
  awsSource: 'AWS credential source',
  awsRegion: 'AWS region',
  awsCredentials: 'AWS credentials obtained',
  azureSource: 'Microsoft Entra ID source',
  azureToken: 'Entra ID token obtained',
} as const;

/** Environment credentials expiring sooner than this get a warning (they cannot be refreshed), in ms. */
const SOON_MS = 15 * 60_000;

/** What the checks need. */
export interface CloudCheckDeps extends CloudAuthDeps {
  /** Bound of the credential lookup, in ms. */
  timeoutMs: number;
  /** Whether `~/.aws/config` or `~/.aws/credentials` exists. @defaultValue looked up in HOME */
  hasSharedAwsFiles?: boolean | undefined;
}

/** Resolves `promise`, or rejects after `ms` with a message saying so. */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const messageOf = (error: unknown) => ((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '').slice(0, 300);

/** `AKID…` with most of the id hidden (an access key id is not secret, but needs no full display). */
const maskKeyId = (id: string) => (id.length > 8 ? `${id.slice(0, 4)}…${id.slice(-4)}` : '…');

/**
 * The cloud credential lines of one endpoint: none when it sends a key (or is neither Bedrock nor
 * Azure). `fail` blocks the agent; `warn` does not (e.g. environment credentials about to expire).
 * Never throws.
 */
export async function cloudCredentialChecks(settings: EndpointSettings, deps: CloudCheckDeps): Promise<CheckLine[]> {
  const resolved = resolveEndpoint({
    baseUrl: settings.baseUrl,
    query: settings.query,
    apiKey: settings.apiKey,
    headers: settings.headers,
    provider: settings.provider,
  });
  const env = deps.env ?? process.env;
  const now = deps.now ?? Date.now;
  const kind = cloudAuthKind(resolved);
  if (kind === 'aws-sigv4') {
    const lines: CheckLine[] = [];
    const profile = env['AWS_PROFILE']?.trim() || undefined;
    const shared = deps.hasSharedAwsFiles ?? [join(homedir(), '.aws', 'config'), join(homedir(), '.aws', 'credentials')].some((path) => existsSync(path));
    const hint = awsCredentialHint(env, shared);
    lines.push(
      hint
        ? line('pass', CLOUD_CHECK_TITLES.awsSource, `no API key is set, so requests are signed with SigV4; the credential chain starts at: ${hint.source}`)
        : line(
            'warn',
            CLOUD_CHECK_TITLES.awsSource,
            'no API key is set, and the environment points at no AWS credential source (keys, AWS_PROFILE, ~/.aws, web ' +
              'identity, container, instance metadata); see the next lines',
          ),
    );
    const target = awsSigningTarget(settings.baseUrl, env);
    lines.push(
      'problem' in target
        ? line('fail', CLOUD_CHECK_TITLES.awsRegion, target.problem, target.fix)
        : line('pass', CLOUD_CHECK_TITLES.awsRegion, `${target.region} (from ${target.regionFrom}), service ${target.service}`),
    );
    let credentials: AwsCredentials;
    try {
      const source = deps.awsCredentials ?? (await loadDefaultAwsCredentials());
      credentials = await bounded(source(), deps.timeoutMs, 'AWS credentials');
    } catch (error) {
      lines.push(line('fail', CLOUD_CHECK_TITLES.awsCredentials, messageOf(error), awsCredentialFix(messageOf(error), profile)));
      return lines;
    }
    const left = credentials.expiration ? credentials.expiration.getTime() - now() : undefined;
    const expires = left !== undefined ? `, expires in ${Math.max(0, Math.round(left / 60_000))} min (refreshed 5 min before)` : '';
    const detail = `access key ${maskKeyId(credentials.accessKeyId)}, ${credentials.sessionToken ? 'temporary' : 'long-term'}${expires}`;
    const fromEnv = hint?.source.startsWith('environment') === true;
    if (fromEnv && credentials.sessionToken && left !== undefined && left < SOON_MS) {
      lines.push(
        line(
          'warn',
          CLOUD_CHECK_TITLES.awsCredentials,
          `${detail}; environment credentials cannot be refreshed`,
          'use a profile (AWS_PROFILE) or a role, which the chain refreshes, or renew AWS_SESSION_TOKEN before it expires',
        ),
      );
    } else {
      lines.push(line('pass', CLOUD_CHECK_TITLES.awsCredentials, detail));
    }
    return lines;
  }
  if (kind === 'azure-entra-id') {
    const lines = [
      line(
        'pass',
        CLOUD_CHECK_TITLES.azureSource,
        `no key is set, so requests carry an Entra ID token; DefaultAzureCredential will use: ${azureCredentialHint(env)}`,
      ),
    ];
    try {
      const credential = await (deps.azureCredential ?? loadDefaultAzureCredential)();
      const token = await bounded(credential.getToken(AZURE_COGNITIVE_SCOPE), deps.timeoutMs, 'Entra ID token');
      if (!token) throw new Error('the credential returned no token');
      const left = Math.max(0, Math.round((token.expiresOnTimestamp - now()) / 60_000));
      lines.push(line('pass', CLOUD_CHECK_TITLES.azureToken, `a token for ${AZURE_COGNITIVE_SCOPE}, valid ${left} min more (refreshed 5 min before expiry)`));
    } catch (error) {
      lines.push(line('fail', CLOUD_CHECK_TITLES.azureToken, messageOf(error), azureCredentialFix(messageOf(error))));
    }
    return lines;
  }
  return [];
}
