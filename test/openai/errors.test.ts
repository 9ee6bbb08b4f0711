import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ProviderConnectionError,
  ProviderError,
  ProviderHttpError,
  ProviderReportedError,
  ProviderStreamError,
  ProviderTimeoutError,
  extractProviderMessage,
} from '../../src/openai/errors.js';

const dir = fileURLToPath(new URL('../fixtures/providers/http-errors/', import.meta.url));
const body = (name: string) => readFileSync(`${dir}${name}.body`, 'utf8');
const URL_ = 'http://127.0.0.1:1/v1/chat/completions';

describe('ProviderHttpError', () => {
  it.each([408, 409, 429, 500, 502, 503, 504, 529, 599])('is retryable for status %i', (status) => {
    expect(new ProviderHttpError(status, new Headers(), '', URL_).retryable).toBe(true);
  });
  it.each([400, 401, 403, 404, 405, 413, 422])('is final for status %i', (status) => {
    expect(new ProviderHttpError(status, new Headers(), '', URL_).retryable).toBe(false);
  });

  it('carries status, headers, url, body and the provider message', () => {
    const headers = new Headers({ 'retry-after': '3' });
    const error = new ProviderHttpError(404, headers, body('openai__404_model_not_found'), URL_);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toBeInstanceOf(Error);
    expect(error.kind).toBe('http');
    expect(error.name).toBe('ProviderHttpError');
    expect(error.status).toBe(404);
    expect(error.headers.get('retry-after')).toBe('3');
    expect(error.url).toBe(URL_);
    expect(error.providerMessage).toBe('The model `gpt-5.2-proo` does not exist or you do not have access to it.');
    expect(error.message).toBe(`HTTP 404: ${error.providerMessage}`);
  });

  it('truncates the stored body to 4 KiB and has a bare message without provider text', () => {
    const error = new ProviderHttpError(500, new Headers(), '', URL_);
    expect(error.message).toBe('HTTP 500');
    expect(error.providerMessage).toBeUndefined();
    const big = new ProviderHttpError(500, new Headers(), JSON.stringify({ error: { message: 'x'.repeat(10_000) } }), URL_);
    expect(big.body.length).toBe(4096);
  });
});

describe('other provider errors', () => {
  it('connection errors are retryable and keep their code and cause', () => {
    const cause = Object.assign(new Error('connect'), { code: 'ECONNREFUSED' });
    const error = new ProviderConnectionError(URL_, 'ECONNREFUSED', cause);
    expect(error.kind).toBe('connection');
    // Refused on this machine: nothing listens there, a retry cannot help.
    expect(error.retryable).toBe(!/^https?:\/\/(localhost|127\.)/.test(URL_));
    expect(new ProviderConnectionError('https://api.example.test/v1/chat/completions', 'ECONNREFUSED').retryable).toBe(true);
    expect(new ProviderConnectionError('http://127.0.0.1:8080/v1/chat/completions', 'ECONNREFUSED').retryable).toBe(false);
    expect(new ProviderConnectionError('http://[::1]:8080/v1/chat/completions', 'ECONNRESET').retryable).toBe(true);
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.cause).toBe(cause);
    expect(error.message).toContain(URL_);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('timeouts, stream breaks are retryable; provider-reported errors are not', () => {
    const timeout = new ProviderTimeoutError(URL_, 1234);
    expect([timeout.kind, timeout.retryable, timeout.timeoutMs]).toEqual(['timeout', true, 1234]);
    expect(timeout.message).toContain('1234');
    const stream = new ProviderStreamError(URL_, 'socket hang up');
    expect([stream.kind, stream.retryable]).toEqual(['stream', true]);
    expect(stream.message).toContain('socket hang up');
    const reported = new ProviderReportedError(URL_, 'over capacity', 'overloaded', 503);
    expect([reported.kind, reported.retryable, reported.code, reported.status]).toEqual(['provider', false, 'overloaded', 503]);
    expect(reported.message).toBe('over capacity');
  });
});

describe('extractProviderMessage on real bodies', () => {
  it.each([
    ['openai__404_model_not_found', 'The model `gpt-5.2-proo` does not exist or you do not have access to it.'],
    ['openai__400_unsupported_value_system_role_o1mini', "Unsupported value: 'messages[0].role' does not support 'system' with this model."],
    ['azure__401_invalid_subscription_key', 'Access denied due to invalid subscription key or wrong API endpoint.'],
    ['azure__404_deployment_not_found', 'The API deployment for this resource does not exist.'],
    ['groq__404_model_not_found', 'The model `non-existent` does not exist or you do not have access to it.'],
    ['groq__400_tool_use_failed_non_stream', 'Tool choice is required, but model did not call a tool'],
  ])('%s', (name, expected) => {
    const message = extractProviderMessage(body(name));
    expect(message).toBeDefined();
    expect(message!.startsWith(expected)).toBe(true);
    expect(message).not.toContain('{');
  });

  it('OpenRouter: adds metadata.raw to the generic message', () => {
    const google = extractProviderMessage(body('openrouter__429_provider_returned_error_google'));
    expect(google).toMatch(/^Provider returned error \(google\/gemini-2\.0-flash-exp:free is temporarily rate-limited upstream\./);
    const kimi = extractProviderMessage(body('openrouter__429_upstream_rate_limited'));
    expect(kimi).toContain('Provider returned error');
    expect(kimi).toContain('moonshotai/kimi-k2-0905 is temporarily rate-limited upstream');
  });
});

describe('extractProviderMessage on other shapes', () => {
  it('plain text is returned as is (trimmed), long text cut at 500 chars', () => {
    expect(extractProviderMessage('  Bad Gateway\n')).toBe('Bad Gateway');
    const long = extractProviderMessage('e'.repeat(800));
    expect(long).toBe(`${'e'.repeat(500)}…`);
  });

  it('empty and whitespace bodies give undefined', () => {
    expect(extractProviderMessage('')).toBeUndefined();
    expect(extractProviderMessage(' \n\t')).toBeUndefined();
  });

  it('handles {detail}, {message}, string error, arrays and raw-only metadata', () => {
    expect(extractProviderMessage('{"detail":"Not Found"}')).toBe('Not Found');
    expect(extractProviderMessage('{"message":"quota exceeded"}')).toBe('quota exceeded');
    expect(extractProviderMessage('{"error":"model is loading"}')).toBe('model is loading');
    expect(extractProviderMessage('[{"error":{"message":"in an array"}}]')).toBe('in an array');
    expect(extractProviderMessage('{"error":{"metadata":{"raw":"{\\"error\\":{\\"message\\":\\"upstream\\"}}"}}}')).toBe('upstream');
    expect(extractProviderMessage('{"error":{"message":"same","metadata":{"raw":"same"}}}')).toBe('same');
  });

  it('JSON without any message gives undefined', () => {
    expect(extractProviderMessage('{"ok":false}')).toBeUndefined();
    expect(extractProviderMessage('42')).toBeUndefined();
    expect(extractProviderMessage('{"error":{"code":500}}')).toBeUndefined();
  });
});
