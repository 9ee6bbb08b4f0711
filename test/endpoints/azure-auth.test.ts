/**
 * Azure OpenAI with Microsoft Entra ID: a fake token credential injected at the boundary (the
 * hook takes a credential factory), the scope asked for, caching and refresh 5 minutes before
 * expiry on a fake clock, and failures with their fixes.
 */
import { describe, expect, it, vi } from 'vitest';
import { AZURE_COGNITIVE_SCOPE, azureCredentialHint, createAzureAuthorizer, type AzureTokenCredential } from '../../src/endpoints/azure-auth.js';
import { ProviderAuthError } from '../../src/openai/authorize.js';

const REQUEST = { method: 'POST', url: 'https://res.openai.azure.com/openai/v1/chat/completions', headers: {}, body: '{}' };

/** A credential whose tokens last `lifetimeMs` from the fake clock's time of issue. */
function fakeCredential(clock: () => number, lifetimeMs = 60 * 60_000) {
  let serial = 0;
  const getToken = vi.fn(async (_scopes: string | string[]) => ({ token: `token-${++serial}`, expiresOnTimestamp: clock() + lifetimeMs }));
  return { credential: { getToken } satisfies AzureTokenCredential, getToken };
}

describe('createAzureAuthorizer', () => {
  it('sends the token as Bearer for the Cognitive Services scope, made once', async () => {
    const clock = () => 0;
    const { credential, getToken } = fakeCredential(clock);
    const factory = vi.fn(() => credential);
    const authorize = createAzureAuthorizer({ credential: factory, now: clock });
    expect(await authorize(REQUEST)).toEqual({ authorization: 'Bearer token-1' });
    expect(await authorize(REQUEST)).toEqual({ authorization: 'Bearer token-1' });
    expect(getToken).toHaveBeenCalledTimes(1);
    expect(getToken).toHaveBeenCalledWith(AZURE_COGNITIVE_SCOPE);
    expect(factory).toHaveBeenCalledTimes(1);
  });

  it('refreshes the token 5 minutes before it expires', async () => {
    let now = 1_000_000;
    const { credential, getToken } = fakeCredential(() => now, 60 * 60_000);
    const authorize = createAzureAuthorizer({ credential: () => credential, now: () => now });
    await authorize(REQUEST);
    now += 54 * 60_000; // 6 minutes left
    expect(await authorize(REQUEST)).toEqual({ authorization: 'Bearer token-1' });
    now += 2 * 60_000; // 4 minutes left
    expect(await authorize(REQUEST)).toEqual({ authorization: 'Bearer token-2' });
    expect(getToken).toHaveBeenCalledTimes(2);
  });

  it('shares one token request between concurrent callers', async () => {
    const { credential, getToken } = fakeCredential(() => 0);
    const authorize = createAzureAuthorizer({ credential: () => credential, now: () => 0 });
    const all = await Promise.all([authorize(REQUEST), authorize(REQUEST), authorize(REQUEST)]);
    expect(new Set(all.map((h) => h['authorization']))).toEqual(new Set(['Bearer token-1']));
    expect(getToken).toHaveBeenCalledTimes(1);
  });

  it('fails with a fix, and tries again at the next request', async () => {
    let fail = true;
    const credential: AzureTokenCredential = {
      getToken: async () => {
        if (fail) throw new Error('Azure CLI could not be found. Please run az login.');
        return { token: 'late', expiresOnTimestamp: Date.now() + 3_600_000 };
      },
    };
    const authorize = createAzureAuthorizer({ credential: () => credential });
    const error = await authorize(REQUEST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect((error as ProviderAuthError).message).toContain('no Microsoft Entra ID token');
    expect((error as ProviderAuthError).fix).toContain('az login');
    fail = false;
    expect(await authorize(REQUEST)).toEqual({ authorization: 'Bearer late' });
  });

  it('treats a null token as a failure', async () => {
    const authorize = createAzureAuthorizer({ credential: () => ({ getToken: async () => null }) });
    await expect(authorize(REQUEST)).rejects.toBeInstanceOf(ProviderAuthError);
  });
});

describe('azureCredentialHint', () => {
  it('names the source DefaultAzureCredential will try first', () => {
    expect(azureCredentialHint({ AZURE_TENANT_ID: 't', AZURE_CLIENT_ID: 'c', AZURE_CLIENT_SECRET: 's' })).toMatch(/^environment service principal/);
    expect(azureCredentialHint({ AZURE_FEDERATED_TOKEN_FILE: '/f', AZURE_CLIENT_ID: 'c' })).toMatch(/^workload identity/);
    expect(azureCredentialHint({ IDENTITY_ENDPOINT: 'http://x' })).toMatch(/^managed identity/);
    expect(azureCredentialHint({})).toContain('az login');
  });
});
