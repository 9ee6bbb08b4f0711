/**
 * The rules that read the native chat API's failures: "not served" (fall back to /v1) versus
 * Ollama's own 404 for a model not pulled; out-of-memory answers; and the user's words for both.
 */
import { describe, expect, it } from 'vitest';
import { ProviderHttpError } from '../../src/openai/errors.js';
import { isNotServed, isOutOfMemory, ProviderMemoryError } from '../../src/openai/native-chat.js';
import { describeProviderError } from '../../src/openai/user-errors.js';

const URL_ = 'http://127.0.0.1:11434/api/chat';
const http = (status: number, body: string) => new ProviderHttpError(status, new Headers(), body, URL_);

describe('isNotServed', () => {
  it("takes a 404/405/501 that is not Ollama's error object for an API not served", () => {
    expect(isNotServed(http(404, '404 page not found'))).toBe(true);
    expect(isNotServed(http(405, ''))).toBe(true);
    expect(isNotServed(http(501, '<html>Not Implemented</html>'))).toBe(true);
    expect(isNotServed(http(404, '{"detail":"Not Found"}'))).toBe(true);
  });

  it("keeps Ollama's own answers (a model not pulled) and other statuses as failures", () => {
    expect(isNotServed(http(404, '{"error":"model \\"nope\\" not found, try pulling it first"}'))).toBe(false);
    expect(isNotServed(http(400, 'bad request'))).toBe(false);
    expect(isNotServed(http(500, '404 page not found'))).toBe(false);
    expect(isNotServed(new Error('404'))).toBe(false);
  });
});

describe('isOutOfMemory', () => {
  it.each([
    'model requires more system memory (12.4 GiB) than is available (7.6 GiB)',
    'llama runner process has terminated: cudaMalloc failed: out of memory',
    'unable to load full model on GPU',
    'insufficient memory - required allocations: {...}',
  ])('recognises %j', (message) => expect(isOutOfMemory(message)).toBe(true));

  it('does not take an overflow of the window or another failure for one', () => {
    expect(isOutOfMemory('request (5162 tokens) exceeds the available context size (4096 tokens), try increasing it')).toBe(false);
    expect(isOutOfMemory(undefined)).toBe(false);
  });
});

describe('the words', () => {
  it('a model not pulled (native or /v1 wording): run `ollama pull <model>`', () => {
    for (const body of [
      '{"error":"model \\"qwen3:8b\\" not found, try pulling it first"}',
      '{"error":{"message":"model \\"qwen3:8b\\" not found, try pulling it first","type":"api_error"}}',
    ]) {
      const text = describeProviderError(http(404, body), { model: 'qwen3:8b', retries: 0 });
      expect(text).toContain('run `ollama pull qwen3:8b`');
      expect(text).toContain(URL_);
    }
  });

  it('out of memory: names the window and suggests a smaller OPENAI_ACP_OLLAMA_NUM_CTX; never retried', () => {
    const error = new ProviderMemoryError(
      http(500, '{"error":"model requires more system memory (12.4 GiB) than is available (7.6 GiB)"}'),
      'qwen3:32b',
      32768,
    );
    expect(error.retryable).toBe(false);
    const text = describeProviderError(error, { model: 'qwen3:32b', retries: 0 });
    expect(text).toContain('"qwen3:32b" with a 32,768-token window');
    expect(text).toContain('OPENAI_ACP_OLLAMA_NUM_CTX to a smaller value such as 16384');
    expect(text).toContain('requires more system memory');
  });
});
