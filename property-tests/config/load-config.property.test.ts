import fc from 'fast-check';
import { webUrl } from '../../test/helpers/web-url.js';
import { binaryUnit } from '../../test/helpers/binary-unit.js';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/shared/log.js';

const VARIABLES = [
  'OPENAI_BASE_URL',
  'OPENAI_API_KEY',
  'OPENAI_MODEL',
  'OPENAI_SYSTEM_PROMPT',
  'OPENAI_MAX_TOKENS',
  'OPENAI_TEMPERATURE',
  'OPENAI_HEADERS',
  'OPENAI_QUERY',
  'OPENAI_MAX_RETRIES',
  'OPENAI_TIMEOUT_MS',
  'OPENAI_CONTEXT_WINDOW',
  'OPENAI_ACP_LOG',
] as const;

/** The ConfigError of `env`, or undefined when it loads. */
function errorOf(env: Record<string, string | undefined>): ConfigError | undefined {
  try {
    loadConfig(env);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
}

const padded = (value: string) => fc.tuple(fc.constantFrom('', ' ', '\t'), fc.constantFrom('', ' ', '\n')).map(([a, b]) => `${a}${value}${b}`);
const headerName = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/);
/** Printable ASCII without leading/trailing blanks, as HTTP sends it. */
const headerValue = fc.string({ maxLength: 40 }).map((s) => s.trim());
const httpUrl = webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true });

describe('loadConfig accepts every valid value', () => {
  it('integers in range', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 1, max: 2_147_483_647 }),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        (maxTokens, maxRetries, timeoutMs, contextWindow) => {
          const config = loadConfig({
            OPENAI_MAX_TOKENS: String(maxTokens),
            OPENAI_MAX_RETRIES: String(maxRetries),
            OPENAI_TIMEOUT_MS: ` ${timeoutMs} `,
            OPENAI_CONTEXT_WINDOW: String(contextWindow),
          });
          expect(config).toMatchObject({ maxTokens, maxRetries, timeoutMs, contextWindow });
        },
      ),
    );
  });

  it('temperatures from 0 to 2', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 2, noNaN: true }), (temperature) => {
        expect(loadConfig({ OPENAI_TEMPERATURE: String(temperature) }).temperature).toBe(temperature + 0);
      }),
    );
  });

  it('header objects of strings, numbers and booleans', () => {
    const value = fc.oneof(headerValue, fc.integer(), fc.boolean());
    fc.assert(
      fc.property(fc.dictionary(headerName, value, { maxKeys: 6 }), (headers) => {
        const expected = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
        expect(loadConfig({ OPENAI_HEADERS: JSON.stringify(headers) }).headers).toEqual(expected);
      }),
    );
  });

  it('http(s) URLs, normalized without a doubled /chat/completions', () => {
    fc.assert(
      fc.property(httpUrl, fc.constantFrom('', '/', '//', '/chat/completions', '/chat/completions/'), (url, suffix) => {
        const [beforeQuery = '', query] = url.split('?');
        const config = loadConfig({ OPENAI_BASE_URL: `${beforeQuery}${suffix}${query === undefined ? '' : `?${query}`}` });
        expect(config.baseUrl).not.toMatch(/\/$|\/chat\/completions$/);
        expect(config.baseUrl).not.toContain('?');
        expect(config.chatCompletionsUrl.startsWith(`${config.baseUrl}/chat/completions`)).toBe(true);
        expect(config.chatCompletionsUrl).not.toMatch(/\/chat\/completions\/chat\/completions/);
        expect(new URL(config.chatCompletionsUrl).search.slice(1)).toBe(config.query ?? '');
      }),
    );
  });

  it('log levels in any case', () => {
    fc.assert(
      fc.property(fc.constantFrom('error', 'warn', 'info', 'debug'), fc.boolean(), (level, upper) => {
        expect(loadConfig({ OPENAI_ACP_LOG: upper ? level.toUpperCase() : level }).logLevel).toBe(level);
      }),
    );
  });
});

describe('loadConfig rejects invalid values, naming the variable', () => {
  const cases: [string, fc.Arbitrary<string>][] = [
    ['OPENAI_MAX_TOKENS', fc.integer({ min: -1_000_000, max: 0 }).map(String)],
    ['OPENAI_CONTEXT_WINDOW', fc.oneof(fc.integer({ max: 0 }).map(String), fc.stringMatching(/^[a-z]+$/))],
    [
      'OPENAI_MAX_RETRIES',
      fc.oneof(
        fc.integer({ max: -1 }).map(String),
        fc
          .double({ min: 0.01, max: 1e6, noNaN: true })
          .filter((n) => !Number.isInteger(n))
          .map(String),
      ),
    ],
    ['OPENAI_TIMEOUT_MS', fc.oneof(fc.bigInt({ min: 2_147_483_648n, max: 10n ** 30n }).map(String), fc.constant('0'))],
    [
      'OPENAI_TEMPERATURE',
      fc.oneof(fc.double({ min: 2.000001, noNaN: true }).map(String), fc.double({ max: -0.000001, noNaN: true }).map(String), fc.stringMatching(/^[a-z]+$/)),
    ],
    [
      'OPENAI_HEADERS',
      fc.oneof(
        fc.constant('not json'),
        fc.array(fc.string()).map((a) => JSON.stringify(a)),
        fc.string({ minLength: 1 }).map((s) => JSON.stringify({ k: { nested: s } })),
      ),
    ],
    ['OPENAI_BASE_URL', fc.oneof(fc.constantFrom('ftp://h/v1', 'file:///x', 'mailto:a@b'), fc.stringMatching(/^[a-z]{1,10}$/))],
    ['OPENAI_ACP_LOG', fc.stringMatching(/^[a-z]{1,10}$/).filter((s) => !['error', 'warn', 'info', 'debug'].includes(s))],
  ];
  it.each(cases)('%s', (variable, invalid) => {
    fc.assert(
      fc.property(invalid.chain(padded), (value) => {
        const error = errorOf({ [variable]: value });
        expect(error).toBeDefined();
        expect(error!.problems.map((p) => p.variable)).toEqual([variable]);
        expect(error!.message).toContain(variable);
      }),
    );
  });
});

describe('loadConfig on arbitrary input', () => {
  it('throws only ConfigError, and never echoes the API key or header values', () => {
    const value = fc.oneof(fc.string(), fc.string({ unit: binaryUnit }), fc.constantFrom('', ' ', '{}', '[]', 'http://h/v1', '1', '-1', '1e400'));
    const env = fc.record(Object.fromEntries(VARIABLES.map((name) => [name, value])) as Record<(typeof VARIABLES)[number], fc.Arbitrary<string>>, {
      requiredKeys: [],
    });
    fc.assert(
      fc.property(env, fc.stringMatching(/^[A-Za-z0-9]{6,12}$/), (vars, tag) => {
        const secret = `sk-SECRET-${tag}`;
        const withSecrets = {
          ...vars,
          OPENAI_API_KEY: `${secret}${vars.OPENAI_API_KEY ?? ''}`,
          OPENAI_HEADERS: `{"api-key": "${secret}"${vars.OPENAI_HEADERS ?? ''}`,
        };
        for (const candidate of [vars, withSecrets]) {
          const error = errorOf(candidate);
          if (error) {
            expect(error.message).not.toContain('sk-SECRET-');
            expect(error.fallback.chatCompletionsUrl).toMatch(/^https?:\/\//);
          }
        }
      }),
    );
  });
});

describe('the logger', () => {
  it('never emits a secret embedded in messages or fields', () => {
    const secret = fc.oneof(
      fc.string({ minLength: 4 }),
      fc.string({ minLength: 4, unit: binaryUnit }),
      fc.string({ minLength: 4, unit: fc.constantFrom('a', 'b', '*', '"', '\\', '\n') }),
    );
    fc.assert(
      fc.property(fc.array(secret, { minLength: 1, maxLength: 3 }), fc.string(), fc.string(), (secrets, before, after) => {
        const lines: string[] = [];
        const logger = createLogger({ level: 'debug', secrets, write: (line) => lines.push(line) });
        for (const s of secrets) {
          logger.info(`${before}${s}${after}`, { [s]: s, nested: { list: [before, s, after] }, joined: secrets.join('') });
          logger.debug(s.repeat(3));
        }
        expect(lines.every((line) => line.indexOf('\n') === line.length - 1)).toBe(true);
        for (const line of lines.map((l) => l.slice(0, -1))) {
          for (const s of secrets) {
            expect(line).not.toContain(s);
            expect(line).not.toContain(JSON.stringify(s).slice(1, -1));
          }
        }
      }),
    );
  });
});
