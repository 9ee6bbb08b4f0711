/**
 * Bedrock with AWS credentials: the signing target from the base URL and the environment, requests
 * signed through the auth hook and verified by a loopback server that recomputes the signature with
 * the same SDK, credential refresh on a fake clock, failures with their fixes, and the SDK's default
 * chain reading static credentials from a scratch environment (no profile, no metadata, no network).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { awsCredentialHint, awsSigningTarget, createAwsAuthorizer, type AwsCredentials } from '../../src/endpoints/aws-auth.js';
import { ProviderAuthError, withAuthorization } from '../../src/openai/authorize.js';
import { defaultFetch } from '../../src/openai/http.js';
import { fetchModels } from '../../src/endpoints/model-catalog.js';
import { startSigV4Server, TEST_AWS, type SigV4Server } from '../helpers/sigv4-server.js';

let server: SigV4Server;
beforeAll(async () => {
  server = await startSigV4Server();
});
afterAll(() => server.close());

const T0 = Date.UTC(2026, 10, 23, 11, 0, 0);
const staticSource = (credentials: AwsCredentials = TEST_AWS) => vi.fn(async () => credentials);

/** Sends a request the way the chat client does: headers, hook, then the same body text. */
async function send(authorize: ReturnType<typeof createAwsAuthorizer>, method: string, url: string, body?: string) {
  const headers = await withAuthorization(authorize, { method, url, headers: { 'content-type': 'application/json', 'user-agent': 'openai-acp/test' }, body });
  const fetch = await defaultFetch();
  const response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
  await response.text();
  return response.status;
}

describe('awsSigningTarget', () => {
  it('takes region and service from Bedrock hosts', () => {
    expect(awsSigningTarget('https://bedrock-runtime.eu-west-3.amazonaws.com/openai/v1', {})).toEqual({
      region: 'eu-west-3',
      service: 'bedrock',
      regionFrom: 'base URL',
    });
    expect(awsSigningTarget('https://bedrock-runtime-fips.us-east-1.amazonaws.com/openai/v1', {})).toMatchObject({ region: 'us-east-1', service: 'bedrock' });
    expect(awsSigningTarget('https://vpce-0abc.bedrock-runtime.us-west-2.vpce.amazonaws.com/openai/v1', {})).toMatchObject({
      region: 'us-west-2',
      service: 'bedrock',
    });
    expect(awsSigningTarget('https://bedrock-mantle.ap-northeast-1.api.aws/v1', { AWS_REGION: 'us-east-1' })).toEqual({
      region: 'ap-northeast-1',
      service: 'bedrock-mantle',
      regionFrom: 'base URL',
    });
  });

  it('falls back to AWS_REGION, then AWS_DEFAULT_REGION, for other hosts', () => {
    expect(awsSigningTarget('http://127.0.0.1:9/openai/v1', { AWS_REGION: 'eu-central-1', AWS_DEFAULT_REGION: 'us-east-2' })).toEqual({
      region: 'eu-central-1',
      service: 'bedrock',
      regionFrom: 'AWS_REGION',
    });
    expect(awsSigningTarget('http://127.0.0.1:9/openai/v1', { AWS_REGION: ' ', AWS_DEFAULT_REGION: 'us-east-2' })).toMatchObject({
      region: 'us-east-2',
      regionFrom: 'AWS_DEFAULT_REGION',
    });
  });

  it('reports a missing region with the fix', () => {
    const target = awsSigningTarget('https://gateway.example/openai/v1', {});
    expect(target).toMatchObject({ problem: expect.stringContaining('no AWS region') });
    expect('fix' in target && target.fix).toContain('AWS_REGION');
  });
});

describe('awsCredentialHint', () => {
  it('names the source the chain will use first', () => {
    expect(awsCredentialHint({ AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' }, false)?.source).toMatch(/^environment/);
    expect(awsCredentialHint({ AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b', AWS_PROFILE: 'dev' }, false)).toEqual({
      source: 'profile dev (AWS_PROFILE)',
      profile: 'dev',
    });
    expect(awsCredentialHint({ AWS_WEB_IDENTITY_TOKEN_FILE: '/t', AWS_ROLE_ARN: 'arn' }, false)?.source).toMatch(/^web identity/);
    expect(awsCredentialHint({ AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/x' }, false)?.source).toMatch(/^container/);
    expect(awsCredentialHint({}, true)?.source).toMatch(/~\/\.aws/);
    expect(awsCredentialHint({}, false)?.source).toMatch(/^instance metadata/);
    expect(awsCredentialHint({ AWS_EC2_METADATA_DISABLED: 'true' }, false)).toBeUndefined();
  });
});

describe('createAwsAuthorizer', () => {
  it('signs a chat request and a GET /models so that the server verifies both', async () => {
    const authorize = createAwsAuthorizer({
      baseUrl: `${server.origin}/openai/v1`,
      env: { AWS_REGION: 'us-east-1' },
      credentials: staticSource(),
      now: () => T0,
    });
    const body = JSON.stringify({ model: 'openai.gpt-oss-120b', messages: [{ role: 'user', content: 'héllo ✓' }], stream: true });
    expect(await send(authorize, 'POST', `${server.origin}/openai/v1/chat/completions`, body)).toBe(200);
    const models = await fetchModels({ baseUrl: `${server.origin}/v1`, query: 'b=2&a=1&a=0', authorize });
    expect(models.map((m) => m.id)).toEqual(['openai.gpt-oss-120b']);
    const [post, get] = server.records.slice(-2);
    expect(post).toMatchObject({ method: 'POST', verified: true, body, scope: { accessKeyId: TEST_AWS.accessKeyId, region: 'us-east-1', service: 'bedrock' } });
    expect(post!.headers['x-amz-security-token']).toBe(TEST_AWS.sessionToken);
    expect(post!.headers['x-amz-date']).toBe('20261123T110000Z');
    expect(get).toMatchObject({ method: 'GET', url: '/v1/models?b=2&a=1&a=0', verified: true });
  });

  it('is caught by the verifier when the body differs from what was signed', async () => {
    const authorize = createAwsAuthorizer({
      baseUrl: `${server.origin}/openai/v1`,
      env: { AWS_REGION: 'us-east-1' },
      credentials: staticSource(),
      now: () => T0,
    });
    const url = `${server.origin}/openai/v1/chat/completions`;
    const headers = await withAuthorization(authorize, { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    const response = await (await defaultFetch())(url, { method: 'POST', headers, body: '{"a":2}' });
    await response.text();
    expect(response.status).toBe(403);
    expect(server.records.at(-1)?.verified).toBe(false);
  });

  it('reuses credentials until 5 minutes before they expire, then fetches them again', async () => {
    let clock = T0;
    let serial = 0;
    const source = vi.fn(async (_options?: { forceRefresh?: boolean }) => ({
      ...TEST_AWS,
      sessionToken: `token-${++serial}`,
      expiration: new Date(clock + 15 * 60_000),
    }));
    const authorize = createAwsAuthorizer({ baseUrl: `${server.origin}/openai/v1`, env: { AWS_REGION: 'us-east-1' }, credentials: source, now: () => clock });
    const url = `${server.origin}/openai/v1/chat/completions`;
    expect(await send(authorize, 'POST', url, '{}')).toBe(200);
    clock += 9 * 60_000; // 6 minutes left: still fresh
    expect(await send(authorize, 'POST', url, '{}')).toBe(200);
    expect(source).toHaveBeenCalledTimes(1);
    clock += 2 * 60_000; // 4 minutes left: inside the margin
    expect(await send(authorize, 'POST', url, '{}')).toBe(200);
    expect(source).toHaveBeenCalledTimes(2);
    expect(source.mock.calls[1]?.[0]).toEqual({ forceRefresh: true });
    expect(server.records.slice(-3).map((r) => [r.headers['x-amz-security-token'], r.verified])).toEqual([
      ['token-1', true],
      ['token-1', true],
      ['token-2', true],
    ]);
  });

  it('fails with a fix when there is no region or no credentials, without sending anything', async () => {
    const before = server.records.length;
    const noRegion = createAwsAuthorizer({ baseUrl: `${server.origin}/openai/v1`, env: {}, credentials: staticSource() });
    await expect(send(noRegion, 'POST', `${server.origin}/openai/v1/chat/completions`, '{}')).rejects.toMatchObject({
      name: 'ProviderAuthError',
      fix: expect.stringContaining('AWS_REGION'),
    });
    const sso = createAwsAuthorizer({
      baseUrl: `${server.origin}/openai/v1`,
      env: { AWS_REGION: 'us-east-1', AWS_PROFILE: 'dev' },
      credentials: async () => {
        throw new Error('The SSO session associated with this profile has expired or is otherwise invalid.');
      },
    });
    const error = await send(sso, 'POST', `${server.origin}/openai/v1/chat/completions`, '{}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect((error as ProviderAuthError).fix).toBe('run `aws sso login --profile dev`');
    expect((error as ProviderAuthError).retryable).toBe(false);
    expect(server.records.length).toBe(before);
  });
});

describe('the SDK default chain', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'aws-chain-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  afterEach(() => vi.unstubAllEnvs());

  it('reads static credentials from the environment (scratch HOME, no metadata) and signs with them', async () => {
    for (const [name, value] of Object.entries({
      HOME: home,
      AWS_CONFIG_FILE: join(home, 'none-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'none-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_PROFILE: '',
      AWS_ACCESS_KEY_ID: TEST_AWS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: TEST_AWS.secretAccessKey,
      AWS_SESSION_TOKEN: TEST_AWS.sessionToken,
    })) {
      vi.stubEnv(name, value);
    }
    const authorize = createAwsAuthorizer({ baseUrl: `${server.origin}/openai/v1`, env: { AWS_REGION: 'us-west-2' } });
    expect(await send(authorize, 'POST', `${server.origin}/openai/v1/chat/completions`, '{"x":1}')).toBe(200);
    expect(server.records.at(-1)).toMatchObject({ verified: true, scope: { accessKeyId: TEST_AWS.accessKeyId, region: 'us-west-2', service: 'bedrock' } });
  }, 30_000);
});
