/**
 * Where the cloud credential paths plug in: which endpoints take them, and `createEndpoint`'s chat
 * client and model catalog sending signed (Bedrock) or token-bearing (Azure) requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudAuthKind } from '../../src/endpoints/cloud-auth.js';
import { createEndpoint } from '../../src/endpoints/endpoint.js';
import { resolveEndpoint } from '../../src/config/providers.js';
import { createLogger } from '../../src/shared/log.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { endpointSettings } from '../helpers/endpoint-settings.js';
import { startSigV4Server, TEST_AWS, type SigV4Server } from '../helpers/sigv4-server.js';

const logger = createLogger({ level: 'error', write: () => {} });
// Marked finished: these tests read the stream raw, without a chat stream accumulator.
const progress = { committed: false, finished: true };

describe('cloudAuthKind', () => {
  const kind = (baseUrl: string, apiKey?: string, headers: Record<string, string> = {}, provider?: 'bedrock' | 'azure') =>
    cloudAuthKind(resolveEndpoint({ baseUrl, apiKey, headers, provider }));
  it('uses SigV4 for Bedrock and Entra ID for Azure only when no key is set', () => {
    expect(kind('https://bedrock-runtime.us-east-1.amazonaws.com/openai/v1')).toBe('aws-sigv4');
    expect(kind('https://bedrock-mantle.us-east-1.api.aws/v1')).toBe('aws-sigv4');
    expect(kind('https://bedrock-runtime.us-east-1.amazonaws.com/openai/v1', 'bedrock-api-key')).toBeUndefined();
    expect(kind('https://bedrock-runtime.us-east-1.amazonaws.com/openai/v1', undefined, { Authorization: 'Bearer x' })).toBeUndefined();
    expect(kind('https://res.openai.azure.com/openai/v1')).toBe('azure-entra-id');
    expect(kind('https://res.openai.azure.com/openai/v1', 'key')).toBeUndefined();
    expect(kind('https://res.openai.azure.com/openai/v1', undefined, { 'Api-Key': 'k' })).toBeUndefined();
    expect(kind('http://127.0.0.1:9/v1', undefined, {}, 'bedrock')).toBe('aws-sigv4');
    expect(kind('https://api.openai.com/v1')).toBeUndefined();
  });

  it('gives the mantle endpoint its model list', () => {
    expect(resolveEndpoint({ baseUrl: 'https://bedrock-mantle.us-east-1.api.aws/v1' }).modelsUrl).toBe('https://bedrock-mantle.us-east-1.api.aws/v1/models');
    expect(resolveEndpoint({ baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com/openai/v1' }).modelsUrl).toBeNull();
  });
});

describe('createEndpoint with cloud credentials', () => {
  let aws: SigV4Server;
  let azure: FakeOpenAI;
  beforeAll(async () => {
    aws = await startSigV4Server();
    azure = await startFakeOpenAI();
  });
  afterAll(async () => {
    await aws.close();
    await azure.close();
  });

  it('Bedrock without a key: the chat request is signed and verifies', async () => {
    const settings = endpointSettings('bedrock', `${aws.origin}/openai/v1`, { provider: 'bedrock', model: 'openai.gpt-oss-120b' });
    const endpoint = createEndpoint(settings, { logger, cloudAuth: { env: { AWS_REGION: 'eu-west-1' }, awsCredentials: async () => TEST_AWS } });
    let text = '';
    for await (const batch of endpoint.client.stream(
      { model: 'openai.gpt-oss-120b', messages: [{ role: 'user', content: 'hi' }] },
      new AbortController().signal,
      progress,
    )) {
      text += JSON.stringify(batch);
    }
    expect(text).toContain('signed ok');
    expect(aws.records.at(-1)).toMatchObject({
      method: 'POST',
      url: '/openai/v1/chat/completions',
      verified: true,
      scope: { region: 'eu-west-1', service: 'bedrock' },
    });
  });

  it('Bedrock without credentials: the prompt fails with the fix, nothing sent', async () => {
    const before = aws.records.length;
    const settings = endpointSettings('bedrock', `${aws.origin}/openai/v1`, { provider: 'bedrock' });
    const endpoint = createEndpoint(settings, {
      logger,
      cloudAuth: {
        env: { AWS_REGION: 'eu-west-1' },
        awsCredentials: async () => {
          throw new Error('Could not load credentials from any providers');
        },
      },
    });
    const run = async () => {
      for await (const _ of endpoint.client.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal, progress));
    };
    await expect(run()).rejects.toMatchObject({ name: 'ProviderAuthError', fix: expect.stringContaining('AWS_ACCESS_KEY_ID') });
    expect(aws.records.length).toBe(before);
  });

  it('Azure without a key: chat and GET /models carry the Entra ID token; with a key, no token is asked for', async () => {
    const settings = endpointSettings('azure', `${azure.baseUrl.replace(/\/v1$/, '')}/openai/v1`, { provider: 'azure' });
    let asked = 0;
    const credential = { getToken: async () => ({ token: `entra-${++asked}`, expiresOnTimestamp: Date.now() + 3_600_000 }) };
    const endpoint = createEndpoint(settings, { logger, cloudAuth: { azureCredential: () => credential } });
    await endpoint.catalog.list();
    for await (const _ of endpoint.client.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal, progress));
    expect(azure.requests.at(-1)?.headers['authorization']).toBe('Bearer entra-1');
    expect(azure.modelRequests).toBe(1);
    expect(asked).toBe(1);
    const keyed = createEndpoint({ ...settings, apiKey: 'azure-key' }, { logger, cloudAuth: { azureCredential: () => credential } });
    for await (const _ of keyed.client.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal, progress));
    expect(azure.requests.at(-1)?.headers['api-key']).toBe('azure-key');
    expect(azure.requests.at(-1)?.headers['authorization']).toBeUndefined();
    expect(asked).toBe(1);
  });
});
