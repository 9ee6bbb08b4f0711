import { describe, expect, it } from 'vitest';
import { ProviderConnectionError, ProviderHttpError, ProviderReportedError, ProviderStreamError, ProviderTimeoutError } from '../../src/openai/errors.js';
import { describeProviderError } from '../../src/openai/user-errors.js';

const URL_ = 'https://llm.example.test/v1/chat/completions';
const context = { model: 'gpt-test-model', retries: 0 };
const http = (status: number, body = '', headers: Record<string, string> = {}) => new ProviderHttpError(status, new Headers(headers), body, URL_);

describe('describeProviderError: HTTP', () => {
  it.each([401, 403])('%i names OPENAI_API_KEY, the URL and the status', (status) => {
    const text = describeProviderError(http(status, '{"error":{"message":"Incorrect API key provided"}}'), context);
    expect(text).toContain('OPENAI_API_KEY');
    expect(text).toContain(URL_);
    expect(text).toContain(`HTTP ${status}`);
    expect(text).toContain('Incorrect API key provided');
  });

  it('404 names the model, the URL and the settings', () => {
    const text = describeProviderError(http(404, '{"error":{"message":"The model does not exist"}}'), context);
    expect(text).toContain('gpt-test-model');
    expect(text).toContain(URL_);
    expect(text).toContain('HTTP 404');
    expect(text).toContain('OPENAI_MODEL');
    expect(text).toContain('The model does not exist');
  });

  it('429 says rate limited and how many retries were made', () => {
    const text = describeProviderError(http(429), { ...context, retries: 2 });
    expect(text).toMatch(/rate limited/i);
    expect(text).toContain('HTTP 429');
    expect(text).toContain('after 2 retries');
    expect(describeProviderError(http(429), { ...context, retries: 1 })).toContain('after 1 retry');
    expect(describeProviderError(http(429), context)).not.toMatch(/after \d/);
  });

  it.each([500, 502, 503, 504])('%i is a server error with the URL and retries', (status) => {
    const text = describeProviderError(http(status, 'upstream connect error'), { ...context, retries: 3 });
    expect(text).toMatch(/server error/i);
    expect(text).toContain(`HTTP ${status}`);
    expect(text).toContain(URL_);
    expect(text).toContain('after 3 retries');
    expect(text).toContain('upstream connect error');
  });

  it.each([400, 409, 413, 422])('other statuses (%i) name the status, URL and provider message', (status) => {
    const text = describeProviderError(http(status, '{"error":{"message":"bad things"}}'), context);
    expect(text).toContain(`HTTP ${status}`);
    expect(text).toContain(URL_);
    expect(text).toContain('The provider said: bad things');
  });

  it.each([400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 503])('every HTTP message names its status (%i) and the URL', (status) => {
    const text = describeProviderError(http(status), { ...context, retries: 2 });
    expect(text).toContain(`HTTP ${status}`);
    expect(text).toContain(URL_);
    expect(text).not.toContain('undefined');
  });

  it('includes the OpenRouter raw upstream message', () => {
    const body = '{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"model is rate-limited upstream"}}}';
    expect(describeProviderError(http(429, body), context)).toContain('model is rate-limited upstream');
  });
});

describe('describeProviderError: connections, timeouts, streams', () => {
  it('connection refused mentions the URL and the fix', () => {
    const text = describeProviderError(new ProviderConnectionError(URL_, 'ECONNREFUSED'), { ...context, retries: 2 });
    expect(text).toContain(URL_);
    expect(text).toContain('ECONNREFUSED');
    expect(text).toContain('OPENAI_BASE_URL');
    expect(text).toContain('after 2 retries');
  });

  it('a refused connection on this machine names the URL the user set and the one tried, with no retries', () => {
    const tried = 'http://127.0.0.1:11434/api/chat';
    const error = new ProviderConnectionError(tried, 'ECONNREFUSED');
    expect(error.retryable).toBe(false);
    const text = describeProviderError(error, { ...context, baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(text).toBe(
      'Nothing is listening at http://127.0.0.1:11434/v1 (tried http://127.0.0.1:11434/api/chat): the connection was ' +
        'refused (ECONNREFUSED). Start the server, or set OPENAI_BASE_URL to where it listens.',
    );
    const own = describeProviderError(new ProviderConnectionError('http://localhost:8081/v1/chat/completions', 'ECONNREFUSED'), {
      ...context,
      baseUrl: 'http://localhost:8081/v1/',
    });
    expect(own).toContain('Nothing is listening at http://localhost:8081/v1/:');
    expect(own).not.toContain('tried');
  });

  it('a refused connection to another host stays retryable', () => {
    expect(new ProviderConnectionError(URL_, 'ECONNREFUSED').retryable).toBe(true);
    expect(new ProviderConnectionError('http://127.0.0.1:1/v1/chat/completions', 'ECONNRESET').retryable).toBe(true);
  });

  it('unknown connection failures still name the URL', () => {
    const text = describeProviderError(new ProviderConnectionError(URL_, undefined), context);
    expect(text).toContain(URL_);
    expect(text).toContain('OPENAI_BASE_URL');
  });

  it.each(['ENOTFOUND', 'EAI_AGAIN'])('%s says the host cannot be resolved', (code) => {
    const text = describeProviderError(new ProviderConnectionError(URL_, code), context);
    expect(text).toMatch(/resolve/i);
    expect(text).toContain(URL_);
    expect(text).toContain(code);
    expect(text).toContain('OPENAI_BASE_URL');
  });

  it.each(['CERT_HAS_EXPIRED', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER'])(
    'TLS code %s points at NODE_EXTRA_CA_CERTS',
    (code) => {
      const text = describeProviderError(new ProviderConnectionError(URL_, code), context);
      expect(text).toContain('NODE_EXTRA_CA_CERTS');
      expect(text).toContain(URL_);
      expect(text).toContain(code);
    },
  );

  it('timeout names OPENAI_TIMEOUT_MS and its value', () => {
    const text = describeProviderError(new ProviderTimeoutError(URL_, 90_000), { ...context, retries: 1 });
    expect(text).toContain('OPENAI_TIMEOUT_MS');
    expect(text).toContain('90000');
    expect(text).toContain('90 s');
    expect(text).toContain(URL_);
    expect(text).toContain('after 1 retry');
  });

  it('words a time limit as it was set: 1,500 ms is 1.5 s, never "2 s"', () => {
    const text = (ms: number) => describeProviderError(new ProviderTimeoutError(URL_, ms), context);
    expect(text(1500)).toContain('for 1.5 s');
    expect(text(1500)).not.toContain('2 s');
    expect(text(1234)).toContain('for 1.234 s');
    expect(text(600)).toContain('for 600 ms');
  });

  it('a provider-reported error includes its message and code', () => {
    const text = describeProviderError(new ProviderReportedError(URL_, 'Tool choice is required', 'tool_use_failed', 400), context);
    expect(text).toContain('Tool choice is required');
    expect(text).toContain('tool_use_failed');
  });

  it('a broken stream names the URL and the detail', () => {
    const text = describeProviderError(new ProviderStreamError(URL_, 'socket hang up'), context);
    expect(text).toContain(URL_);
    expect(text).toContain('socket hang up');
  });
});
