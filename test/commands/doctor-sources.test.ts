/** doctor's lines naming where each setting came from, and the warning for a cloud key that passes a local server by. */
import { describe, expect, it } from 'vitest';
import { cloudKeyEndpoint, cloudOverLocalCheck, sourceLines } from '../../src/commands/doctor-sources.js';
import type { SettingSource } from '../../src/config/project-env.js';
import type { NamedEndpointSettings } from '../../src/endpoints/endpoint-registry.js';

const env: SettingSource = { kind: 'environment' };
const dotenv: SettingSource = { kind: 'dotenv', path: '/p/.env' };

const endpoint = (over: Partial<NamedEndpointSettings> = {}): NamedEndpointSettings => ({
  id: 'default',
  source: 'environment',
  provider: undefined,
  baseUrl: 'https://api.openai.com/v1',
  chatCompletionsUrl: 'https://api.openai.com/v1/chat/completions',
  apiKey: 'sk-cloud-key',
  headers: {},
  query: undefined,
  model: 'gpt-4o',
  models: undefined,
  extraBody: undefined,
  maxRetries: 2,
  timeoutMs: 600_000,
  ollamaNumCtx: 0,
  ...over,
});

const ollama = {
  server: { baseUrl: 'http://127.0.0.1:11434/v1', provider: 'ollama' as const, models: [{ id: 'qwen3:8b' }], defaultModel: 'qwen3:8b' },
  probes: [],
  waitedMs: 12,
  timeoutMs: 5_000,
};

describe('sourceLines', () => {
  it('names each set setting with its source, one per line, in name order', () => {
    expect(sourceLines({ OPENAI_MODEL: { kind: 'flag', flag: '--model' }, OPENAI_API_KEY: env, OPENAI_BASE_URL: dotenv }, undefined)).toEqual([
      '  settings          OPENAI_API_KEY from the environment',
      '                    OPENAI_BASE_URL from .env (/p/.env)',
      '                    OPENAI_MODEL from --model',
    ]);
  });

  it('says when nothing is set, and what the local search found and how long it took', () => {
    const lines = sourceLines(
      {},
      { server: undefined, probes: [{ port: 11434, provider: 'ollama', baseUrl: '', outcome: 'timeout', models: [] }], waitedMs: 5_003, timeoutMs: 5_000 },
    );
    expect(lines[0]).toMatch(/^ {2}settings {10}none set/);
    expect(lines[1]).toBe('  local search      found nothing on ports 11434 (5003 ms of at most 5000 ms)');
    expect(sourceLines(undefined, ollama)[1]).toBe('  local search      found http://127.0.0.1:11434/v1 (12 ms of at most 5000 ms)');
  });
});

describe('cloudKeyEndpoint and cloudOverLocalCheck', () => {
  it('warns when OPENAI_API_KEY sends requests to the default cloud URL while a local server answers', () => {
    const cloud = cloudKeyEndpoint([endpoint()], { OPENAI_API_KEY: env });
    expect(cloud?.id).toBe('default');
    const check = cloudOverLocalCheck(cloud!, { OPENAI_API_KEY: env }, ollama);
    expect(check).toMatchObject({ status: 'warn', title: 'local server not used' });
    expect(check?.detail).toBe(
      'a local server answers at http://127.0.0.1:11434/v1 (1 model), but OPENAI_API_KEY (from the environment) sends every request to https://api.openai.com/v1',
    );
    expect(check?.fix).toContain('OPENAI_BASE_URL=http://127.0.0.1:11434/v1');
    expect(JSON.stringify(check)).not.toContain('sk-cloud-key');
  });

  it('says nothing when no local server answers, when the base URL was chosen, or for a config file endpoint', () => {
    expect(cloudOverLocalCheck(endpoint(), {}, { server: undefined, probes: [] })).toBeUndefined();
    expect(cloudKeyEndpoint([endpoint()], { OPENAI_API_KEY: env, OPENAI_BASE_URL: env })).toBeUndefined();
    expect(cloudKeyEndpoint([endpoint({ source: 'config file' })], { OPENAI_API_KEY: env })).toBeUndefined();
    expect(cloudKeyEndpoint([endpoint({ apiKey: undefined })], {})).toBeUndefined();
  });
});
