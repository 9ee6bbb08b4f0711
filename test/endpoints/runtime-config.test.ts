/**
 * `runtime-config.ts`: the environment, `.env`, flags and the config file combined into the
 * endpoints and default model; and the endpoints chosen at start with an injected local-server search.
 * Every test passes its own env with HOME and XDG_CONFIG_HOME inside a temp dir, so the user's
 * real config file is never read.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { createLogger } from '../../src/shared/log.js';
import { resolveStaticConfig, type StaticRuntimeConfig } from '../../src/endpoints/runtime-config.js';
import { chooseEndpoints, identifyEndpoints, type FoundServers } from '../../src/endpoints/endpoint-choice.js';

let dir: string;
let cwd: string;
let xdg: string;
let baseEnv: Record<string, string>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runtime-config-test-'));
  cwd = join(dir, 'project');
  xdg = join(dir, 'xdg');
  await mkdir(cwd, { recursive: true });
  baseEnv = { HOME: join(dir, 'home'), XDG_CONFIG_HOME: xdg };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes the default config file (under XDG_CONFIG_HOME). */
async function writeDefaultFile(content: unknown): Promise<string> {
  const path = join(xdg, 'openai-acp', 'config.json');
  await mkdir(join(xdg, 'openai-acp'), { recursive: true });
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const resolve = (env: Record<string, string> = {}, flags = {}) => resolveStaticConfig({ flags, env: { ...baseEnv, ...env }, cwd });
const ids = (resolved: StaticRuntimeConfig) => resolved.endpoints.map((e) => e.id);
const ollama = { id: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', models: ['llama3.2', 'qwen3'] };
const router = { id: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1', models: ['openai/gpt-4o'] };

describe('environment only', () => {
  it('gives one endpoint "default" with the bare model', () => {
    const resolved = resolve({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1/', OPENAI_API_KEY: 'sk-env', OPENAI_MODEL: 'm1', OPENAI_MAX_RETRIES: '5' });
    expect(resolved.endpoints).toEqual([
      expect.objectContaining({
        id: 'default',
        source: 'environment',
        baseUrl: 'http://127.0.0.1:8000/v1',
        chatCompletionsUrl: 'http://127.0.0.1:8000/v1/chat/completions',
        apiKey: 'sk-env',
        model: 'm1',
        maxRetries: 5,
      }),
    ]);
    expect(resolved.model).toBe('m1');
    expect(resolved.needsDiscovery).toBe(false);
    expect(resolved.configError).toBeUndefined();
    expect(resolved.configFilePath).toBeUndefined();
    expect(resolved.warnings).toEqual([]);
  });

  it('OPENAI_API_KEY alone names the OpenAI endpoint with the default model', () => {
    const resolved = resolve({ OPENAI_API_KEY: 'sk-env' });
    expect(resolved.endpoints.map((e) => [e.id, e.baseUrl])).toEqual([['default', 'https://api.openai.com/v1']]);
    expect(resolved.model).toBe('gpt-4o');
    expect(resolved.needsDiscovery).toBe(false);
  });

  it('the --base-url and --model flags override their variables', () => {
    const resolved = resolve({ OPENAI_BASE_URL: 'http://a.example/v1', OPENAI_MODEL: 'env-model' }, { baseUrl: 'http://b.example/v1', model: 'flag-model' });
    expect(resolved.endpoints[0]).toMatchObject({ baseUrl: 'http://b.example/v1', model: 'flag-model' });
    expect(resolved.model).toBe('flag-model');
  });

  it('reads .env in cwd under the environment (the environment wins)', async () => {
    await writeFile(join(cwd, '.env'), 'OPENAI_BASE_URL=http://from-dotenv.example/v1\nOPENAI_MODEL=dotenv-model\n');
    expect(resolve().endpoints[0]).toMatchObject({ baseUrl: 'http://from-dotenv.example/v1', model: 'dotenv-model' });
    expect(resolve({ OPENAI_MODEL: 'env-model' }).model).toBe('env-model');
  });

  it('invalid values become a ConfigError, with a fallback endpoint still listed', () => {
    const resolved = resolve({ OPENAI_BASE_URL: 'not a url', OPENAI_TEMPERATURE: 'hot' });
    expect(resolved.configError).toBeInstanceOf(ConfigError);
    expect(resolved.configError!.problems.map((p) => p.variable)).toEqual(['OPENAI_BASE_URL', 'OPENAI_TEMPERATURE']);
    expect(ids(resolved)).toEqual(['default']);
    expect(resolved.needsDiscovery).toBe(false);
  });
});

describe('config file only', () => {
  it('gives the providers in file order, with providerId/modelId values when there are several', async () => {
    const path = await writeDefaultFile({ providers: [ollama, router] });
    const resolved = resolve();
    expect(ids(resolved)).toEqual(['ollama', 'openrouter']);
    expect(resolved.endpoints.map((e) => [e.source, e.model, e.models])).toEqual([
      ['config file', 'llama3.2', ['llama3.2', 'qwen3']],
      ['config file', 'openai/gpt-4o', ['openai/gpt-4o']],
    ]);
    expect(resolved.model).toBe('ollama/llama3.2');
    expect(resolved.configFilePath).toBe(path);
    expect(resolved.needsDiscovery).toBe(false);
    expect(resolved.configError).toBeUndefined();
  });

  it('a single provider gives bare model values', async () => {
    await writeDefaultFile({ providers: [ollama] });
    const resolved = resolve();
    expect(ids(resolved)).toEqual(['ollama']);
    expect(resolved.model).toBe('llama3.2');
  });

  it('a single provider: the file model written as providerId/modelId or bare gives the bare id', async () => {
    await writeDefaultFile({ providers: [ollama], model: 'ollama/qwen3' });
    expect(resolve().model).toBe('qwen3');
    expect(resolve().endpoints[0]!.model).toBe('qwen3');
    await writeDefaultFile({ providers: [ollama], model: 'qwen3' });
    expect(resolve().model).toBe('qwen3');
  });

  it('builds each endpoint from its entry: URL with query, key, headers; retries and timeout from the environment', async () => {
    await writeDefaultFile({
      providers: [
        {
          id: 'az',
          provider: 'azure',
          baseUrl: 'https://r.openai.azure.com/openai/v1?api-version=preview',
          apiKeyEnv: 'AZ_KEY',
          headers: { 'x-team': 'a' },
          models: ['gpt-4o'],
        },
      ],
    });
    const [endpoint] = resolve({ AZ_KEY: 'az-secret', OPENAI_MAX_RETRIES: '0', OPENAI_TIMEOUT_MS: '1234' }).endpoints;
    expect(endpoint).toEqual({
      id: 'az',
      source: 'config file',
      provider: 'azure',
      baseUrl: 'https://r.openai.azure.com/openai/v1',
      chatCompletionsUrl: 'https://r.openai.azure.com/openai/v1/chat/completions?api-version=preview',
      apiKey: 'az-secret',
      headers: { 'x-team': 'a' },
      query: 'api-version=preview',
      model: 'gpt-4o',
      modelIsStandIn: false,
      models: ['gpt-4o'],
      maxRetries: 0,
      timeoutMs: 1234,
      ollamaNumCtx: 32_768,
    });
  });

  it('the file model may name the second provider', async () => {
    await writeDefaultFile({ providers: [ollama, router], model: 'openrouter/anthropic/claude-sonnet-4' });
    const resolved = resolve();
    expect(resolved.model).toBe('openrouter/anthropic/claude-sonnet-4');
    expect(resolved.endpoints.map((e) => e.model)).toEqual(['llama3.2', 'anthropic/claude-sonnet-4']);
  });

  it('a bare file model with several providers addresses the first provider', async () => {
    await writeDefaultFile({ providers: [ollama, router], model: 'mistral' });
    const resolved = resolve();
    expect(resolved.model).toBe('ollama/mistral');
    expect(resolved.endpoints[0]!.model).toBe('mistral');
    expect(resolved.endpoints[1]!.model).toBe('openai/gpt-4o');
  });

  it('OPENAI_MODEL wins over the file model', async () => {
    await writeDefaultFile({ providers: [ollama, router], model: 'ollama/qwen3' });
    expect(resolve({ OPENAI_MODEL: 'openrouter/openai/gpt-4o-mini' }).model).toBe('openrouter/openai/gpt-4o-mini');
    expect(resolve({ OPENAI_MODEL: 'openrouter/openai/gpt-4o-mini' }).endpoints[1]!.model).toBe('openai/gpt-4o-mini');
    expect(resolve({}, { model: 'ollama/llama3.2' }).model).toBe('ollama/llama3.2');
  });

  it('an apiKeyEnv naming an unset variable is a warning (naming the provider and the variable), not a problem', async () => {
    await writeDefaultFile({ providers: [ollama, { ...router, apiKeyEnv: 'OPENROUTER_API_KEY' }] });
    const resolved = resolve();
    expect(resolved.configError).toBeUndefined();
    expect(resolved.warnings).toHaveLength(1);
    expect(resolved.warnings[0]).toContain('openrouter');
    expect(resolved.warnings[0]).toContain('OPENROUTER_API_KEY');
    expect(resolved.endpoints[1]!.apiKey).toBeUndefined();
    expect(resolve({ OPENROUTER_API_KEY: 'sk-or-1' }).warnings).toEqual([]);
    expect(resolve({ OPENROUTER_API_KEY: 'sk-or-1' }).endpoints[1]!.apiKey).toBe('sk-or-1');
  });

  it('the apiKeyEnv variable may come from .env in cwd', async () => {
    await writeDefaultFile({ providers: [{ ...router, apiKeyEnv: 'OPENROUTER_API_KEY' }] });
    await writeFile(join(cwd, '.env'), 'OPENROUTER_API_KEY=sk-dotenv\n');
    const resolved = resolve();
    expect(resolved.warnings).toEqual([]);
    expect(resolved.endpoints[0]!.apiKey).toBe('sk-dotenv');
  });

  it('XDG_CONFIG_HOME unset: the file is read from HOME/.config', async () => {
    const home = join(dir, 'home');
    await mkdir(join(home, '.config', 'openai-acp'), { recursive: true });
    await writeFile(join(home, '.config', 'openai-acp', 'config.json'), JSON.stringify({ providers: [ollama] }));
    const resolved = resolveStaticConfig({ flags: {}, env: { HOME: home }, cwd });
    expect(ids(resolved)).toEqual(['ollama']);
    expect(resolved.configFilePath).toBe(join(home, '.config', 'openai-acp', 'config.json'));
  });
});

describe('environment and config file', () => {
  it('lists the environment endpoint "default" first, then the file providers', async () => {
    await writeDefaultFile({ providers: [ollama, router] });
    const resolved = resolve({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1', OPENAI_MODEL: 'env-model' });
    expect(ids(resolved)).toEqual(['default', 'ollama', 'openrouter']);
    expect(resolved.model).toBe('default/env-model');
    expect(resolved.endpoints.map((e) => e.model)).toEqual(['env-model', 'llama3.2', 'openai/gpt-4o']);
  });

  it('OPENAI_MODEL naming a file provider makes that the default', async () => {
    await writeDefaultFile({ providers: [ollama, router] });
    const resolved = resolve({ OPENAI_API_KEY: 'sk-env', OPENAI_MODEL: 'ollama/qwen3' });
    expect(resolved.model).toBe('ollama/qwen3');
    expect(resolved.endpoints[1]!.model).toBe('qwen3');
  });

  // When OPENAI_MODEL names another provider (`ollama/qwen3`), the `default` endpoint keeps a
  // model of its own instead of "ollama/qwen3" (which it does not have).
  it('OPENAI_MODEL naming a file provider does not become the environment endpoint model', async () => {
    await writeDefaultFile({ providers: [ollama, router] });
    const resolved = resolve({ OPENAI_API_KEY: 'sk-env', OPENAI_MODEL: 'ollama/qwen3' });
    expect(resolved.endpoints[0]!.model).not.toBe('ollama/qwen3');
  });

  it('a file provider with the id "default" collides with the environment endpoint: a problem', async () => {
    const path = await writeDefaultFile({ providers: [{ ...ollama, id: 'default' }, router] });
    const resolved = resolve({ OPENAI_API_KEY: 'sk-env' });
    expect(resolved.configError?.problems).toEqual([expect.objectContaining({ variable: `${path} providers` })]);
    expect(resolved.configError!.problems[0]!.problem).toContain('"default"');
    expect(ids(resolved)).toEqual(['default', 'openrouter']);
  });

  it('file providers without models take OPENAI_MODEL (or the default) as their model', async () => {
    await writeDefaultFile({ providers: [{ id: 'bare', baseUrl: 'http://127.0.0.1:1/v1' }] });
    expect(resolve().endpoints[0]!.model).toBe('gpt-4o');
    expect(resolve({ OPENAI_MODEL: 'llama3.2' }).endpoints[0]!.model).toBe('llama3.2');
  });
});

describe('problems', () => {
  it('a malformed file gives ConfigError problems naming the file path and the JSON path', async () => {
    const path = await writeDefaultFile({ providers: [ollama, { id: 'b', baseUrl: 'ftp://nope' }, { id: 'c', baseUrl: 'http://x', provider: 'anthropic' }] });
    const resolved = resolve();
    expect(resolved.configError?.problems.map((p) => p.variable)).toEqual([`${path} providers[1].baseUrl`, `${path} providers[2].provider`]);
    expect(resolved.configError!.message).toContain(`${path} providers[1].baseUrl`);
    expect(resolved.endpoints).toEqual([]);
    expect(resolved.configFilePath).toBeUndefined();
    expect(resolved.needsDiscovery).toBe(false);
  });

  it('a file that is not JSON is a problem naming the file; the environment endpoint stays', async () => {
    const path = await writeDefaultFile('{"providers": [');
    const resolved = resolve({ OPENAI_API_KEY: 'sk-env' });
    expect(resolved.configError?.problems).toEqual([expect.objectContaining({ variable: path })]);
    expect(ids(resolved)).toEqual(['default']);
  });

  it('problems of the environment and of the file are reported together', async () => {
    const path = await writeDefaultFile({ providers: [{ id: 'x' }] });
    const resolved = resolve({ OPENAI_TEMPERATURE: '9' });
    expect(resolved.configError?.problems.map((p) => p.variable)).toEqual(['OPENAI_TEMPERATURE', `${path} providers[0].baseUrl`]);
  });

  it('an explicit OPENAI_ACP_CONFIG that does not exist is a problem naming it', () => {
    const missing = join(dir, 'nowhere', 'config.json');
    const resolved = resolve({ OPENAI_ACP_CONFIG: missing });
    expect(resolved.configError?.problems).toEqual([expect.objectContaining({ variable: 'OPENAI_ACP_CONFIG' })]);
    expect(resolved.configError!.problems[0]!.problem).toContain(missing);
    expect(resolved.needsDiscovery).toBe(false);
  });

  it('the default path missing is no problem, and a local server is looked for', () => {
    const resolved = resolve();
    expect(resolved.configError).toBeUndefined();
    expect(resolved.endpoints).toEqual([]);
    expect(resolved.model).toBeUndefined();
    expect(resolved.configFilePath).toBeUndefined();
    expect(resolved.needsDiscovery).toBe(true);
  });

  it('an explicit OPENAI_ACP_CONFIG is read instead of the default path', async () => {
    await writeDefaultFile({ providers: [ollama] });
    const other = join(dir, 'other.json');
    await writeFile(other, JSON.stringify({ providers: [router] }));
    const resolved = resolve({ OPENAI_ACP_CONFIG: other });
    expect(ids(resolved)).toEqual(['openrouter']);
    expect(resolved.configFilePath).toBe(other);
  });

  it('a default path that cannot be read as a file is a problem naming it', async () => {
    const path = join(xdg, 'openai-acp', 'config.json');
    await mkdir(path, { recursive: true });
    const resolved = resolve();
    expect(resolved.configError?.problems).toHaveLength(1);
    expect(resolved.configError!.problems[0]!.problem).toContain(path);
  });

  // A relative OPENAI_ACP_CONFIG (even one set by the `.env` of `cwd`) is read relative to `cwd`.
  it('a relative OPENAI_ACP_CONFIG (here from .env) is read relative to cwd', async () => {
    await writeFile(join(cwd, 'acp.json'), JSON.stringify({ providers: [ollama] }));
    await writeFile(join(cwd, '.env'), 'OPENAI_ACP_CONFIG=acp.json\n');
    const resolved = resolve();
    expect(resolved.configError).toBeUndefined();
    expect(ids(resolved)).toEqual(['ollama']);
  });
});

describe('needsDiscovery', () => {
  it('only when neither the base URL, the key nor a config file names an endpoint', async () => {
    expect(resolve().needsDiscovery).toBe(true);
    expect(resolve({ OPENAI_MODEL: 'llama3.2', OPENAI_HEADERS: '{"x":"y"}' }).needsDiscovery).toBe(true);
    expect(resolve({ OPENAI_API_KEY: 'sk' }).needsDiscovery).toBe(false);
    expect(resolve({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }).needsDiscovery).toBe(false);
    expect(resolve({}, { baseUrl: 'http://127.0.0.1:1/v1' }).needsDiscovery).toBe(false);
    await writeDefaultFile({ providers: [ollama] });
    expect(resolve().needsDiscovery).toBe(false);
  });

  it('a blank OPENAI_BASE_URL or OPENAI_API_KEY names nothing', () => {
    expect(resolve({ OPENAI_BASE_URL: '  ', OPENAI_API_KEY: '' }).needsDiscovery).toBe(true);
  });
});

describe('chooseEndpoints', () => {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });
  beforeEach(() => {
    lines.length = 0;
  });
  const found = (defaultModel = 'qwen3'): FoundServers => ({
    server: { baseUrl: 'http://127.0.0.1:11434/v1', provider: 'ollama', models: [{ id: 'llama3.2' }, { id: defaultModel }], defaultModel },
    probes: [],
  });

  it('uses the configured endpoints without looking for a local server', async () => {
    const resolved = resolve({ OPENAI_API_KEY: 'sk-env', OPENAI_MODEL: 'm' });
    const discover = vi.fn(async () => found());
    const chosen = await chooseEndpoints(resolved, logger, discover);
    expect(chosen).toEqual({ endpoints: resolved.endpoints, model: 'm' });
    expect(discover).not.toHaveBeenCalled();
  });

  it('sets the provider of a configured endpoint from the answers of its server, whatever its port; OPENAI_PROVIDER still wins', async () => {
    const identify = vi.fn(async () => ({ provider: 'llamacpp' as const, evidence: 'GET /props' }));
    const chosen = await chooseEndpoints(resolve({ OPENAI_BASE_URL: 'http://127.0.0.1:9000/v1' }), logger, undefined, identify);
    expect(chosen.endpoints[0]).toMatchObject({ provider: 'llamacpp', identifiedBy: 'GET /props', baseUrl: 'http://127.0.0.1:9000/v1' });
    expect(lines.join('\n')).toMatch(/recognised the server by its answers.*llamacpp/);
    // A server on Ollama's usual port that answers as llama.cpp is llama.cpp.
    expect((await chooseEndpoints(resolve({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }), logger, undefined, identify)).endpoints[0]?.provider).toBe(
      'llamacpp',
    );
    identify.mockClear();
    const explicit = await chooseEndpoints(resolve({ OPENAI_BASE_URL: 'http://127.0.0.1:9000/v1', OPENAI_PROVIDER: 'vllm' }), logger, undefined, identify);
    expect(explicit.endpoints[0]?.provider).toBe('vllm');
    expect(identify).not.toHaveBeenCalled();
  });

  it('does not ask cloud APIs who they are; a server that says nothing keeps its port guess', async () => {
    const identify = vi.fn(async () => ({}));
    const settings = (baseUrl: string) => ({
      id: 'x',
      source: 'environment' as const,
      baseUrl,
      chatCompletionsUrl: `${baseUrl}/chat/completions`,
      apiKey: undefined,
      headers: {},
      query: undefined,
      model: 'm',
      models: undefined,
      maxRetries: 2,
      timeoutMs: 1000,
    });
    const cloud = [settings('https://api.openai.com/v1'), settings('https://openrouter.ai/api/v1'), settings('https://llm.example.com/v1')];
    expect(await identifyEndpoints(cloud, logger, identify)).toEqual(cloud);
    expect(identify).not.toHaveBeenCalled();
    const local = [settings('http://127.0.0.1:8080/v1'), settings('https://gpu-box.lan:9443/v1'), settings('http://10.0.0.5/v1')];
    expect(await identifyEndpoints(local, logger, identify)).toEqual(local);
    expect(identify).toHaveBeenCalledTimes(3);
  });

  it('does not look for a local server when the config file is invalid', async () => {
    await writeDefaultFile({ providers: [{ id: 'x' }] });
    const discover = vi.fn(async () => found());
    const chosen = await chooseEndpoints(resolve(), logger, discover);
    expect(chosen.endpoints).toEqual([]);
    expect(discover).not.toHaveBeenCalled();
  });

  it('uses the local server found, with its default model', async () => {
    const discover = vi.fn(async () => found('qwen3'));
    const chosen = await chooseEndpoints(resolve({ OPENAI_HEADERS: '{"x-team":"t"}', OPENAI_MODELS: 'a,b', OPENAI_MAX_RETRIES: '1' }), logger, discover);
    expect(discover).toHaveBeenCalledOnce();
    expect(chosen.model).toBe('qwen3');
    expect(chosen.missing).toBeUndefined();
    expect(chosen.endpoints).toEqual([
      {
        id: 'ollama',
        source: 'local server',
        provider: 'ollama',
        baseUrl: 'http://127.0.0.1:11434/v1',
        chatCompletionsUrl: 'http://127.0.0.1:11434/v1/chat/completions',
        apiKey: undefined,
        headers: { 'x-team': 't' },
        query: undefined,
        model: 'qwen3',
        models: ['a', 'b'],
        maxRetries: 1,
        timeoutMs: 600_000,
        ollamaNumCtx: 32_768,
      },
    ]);
    expect(lines.some((line) => line.includes('info') && line.includes('11434'))).toBe(true);
  });

  it('OPENAI_MODEL wins over the local server default model', async () => {
    const chosen = await chooseEndpoints(resolve({ OPENAI_MODEL: 'llama3.2' }), logger, async () => found('qwen3'));
    expect(chosen.model).toBe('llama3.2');
    expect(chosen.endpoints[0]!.model).toBe('llama3.2');
  });

  it('no local server: no endpoints, and words saying how to configure one (with what answered)', async () => {
    const none: FoundServers = {
      server: undefined,
      probes: [
        { port: 11434, provider: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', outcome: 'no-models', models: [] },
        { port: 1234, provider: 'lmstudio', baseUrl: 'http://127.0.0.1:1234/v1', outcome: 'http-error', status: 404, models: [] },
      ],
    };
    const chosen = await chooseEndpoints(resolve(), logger, async () => none);
    expect(chosen.endpoints).toEqual([]);
    expect(chosen.model).toBeUndefined();
    expect(chosen.missing).toContain('OPENAI_BASE_URL');
    expect(chosen.missing).toContain('OPENAI_API_KEY');
    expect(chosen.missing).toContain('lists no models');
    expect(chosen.missing).toContain('HTTP 404');
    expect(lines.some((line) => line.startsWith('openai-acp warn:'))).toBe(true);
  });

  it('passes the logger to the search', async () => {
    const discover = vi.fn(async () => found());
    await chooseEndpoints(resolve(), logger, discover);
    expect(discover).toHaveBeenCalledWith(logger);
  });
});
