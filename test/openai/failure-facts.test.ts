import { describe, expect, it } from 'vitest';
import { ProviderConnectionError, ProviderHttpError, ProviderReportedError, ProviderStreamError, ProviderTimeoutError } from '../../src/openai/errors.js';
import { errorMeta } from '../../src/openai/failure-facts.js';

const URL_ = 'https://llm.example.test/v1/chat/completions';
const http = (status: number) => new ProviderHttpError(status, new Headers(), '', URL_);

describe('errorMeta', () => {
  it('HTTP errors carry their status and retryability', () => {
    expect(errorMeta(http(429))).toEqual({ kind: 'http', status: 429, retryable: true });
    expect(errorMeta(http(401))).toEqual({ kind: 'http', status: 401, retryable: false });
    expect(errorMeta(http(503))).toEqual({ kind: 'http', status: 503, retryable: true });
  });

  it('provider-reported errors carry a status only when they had one', () => {
    expect(errorMeta(new ProviderReportedError(URL_, 'x', 'c', 400))).toEqual({ kind: 'provider', status: 400, retryable: false });
    const meta = errorMeta(new ProviderReportedError(URL_, 'x'));
    expect(meta).toEqual({ kind: 'provider', retryable: false });
    expect('status' in meta).toBe(false);
  });

  it('other kinds have no status', () => {
    expect(errorMeta(new ProviderConnectionError(URL_, 'ECONNREFUSED'))).toEqual({ kind: 'connection', retryable: true });
    expect(errorMeta(new ProviderTimeoutError(URL_, 5))).toEqual({ kind: 'timeout', retryable: true });
    expect(errorMeta(new ProviderStreamError(URL_, 'eof'))).toEqual({ kind: 'stream', retryable: true });
  });
});
