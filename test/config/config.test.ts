import { describe, expect, it } from 'vitest';
import { secretsOf } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load-config.js';

const KEY = 'sk-DISTINCTIVE-test-key-9f8e7d';

describe('secretsOf', () => {
  it('lists the key and secret-looking header and query values, not the harmless ones', () => {
    const config = loadConfig({
      OPENAI_API_KEY: KEY,
      OPENAI_HEADERS:
        '{"api-key":"azure-secret","Authorization":"Basic dXNlcjpwYXNz","X-Auth-Token":"tok-1234","HTTP-Referer":"https://example.com","X-Title":"openai-acp"}',
      OPENAI_QUERY: 'api-version=2024-10-21&code=fn-secret',
    });
    const secrets = secretsOf(config);
    expect(secrets).toEqual(expect.arrayContaining([KEY, 'azure-secret', 'Basic dXNlcjpwYXNz', 'dXNlcjpwYXNz', 'tok-1234', 'fn-secret']));
    expect(secrets).not.toContain('https://example.com');
    expect(secrets).not.toContain('openai-acp');
    expect(secrets).not.toContain('2024-10-21');
  });

  it('is empty without secrets', () => {
    expect(secretsOf(loadConfig({}))).toEqual([]);
  });
});
