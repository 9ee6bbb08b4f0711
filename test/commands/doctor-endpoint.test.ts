import { describe, expect, it } from 'vitest';
import { describeEndpoint, providerOf } from '../../src/commands/doctor-endpoint.js';
import type { NamedEndpointSettings } from '../../src/endpoints/endpoint-registry.js';

const settings = (over: Partial<NamedEndpointSettings>): NamedEndpointSettings => ({
  id: 'default',
  source: 'environment',
  provider: undefined,
  baseUrl: 'http://127.0.0.1:11434/v1',
  chatCompletionsUrl: 'http://127.0.0.1:11434/v1/chat/completions',
  apiKey: undefined,
  headers: {},
  query: undefined,
  model: 'qwen3:8b',
  models: undefined,
  maxRetries: 2,
  timeoutMs: 600_000,
  ...over,
});

describe('providerOf', () => {
  it('says how the provider was decided, never "set" when nothing was set', () => {
    expect(providerOf(settings({}))).toEqual({ id: 'ollama', how: 'detected from the base URL' });
    expect(providerOf(settings({ source: 'local server', provider: 'ollama' }))).toEqual({ id: 'ollama', how: 'found running at 127.0.0.1:11434' });
    expect(providerOf(settings({ provider: 'llamacpp', identifiedBy: 'GET /props' }))).toEqual({
      id: 'llamacpp',
      how: 'recognised by its answer to GET /props',
    });
    expect(providerOf(settings({ provider: 'vllm' }))).toEqual({ id: 'vllm', how: 'set by OPENAI_PROVIDER' });
    expect(providerOf(settings({ source: 'config file', provider: 'vllm' }))).toEqual({ id: 'vllm', how: 'set by "provider" in the config file' });
  });
});

describe('describeEndpoint', () => {
  it('the local server found: its provider row says where it was found', () => {
    const rows = describeEndpoint(
      settings({ source: 'local server', provider: 'ollama' }),
      'OPENAI_API_KEY',
      'the first chat model the local server found lists',
    );
    expect(rows[0]).toBe('    provider        Ollama (ollama, found running at 127.0.0.1:11434)');
    expect(rows.join('\n')).not.toContain(', set)');
  });

  it('the limits row agrees in number: 1 retry, 2 retries', () => {
    expect(describeEndpoint(settings({ maxRetries: 1 }), '', 'set').at(-1)).toBe('    limits          600000 ms of silence, 1 retry');
    expect(describeEndpoint(settings({ maxRetries: 2 }), '', 'set').at(-1)).toBe('    limits          600000 ms of silence, 2 retries');
  });
});
