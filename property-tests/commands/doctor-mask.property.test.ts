import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeHeaders, describeSecret, maskQuery } from '../../src/commands/mask.js';
import { scrubSecrets } from '../../src/shared/redact.js';

/** Keys as providers issue them: 8 to 80 characters of letters, digits, `-` and `_`. */
const keyArb = fc.stringMatching(/^[A-Za-z0-9_-]{8,80}$/);
/** Text around a key: words, spaces and punctuation. */
const textArb = fc.string({ unit: fc.constantFrom(...'ab XY.,:;"\'()[]{}<>=/\n-_*09'.split('')), maxLength: 40 });

describe('mask properties', () => {
  it('scrubSecrets never lets a key, or its first or last 4 characters next to others, through', () => {
    fc.assert(
      fc.property(keyArb, textArb, textArb, textArb, (key, before, between, after) => {
        const halfMasked = `${key.slice(0, 4)}${'*'.repeat(8)}${key.slice(-4)}`;
        const out = scrubSecrets(`${before}${key}${between}${halfMasked}${after}`, [key]);
        expect(out).not.toContain(key);
        expect(out).not.toContain(halfMasked);
        expect(out).not.toContain(`${key.slice(0, 4)}*`);
        expect(out).not.toContain(`*${key.slice(-4)}`);
      }),
    );
  });

  it('describing a secret shows only its length', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), (secret) => {
        expect(describeSecret(secret)).toMatch(/^set \(\d+ characters?\)$/);
        expect(describeHeaders({ 'x-any': secret })).toBe(`x-any: ${describeSecret(secret)}`);
      }),
    );
  });

  it('maskQuery never shows the value of a parameter named key, token or secret', () => {
    fc.assert(
      fc.property(fc.constantFrom('key', 'api-key', 'token', 'client_secret', 'X-Auth'), fc.stringMatching(/^[A-Za-z0-9%._~-]{4,40}$/), (name, value) => {
        const masked = maskQuery(`api-version=1&${name}=${value}`);
        expect(masked).toBe(`api-version=1&${name}=<${describeSecret(value)}>`);
      }),
    );
  });
});
