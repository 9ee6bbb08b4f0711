/**
 * The default model when none is named: the first chat model a self-hosted server lists, and
 * `gpt-4o` only for OpenAI and Azure; and the words `doctor` gives for the choice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EndpointRegistry } from '../../src/endpoints/endpoint-registry.js';
import { resolveStaticConfig } from '../../src/endpoints/runtime-config.js';
import { chooseModel, takesListedModel } from '../../src/endpoints/default-model.js';
import { createLogger } from '../../src/shared/log.js';
import { fakeServerPool } from '../helpers/fake-openai.js';

const cwd = mkdtempSync(join(tmpdir(), 'openai-acp-stand-in-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const baseEnv = { XDG_CONFIG_HOME: join(cwd, 'config') };
const resolve = (env: Record<string, string>) => resolveStaticConfig({ flags: {}, env: { ...baseEnv, ...env }, cwd });
const logger = createLogger({ level: 'error', write: () => undefined });
const startServer = fakeServerPool();

describe('which providers keep a fixed default model', () => {
  it.each(['ollama', 'vllm', 'lmstudio', 'llamacpp', 'litellm', 'generic', 'openrouter'] as const)('%s takes the first model it lists', (provider) => {
    expect(takesListedModel(provider)).toBe(true);
  });
  it.each(['openai', 'azure'] as const)('%s keeps gpt-4o', (provider) => {
    expect(takesListedModel(provider)).toBe(false);
  });
});

describe('OPENAI_BASE_URL at a self-hosted server without OPENAI_MODEL', () => {
  it.each([
    ['Ollama', { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }],
    ['vLLM by OPENAI_PROVIDER', { OPENAI_BASE_URL: 'http://gpu-box:9000/v1', OPENAI_PROVIDER: 'vllm' }],
    ['LM Studio', { OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' }],
    ['a generic server', { OPENAI_BASE_URL: 'http://inference.internal/v1' }],
  ])('%s: no fixed default model; the endpoint takes the first chat model it lists', (_name, env) => {
    const resolved = resolve(env);
    expect(resolved.model).toBeUndefined();
    expect(resolved.endpoints[0]!.modelIsStandIn).toBe(true);
  });

  it.each([
    ['OpenAI', { OPENAI_API_KEY: 'sk-test' }],
    ['Azure', { OPENAI_BASE_URL: 'https://r.openai.azure.com/openai/v1', OPENAI_API_KEY: 'k' }],
  ])('%s keeps gpt-4o', (_name, env) => {
    const resolved = resolve(env);
    expect(resolved.model).toBe('gpt-4o');
    expect(resolved.endpoints[0]!.modelIsStandIn).toBeFalsy();
  });

  it('OPENAI_MODEL wins', () => {
    expect(resolve({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'qwen3:14b' }).model).toBe('qwen3:14b');
  });

  it("the agent's default model is the first chat model the server lists", async () => {
    const server = await startServer();
    server.setModels({ object: 'list', data: [{ id: 'nomic-embed-text' }, { id: 'qwen3:8b' }, { id: 'qwen3:14b' }] });
    const resolved = resolve({ OPENAI_BASE_URL: server.baseUrl });
    const registry = new EndpointRegistry(resolved.endpoints, { logger });
    expect(await registry.defaultValue()).toBe('qwen3:8b');
    expect((await registry.models()).map((m) => m.id)).toEqual(['nomic-embed-text', 'qwen3:8b', 'qwen3:14b']);
  });
});

describe('chooseModel (what doctor says)', () => {
  it('names the first chat model listed and why', async () => {
    const server = await startServer();
    server.setModels({ object: 'list', data: [{ id: 'bge-m3' }, { id: 'qwen3:8b' }] });
    const settings = resolve({ OPENAI_BASE_URL: server.baseUrl }).endpoints[0]!;
    const choice = await chooseModel(settings, 'unused', { logger });
    expect(choice.model).toBe('qwen3:8b');
    expect(choice.why).toMatch(/first chat model the endpoint lists, as OPENAI_MODEL is not set/);
  });

  it('says when the endpoint lists nothing and the stand-in is sent', async () => {
    const server = await startServer();
    server.setModels({ error: 'nope' }, 404);
    const settings = resolve({ OPENAI_BASE_URL: server.baseUrl }).endpoints[0]!;
    const choice = await chooseModel(settings, 'unused', { logger });
    expect(choice.model).toBe('gpt-4o');
    expect(choice.why).toMatch(/lists no model.*set OPENAI_MODEL/);
  });

  it('gives a named model with the reason it is given, asking nothing', async () => {
    const server = await startServer();
    const named = resolve({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'qwen3:8b' }).endpoints[0]!;
    expect(await chooseModel(named, 'set by OPENAI_MODEL', { logger })).toEqual({ model: 'qwen3:8b', why: 'set by OPENAI_MODEL' });
    expect(server.modelRequests).toBe(0);
  });
});
