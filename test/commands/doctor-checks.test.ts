import { describe, expect, it } from 'vitest';
import { configCheck, endpointChecks } from '../../src/commands/doctor-checks.js';
import type { EndpointFacts } from '../../src/commands/doctor-facts.js';
import { renderCheck } from '../../src/commands/doctor-lines.js';
import type { CompletionProbe } from '../../src/commands/probes.js';
import type { ConfigError } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ProviderConnectionError, ProviderHttpError, ProviderTimeoutError } from '../../src/openai/errors.js';

const URL_BASE = 'http://127.0.0.1:1234/v1';
const ok: CompletionProbe = { ok: true, finishReason: 'length', usage: { prompt_tokens: 5, completion_tokens: 1 }, text: 'O', sent: {}, attempts: 1 };
const httpFail = (status: number, body = ''): CompletionProbe => ({
  ok: false,
  error: new ProviderHttpError(status, new Headers(), body, `${URL_BASE}/chat/completions`),
  status,
});

function facts(overrides: Partial<EndpointFacts>): EndpointFacts {
  return {
    model: 'm',
    keySetting: 'OPENAI_API_KEY',
    hasKey: true,
    baseUrlSetting: 'OPENAI_BASE_URL',
    baseUrl: URL_BASE,
    modelSetting: 'OPENAI_MODEL',
    models: { kind: 'listed', url: `${URL_BASE}/models`, status: 200, models: [{ id: 'm' }] },
    completion: ok,
    reasoning: { kind: 'not-applicable', why: 'no effort here' },
    secrets: [],
    ...overrides,
  };
}

const byTitle = (lines: ReturnType<typeof endpointChecks>['lines'], title: string) => lines.find((l) => l.title === title)!;

describe('endpointChecks', () => {
  it('a healthy endpoint works; a missing reasoning effort is neutral', () => {
    const { lines, works } = endpointChecks(facts({}));
    expect(works).toBe(true);
    expect(lines.map((l) => l.status)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass', 'skip']);
    expect(renderCheck(byTitle(lines, 'reasoning effort accepted'))).toBe('  – reasoning effort accepted: no effort here');
  });

  it('judges the endpoint by the completion when /models timed out', () => {
    const { lines, works } = endpointChecks(facts({ models: { kind: 'timeout', url: `${URL_BASE}/models`, timeoutMs: 500 } }));
    expect(works).toBe(true);
    expect(byTitle(lines, 'endpoint answers')).toMatchObject({ status: 'pass', detail: `answered ${URL_BASE}/chat/completions` });
    expect(byTitle(lines, 'model list (GET /models)')).toMatchObject({ status: 'warn', detail: 'no answer within 500 ms' });
  });

  it('a provider without /models gets a neutral model-list line', () => {
    const { lines, works } = endpointChecks(facts({ models: { kind: 'not-sent' } }));
    expect(works).toBe(true);
    expect(byTitle(lines, 'model list (GET /models)').status).toBe('skip');
  });

  it('an unknown model (404) fails the completion with a fix naming the model setting', () => {
    const { lines, works } = endpointChecks(
      facts({ completion: httpFail(404, '{"error":{"message":"model not found"}}'), reasoning: undefined, modelSetting: '--model' }),
    );
    expect(works).toBe(false);
    expect(byTitle(lines, 'authentication accepted').status).toBe('pass');
    const completion = byTitle(lines, 'one-token streamed completion');
    expect(completion.status).toBe('fail');
    expect(completion.detail).toContain('model not found');
    expect(completion.fix).toMatch(/check --model \(now m\)/);
  });

  it('a 403 from the completion is an authentication failure even when /models answered', () => {
    const { lines, works } = endpointChecks(facts({ completion: httpFail(403), reasoning: undefined }));
    expect(works).toBe(false);
    expect(byTitle(lines, 'authentication accepted')).toMatchObject({ status: 'fail' });
    expect(byTitle(lines, 'authentication accepted').detail).toContain('HTTP 403');
  });

  it('a silent completion is a failure with a timeout fix', () => {
    const completion: CompletionProbe = { ok: false, error: new ProviderTimeoutError(`${URL_BASE}/chat/completions`, 700), status: undefined };
    const { lines, works } = endpointChecks(facts({ completion, reasoning: undefined }));
    expect(works).toBe(false);
    expect(byTitle(lines, 'one-token streamed completion').fix).toMatch(/raise --timeout-ms/);
  });

  it('nothing answering: the endpoint fails, dependent checks are neutral, and TLS and DNS get their own fixes', () => {
    const unreachable = (code: string) =>
      facts({ models: { kind: 'unreachable', url: `${URL_BASE}/models`, code, message: 'x' }, completion: undefined, reasoning: undefined });
    const refused = endpointChecks(unreachable('ECONNREFUSED'));
    expect(refused.works).toBe(false);
    expect(refused.lines.map((l) => l.status)).toEqual(['fail', 'skip', 'skip', 'fail', 'skip', 'skip']);
    expect(endpointChecks(unreachable('ENOTFOUND')).lines[0]!.fix).toMatch(/host name in OPENAI_BASE_URL/);
    expect(endpointChecks(unreachable('SELF_SIGNED_CERT_IN_CHAIN')).lines[0]!.fix).toMatch(/NODE_EXTRA_CA_CERTS/);
  });

  it('a connection failure during the completion names the base URL', () => {
    const completion: CompletionProbe = { ok: false, error: new ProviderConnectionError(`${URL_BASE}/chat/completions`, 'ECONNRESET'), status: undefined };
    const { lines } = endpointChecks(facts({ models: { kind: 'timeout', url: `${URL_BASE}/models`, timeoutMs: 10 }, completion, reasoning: undefined }));
    expect(byTitle(lines, 'endpoint answers').status).toBe('fail');
  });

  it('a server answering 404 to /models and to the completion (the API is not at that path): ✗ endpoint answers, never ✓ with a 404', () => {
    const notFound = { kind: 'http-error' as const, url: `${URL_BASE}/models`, status: 404, providerMessage: undefined };
    const { lines, works } = endpointChecks(facts({ models: notFound, completion: httpFail(404, '404 page not found'), reasoning: undefined }));
    expect(works).toBe(false);
    const answers = byTitle(lines, 'endpoint answers');
    expect(answers.status).toBe('fail');
    expect(answers.detail).toBe(`HTTP 404 from ${URL_BASE}/models and ${URL_BASE}/chat/completions: a server answers, but not the API at this path`);
    expect(answers.fix).toBe(`check OPENAI_BASE_URL (now ${URL_BASE}): it is the address before /models and /chat/completions, often ending in /v1`);
    const withV1 = endpointChecks(
      facts({ models: notFound, completion: httpFail(404), reasoning: undefined, baseUrl: 'http://h:1', missingV1: 'http://h:1/v1' }),
    );
    expect(byTitle(withV1.lines, 'endpoint answers').fix).toBe('add /v1 to OPENAI_BASE_URL: set it to http://h:1/v1 (now http://h:1), whose /models answers');
    expect(byTitle(lines, 'authentication accepted')).toMatchObject({ status: 'skip', detail: 'not checked: the API is not at this address' });
    for (const line of lines) expect(line.status).not.toBe('pass');
  });

  it('a 404 from /models beside a working completion: ✓ by the completion, the 404 on the model-list line only', () => {
    const { lines, works } = endpointChecks(facts({ models: { kind: 'http-error', url: `${URL_BASE}/models`, status: 404, providerMessage: undefined } }));
    expect(works).toBe(true);
    expect(byTitle(lines, 'endpoint answers')).toMatchObject({ status: 'pass', detail: `answered ${URL_BASE}/chat/completions` });
    expect(byTitle(lines, 'model list (GET /models)')).toMatchObject({ status: 'warn', detail: `HTTP 404 from ${URL_BASE}/models` });
  });

  it('a 401 from /models still shows that the API is there', () => {
    const { lines } = endpointChecks(
      facts({
        models: { kind: 'http-error', url: `${URL_BASE}/models`, status: 401, providerMessage: undefined },
        completion: httpFail(401),
        reasoning: undefined,
      }),
    );
    expect(byTitle(lines, 'endpoint answers')).toMatchObject({ status: 'pass', detail: `HTTP 401 from ${URL_BASE}/models` });
    expect(byTitle(lines, 'authentication accepted').status).toBe('fail');
  });

  it('scrubs the key out of provider messages', () => {
    const key = 'sk-live-0123456789abcdef';
    const { lines } = endpointChecks(
      facts({ completion: httpFail(401, `{"error":{"message":"Incorrect API key provided: sk-live-****cdef"}}`), reasoning: undefined, secrets: [key] }),
    );
    for (const line of lines) expect(renderCheck(line)).not.toMatch(/cdef|sk-live/);
  });
});

describe('configCheck', () => {
  it('passes a valid configuration and lists every problem of an invalid one', () => {
    expect(configCheck(undefined).status).toBe('pass');
    let error: ConfigError | undefined;
    try {
      loadConfig({ OPENAI_TEMPERATURE: 'hot', OPENAI_MAX_TOKENS: '-1' });
    } catch (caught) {
      error = caught as ConfigError;
    }
    const check = configCheck(error);
    expect(check.status).toBe('fail');
    expect(check.detail).toContain('OPENAI_TEMPERATURE');
    expect(check.detail).toContain('OPENAI_MAX_TOKENS');
  });
});
