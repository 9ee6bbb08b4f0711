import { describe, expect, it } from 'vitest';
import { describeHeaders, describeSecret, maskQuery, maskUrl } from '../../src/commands/mask.js';
import { scrubSecrets } from '../../src/shared/redact.js';
import { secretsOf } from '../../src/config/config.js';

describe('describeSecret', () => {
  it.each([
    [undefined, 'not set'],
    ['', 'not set'],
    ['k', 'set (1 character)'],
    ['sk-0123456789', 'set (13 characters)'],
  ])('%j → %s', (value, expected) => {
    expect(describeSecret(value)).toBe(expected);
  });
});

describe('describeHeaders', () => {
  it('masks every value, whatever the name', () => {
    expect(describeHeaders({ 'api-key': 'abcdef', 'X-Title': 'my app' })).toBe('api-key: set (6 characters), X-Title: set (6 characters)');
    expect(describeHeaders({})).toBe('none');
  });
});

describe('maskQuery / maskUrl', () => {
  it('masks every parameter value but a public api-version', () => {
    expect(maskQuery('api-version=2024-10-21&key=AIzaSECRET&sig=x%2By&Token=t0k')).toBe(
      'api-version=2024-10-21&key=<set (10 characters)>&sig=<set (5 characters)>&Token=<set (3 characters)>',
    );
    expect(maskQuery(undefined)).toBe('');
    expect(maskUrl('http://h/v1/models?api-key=abc&x=1&api-version=2')).toBe(
      'http://h/v1/models?api-key=<set (3 characters)>&x=<set (1 character)>&api-version=2',
    );
    expect(maskUrl('http://h/v1/models')).toBe('http://h/v1/models');
  });
});

describe('scrubSecrets', () => {
  const key = 'sk-proj-ABCDEFGHIJKLMNOP1234';
  it('removes a whole key, a half-masked echo of it, and pieces of its ends', () => {
    const text = `Incorrect API key provided: sk-proj-****************1234. Key ${key} is wrong; try "sk-proj-ABCD…".`;
    const out = scrubSecrets(text, [key]);
    expect(out).not.toContain(key);
    expect(out).not.toContain('1234');
    expect(out).not.toContain('sk-proj-ABCD');
    expect(out).toContain('Incorrect API key provided:');
  });

  it('leaves ordinary text alone and ignores short secrets', () => {
    expect(scrubSecrets('The model gpt-4o does not exist', [key, 'ab'])).toBe('The model gpt-4o does not exist');
  });
});

describe('secretsOf, for any endpoint settings', () => {
  it('collects the key, secret header values (and their bearer token) and secret query values', () => {
    const secrets = secretsOf({ apiKey: 'k-1', headers: { Authorization: 'Bearer tok-2', 'X-Title': 'public' }, query: 'api-version=1&key=a%2Bb' });
    expect(secrets).toEqual(expect.arrayContaining(['k-1', 'Bearer tok-2', 'tok-2', 'a%2Bb', 'a+b']));
    expect(secrets).not.toContain('public');
    expect(secrets).not.toContain('1');
  });
});
