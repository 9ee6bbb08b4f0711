/**
 * Issue 11 item 11: for any configured secret (random strings, with regex metacharacters, or a
 * piece of the endpoint URL) and any provider error body that embeds it, neither the words shown
 * to the user nor the log lines contain it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { secretsOf } from '../../src/config/config.js';
import { ProviderHttpError, ProviderReportedError } from '../../src/openai/errors.js';
import { describeProviderError } from '../../src/openai/user-errors.js';
import { createLogger } from '../../src/shared/log.js';

const URL_BASE = 'https://gateway.example.com/v1/chat/completions';
/** Secrets of at least 4 characters (shorter ones are not redacted, by design), regex metacharacters likely. */
const secretArb = fc.oneof(
  fc.string({ minLength: 4, maxLength: 40 }).filter((s) => s.trim().length === s.length && s.length >= 4),
  fc.string({ unit: fc.constantFrom(...'.*+?^${}()|[]\\/-=&%'.split('')), minLength: 4, maxLength: 20 }),
  fc.string({ unit: fc.constantFrom(...'ab.*+?^$()[]\\'.split('')), minLength: 4, maxLength: 20 }),
  fc
    .integer({ min: 0, max: URL_BASE.length - 4 })
    .chain((start) => fc.integer({ min: start + 4, max: URL_BASE.length }).map((end) => URL_BASE.slice(start, end))),
);
const where = fc.constantFrom('key', 'header', 'gateway', 'query');
const fillerArb = fc.string({ maxLength: 600 });

describe('no output contains a configured secret', () => {
  it('in the words for an HTTP error, an in-stream error, and the log lines', () => {
    fc.assert(
      fc.property(secretArb, where, fillerArb, fillerArb, fc.boolean(), (secret, place, before, after, json) => {
        const settings: { apiKey: string; headers: Record<string, string>; query: string } = {
          apiKey: place === 'key' ? secret : 'sk-unrelated-key',
          headers: place === 'header' ? { Authorization: `Bearer ${secret}` } : place === 'gateway' ? { 'X-Gateway': secret } : {},
          query: place === 'query' ? `api-version=1&k=${encodeURIComponent(secret)}` : 'api-version=1',
        };
        const secrets = secretsOf(settings);
        const url = `${URL_BASE}?${settings.query}`;
        const echoed = `${before}${secret}${after}`;
        const body = json ? JSON.stringify({ error: { message: echoed } }) : echoed;
        const lines: string[] = [];
        const logger = createLogger({ level: 'debug', secrets, write: (line) => void lines.push(line) });
        for (const error of [new ProviderHttpError(401, new Headers(), body, url), new ProviderReportedError(url, echoed)]) {
          const words = describeProviderError(error, { model: 'm', retries: 0, secrets });
          expect(words).not.toContain(secret);
          logger.warn('turn failed', { error: error.message, url });
        }
        for (const line of lines) expect(line).not.toContain(secret);
      }),
      { numRuns: 500 },
    );
  });
});
