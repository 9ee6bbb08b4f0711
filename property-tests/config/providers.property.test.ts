import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectProvider, parseProviderId, PROVIDER_IDS, resolveEndpoint } from '../../src/config/providers.js';

const segment = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);
const host = fc.oneof(
  fc.constantFrom(
    'api.openai.com',
    'res.openai.azure.com',
    'bedrock-runtime.us-east-1.amazonaws.com',
    'openrouter.ai',
    '127.0.0.1:11434',
    'localhost:8000',
    'example.com',
  ),
  fc.tuple(segment, segment).map(([a, b]) => `${a}.${b}.test`),
);
/** Base URLs as people type them: any path, trailing slashes, /chat/completions once or twice, a query. */
const baseUrl = fc
  .record({
    scheme: fc.constantFrom('http', 'https'),
    host,
    path: fc.array(segment, { maxLength: 4 }),
    chat: fc.nat({ max: 2 }),
    slashes: fc.nat({ max: 3 }),
    query: fc.option(
      fc.tuple(segment, segment).map(([k, v]) => `${k}=${v}`),
      { nil: undefined },
    ),
  })
  .map(({ scheme, host, path, chat, slashes, query }) => {
    const tail = '/chat/completions'.repeat(chat) + '/'.repeat(slashes);
    return `${scheme}://${host}${path.map((p) => `/${p}`).join('')}${tail}${query ? `?${query}` : ''}`;
  });

describe('providers properties', () => {
  it('the chat URL ends in exactly one /chat/completions, before any query, for any base URL and provider', () => {
    fc.assert(
      fc.property(baseUrl, fc.option(fc.constantFrom(...PROVIDER_IDS), { nil: undefined }), fc.option(segment, { nil: undefined }), (url, provider, key) => {
        const resolved = resolveEndpoint({ baseUrl: url, provider, apiKey: key });
        const [path = ''] = resolved.chatUrl.split('?');
        expect(path.endsWith('/chat/completions')).toBe(true);
        expect(path.match(/\/chat\/completions/g)).toHaveLength(1);
        expect(path.slice(path.indexOf('://') + 3)).not.toContain('//');
        if (resolved.modelsUrl) expect(resolved.modelsUrl).not.toContain('/chat/completions');
        // The key travels exactly once: as Bearer or as the api-key header.
        if (key) expect(Number(resolved.bearerKey === key) + Number(resolved.headers['api-key'] === key)).toBe(1);
      }),
    );
  });

  it('detectProvider and parseProviderId never throw, and parseProviderId returns only known ids', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(PROVIDER_IDS).toContain(detectProvider(text));
        const id = parseProviderId(text);
        if (id !== undefined) expect(PROVIDER_IDS).toContain(id);
      }),
    );
  });
});
