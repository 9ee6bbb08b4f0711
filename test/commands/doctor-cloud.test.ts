/**
 * `doctor`'s cloud credential checks with injected credential sources (no SDK, no network): the
 * lines for Bedrock (source, region, credentials) and Azure (source, token), a warning that does
 * not block, and fixes for each failure.
 */
import { describe, expect, it } from 'vitest';
import { cloudCredentialChecks } from '../../src/commands/doctor-cloud.js';
import { endpointSettings } from '../helpers/endpoint-settings.js';

const T0 = Date.UTC(2026, 10, 23, 11, 0, 0);
const bedrock = endpointSettings('b', 'https://bedrock-runtime.eu-west-1.amazonaws.com/openai/v1', { provider: 'bedrock' });
const azure = endpointSettings('a', 'https://res.openai.azure.com/openai/v1', { provider: 'azure' });
const ENV_KEYS = { AWS_ACCESS_KEY_ID: 'AKIDTESTEXAMPLE', AWS_SECRET_ACCESS_KEY: 's' };

describe('cloudCredentialChecks', () => {
  it('has nothing to say about an endpoint with a key', async () => {
    expect(await cloudCredentialChecks({ ...bedrock, apiKey: 'k' }, { env: {}, timeoutMs: 100 })).toEqual([]);
    expect(await cloudCredentialChecks(endpointSettings('o', 'https://api.openai.com/v1'), { env: {}, timeoutMs: 100 })).toEqual([]);
  });

  it('Bedrock: source, region and credentials pass', async () => {
    const lines = await cloudCredentialChecks(bedrock, {
      env: ENV_KEYS,
      timeoutMs: 1000,
      awsCredentials: async () => ({ accessKeyId: 'AKIDTESTEXAMPLE', secretAccessKey: 's' }),
      hasSharedAwsFiles: false,
    });
    expect(lines.map((l) => [l.status, l.title])).toEqual([
      ['pass', 'AWS credential source'],
      ['pass', 'AWS region'],
      ['pass', 'AWS credentials obtained'],
    ]);
    expect(lines[0]!.detail).toContain('environment (AWS_ACCESS_KEY_ID)');
    expect(lines[1]!.detail).toBe('eu-west-1 (from base URL), service bedrock');
    expect(lines[2]!.detail).toBe('access key AKID…MPLE, long-term');
  });

  it('Bedrock: expiring environment session credentials are a warning, not a failure', async () => {
    const lines = await cloudCredentialChecks(bedrock, {
      env: { ...ENV_KEYS, AWS_SESSION_TOKEN: 't' },
      timeoutMs: 1000,
      now: () => T0,
      awsCredentials: async () => ({ accessKeyId: 'AKIDTESTEXAMPLE', secretAccessKey: 's', sessionToken: 't', expiration: new Date(T0 + 10 * 60_000) }),
    });
    expect(lines[2]).toMatchObject({ status: 'warn', detail: expect.stringContaining('expires in 10 min'), fix: expect.stringContaining('AWS_PROFILE') });
  });

  it('Bedrock: no region and an expired SSO session fail with their fixes', async () => {
    const gateway = endpointSettings('g', 'https://gateway.example/openai/v1', { provider: 'bedrock' });
    const lines = await cloudCredentialChecks(gateway, {
      env: { AWS_PROFILE: 'dev' },
      timeoutMs: 1000,
      awsCredentials: async () => {
        throw new Error('The SSO session associated with this profile has expired or is otherwise invalid.');
      },
    });
    expect(lines.map((l) => [l.status, l.title, l.fix])).toEqual([
      ['pass', 'AWS credential source', undefined],
      ['fail', 'AWS region', expect.stringContaining('set AWS_REGION')],
      ['fail', 'AWS credentials obtained', 'run `aws sso login --profile dev`'],
    ]);
  });

  it('Bedrock: a credential lookup that hangs fails within the bound', async () => {
    const lines = await cloudCredentialChecks(bedrock, { env: ENV_KEYS, timeoutMs: 50, awsCredentials: () => new Promise(() => {}) });
    expect(lines[2]).toMatchObject({ status: 'fail', detail: 'no AWS credentials within 50 ms' });
  });

  it('Azure: token obtained, or the az login fix', async () => {
    const ok = await cloudCredentialChecks(azure, {
      env: {},
      timeoutMs: 1000,
      now: () => T0,
      azureCredential: () => ({ getToken: async () => ({ token: 'x', expiresOnTimestamp: T0 + 60 * 60_000 }) }),
    });
    expect(ok.map((l) => [l.status, l.title])).toEqual([
      ['pass', 'Microsoft Entra ID source'],
      ['pass', 'Entra ID token obtained'],
    ]);
    expect(ok[1]!.detail).toContain('valid 60 min more');
    const failed = await cloudCredentialChecks(azure, {
      env: {},
      timeoutMs: 1000,
      azureCredential: () => ({
        getToken: async () => {
          throw new Error('Please run az login to set up an account');
        },
      }),
    });
    expect(failed[1]).toMatchObject({ status: 'fail', fix: expect.stringContaining('az login') });
  });
});
