import { describe, expect, it } from 'vitest';
import { buildChatRequestBody, requestShape } from '../../src/openai/chat-request.js';
import {
  detectProvider,
  maxTokensParam,
  parseProviderId,
  PROVIDER_IDS,
  reasoningEffortLevels,
  resolveEndpoint,
  type EndpointInput,
} from '../../src/config/providers.js';
import { PROVIDER_PROFILES, type ProviderId } from '../../src/config/provider-profiles.js';

describe('resolveEndpoint: URL, headers and /models per provider', () => {
  const KEY = 'k-123456';
  const table: {
    name: string;
    input: EndpointInput;
    provider: ProviderId;
    chatUrl: string;
    modelsUrl: string | null;
    bearer: string | undefined;
    headers: Record<string, string>;
  }[] = [
    {
      name: 'OpenAI',
      input: { baseUrl: 'https://api.openai.com/v1', apiKey: KEY },
      provider: 'openai',
      chatUrl: 'https://api.openai.com/v1/chat/completions',
      modelsUrl: 'https://api.openai.com/v1/models',
      bearer: KEY,
      headers: {},
    },
    {
      name: 'Azure classic: default api-version added, key in api-key, no /models',
      input: { baseUrl: 'https://res.openai.azure.com/openai/deployments/gpt4o', apiKey: KEY },
      provider: 'azure',
      chatUrl: 'https://res.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21',
      modelsUrl: null,
      bearer: undefined,
      headers: { 'api-key': KEY },
    },
    {
      name: "Azure classic: the user's api-version wins, other query kept",
      input: { baseUrl: 'https://res.cognitiveservices.azure.com/openai/deployments/d1/', query: 'api-version=2025-04-01-preview&x=1', apiKey: KEY },
      provider: 'azure',
      chatUrl: 'https://res.cognitiveservices.azure.com/openai/deployments/d1/chat/completions?api-version=2025-04-01-preview&x=1',
      modelsUrl: null,
      bearer: undefined,
      headers: { 'api-key': KEY },
    },
    {
      name: 'Azure v1: no api-version, api-key, /models',
      input: { baseUrl: 'https://res.openai.azure.com/openai/v1/', apiKey: KEY },
      provider: 'azure',
      chatUrl: 'https://res.openai.azure.com/openai/v1/chat/completions',
      modelsUrl: 'https://res.openai.azure.com/openai/v1/models',
      bearer: undefined,
      headers: { 'api-key': KEY },
    },
    {
      name: 'Azure v1 with a Microsoft Entra ID token: Bearer',
      input: { baseUrl: 'https://res.services.ai.azure.com/openai/v1', apiKey: 'eyJhbGciOi.eyJzdWIiOiJ4In0.c2ln' },
      provider: 'azure',
      chatUrl: 'https://res.services.ai.azure.com/openai/v1/chat/completions',
      modelsUrl: 'https://res.services.ai.azure.com/openai/v1/models',
      bearer: 'eyJhbGciOi.eyJzdWIiOiJ4In0.c2ln',
      headers: {},
    },
    {
      name: "Azure: the user's own api-key header wins over the key",
      input: { baseUrl: 'https://res.openai.azure.com/openai/deployments/d', apiKey: KEY, headers: { 'Api-Key': 'from-headers' } },
      provider: 'azure',
      chatUrl: 'https://res.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21',
      modelsUrl: null,
      bearer: undefined,
      headers: { 'Api-Key': 'from-headers' },
    },
    {
      name: 'Azure through a gateway host, recognized by its path',
      input: { baseUrl: 'https://gw.example.com/openai/deployments/d', apiKey: KEY },
      provider: 'azure',
      chatUrl: 'https://gw.example.com/openai/deployments/d/chat/completions?api-version=2024-10-21',
      modelsUrl: null,
      bearer: undefined,
      headers: { 'api-key': KEY },
    },
    {
      name: 'Bedrock: Bearer API key, no /models',
      input: { baseUrl: 'https://bedrock-runtime.us-west-2.amazonaws.com/openai/v1', apiKey: KEY },
      provider: 'bedrock',
      chatUrl: 'https://bedrock-runtime.us-west-2.amazonaws.com/openai/v1/chat/completions',
      modelsUrl: null,
      bearer: KEY,
      headers: {},
    },
    {
      name: 'OpenRouter with attribution headers',
      input: { baseUrl: 'https://openrouter.ai/api/v1', apiKey: KEY, headers: { 'X-Title': 'acp' } },
      provider: 'openrouter',
      chatUrl: 'https://openrouter.ai/api/v1/chat/completions',
      modelsUrl: 'https://openrouter.ai/api/v1/models',
      bearer: KEY,
      headers: { 'X-Title': 'acp' },
    },
    {
      name: 'Ollama: /chat/completions already present with trailing slashes, no key',
      input: { baseUrl: 'http://127.0.0.1:11434/v1/chat/completions//' },
      provider: 'ollama',
      chatUrl: 'http://127.0.0.1:11434/v1/chat/completions',
      modelsUrl: 'http://127.0.0.1:11434/v1/models',
      bearer: undefined,
      headers: {},
    },
    {
      name: 'generic: doubled /chat/completions and a query in the base URL',
      input: { baseUrl: 'https://llm.example.com/v1/chat/completions/chat/completions?tenant=a', query: 'tenant=b&z=1', apiKey: KEY },
      provider: 'generic',
      chatUrl: 'https://llm.example.com/v1/chat/completions?tenant=b&z=1',
      modelsUrl: 'https://llm.example.com/v1/models?tenant=b&z=1',
      bearer: KEY,
      headers: {},
    },
    {
      name: 'explicit provider wins over detection',
      input: { baseUrl: 'http://127.0.0.1:9999/v1', provider: 'vllm' },
      provider: 'vllm',
      chatUrl: 'http://127.0.0.1:9999/v1/chat/completions',
      modelsUrl: 'http://127.0.0.1:9999/v1/models',
      bearer: undefined,
      headers: {},
    },
  ];

  it.each(table.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const resolved = resolveEndpoint(row.input);
    expect(resolved.provider).toBe(row.provider);
    expect(resolved.chatUrl).toBe(row.chatUrl);
    expect(resolved.modelsUrl).toBe(row.modelsUrl);
    expect(resolved.bearerKey).toBe(row.bearer);
    expect(resolved.headers).toEqual(row.headers);
    expect(resolved.chatUrl).not.toMatch(/chat\/completions\/chat\/completions|\/\/chat/);
  });
});

describe('request parameters per provider', () => {
  const request = (model: string) => ({
    model,
    messages: [{ role: 'user' as const, content: 'hi' }],
    maxTokens: 64,
    temperature: 0.5,
    reasoningEffort: 'high',
  });
  const table: { provider: ProviderId; model: string; tokens: string; effort: Record<string, unknown> }[] = [
    { provider: 'openai', model: 'gpt-5', tokens: 'max_completion_tokens', effort: { reasoning_effort: 'high' } },
    { provider: 'openai', model: 'o3-mini', tokens: 'max_completion_tokens', effort: { reasoning_effort: 'high' } },
    { provider: 'openai', model: 'gpt-4o', tokens: 'max_tokens', effort: { reasoning_effort: 'high' } },
    { provider: 'azure', model: 'o4-mini', tokens: 'max_completion_tokens', effort: { reasoning_effort: 'high' } },
    { provider: 'azure', model: 'my-deployment', tokens: 'max_tokens', effort: { reasoning_effort: 'high' } },
    { provider: 'openrouter', model: 'openai/gpt-5', tokens: 'max_tokens', effort: { reasoning: { effort: 'high' } } },
    { provider: 'xai', model: 'grok-3-mini', tokens: 'max_tokens', effort: { reasoning_effort: 'high' } },
    { provider: 'groq', model: 'openai/gpt-oss-120b', tokens: 'max_tokens', effort: { reasoning_effort: 'high' } },
    { provider: 'ollama', model: 'gpt-oss:20b', tokens: 'max_tokens', effort: { reasoning_effort: 'high' } },
    { provider: 'llamacpp', model: 'gpt-oss', tokens: 'max_tokens', effort: { reasoning_effort: 'high' } },
    { provider: 'deepseek', model: 'deepseek-reasoner', tokens: 'max_tokens', effort: {} },
    { provider: 'mistral', model: 'magistral-medium-latest', tokens: 'max_tokens', effort: {} },
    { provider: 'bedrock', model: 'openai.gpt-oss-120b-1:0', tokens: 'max_tokens', effort: { reasoning_effort: 'high' } },
  ];

  it.each(table.map((row) => [`${row.provider} ${row.model}`, row] as const))('%s', (_name, row) => {
    const body = buildChatRequestBody(request(row.model), requestShape(PROVIDER_PROFILES[row.provider], row.model));
    expect(body).toEqual({
      model: row.model,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
      [row.tokens]: 64,
      temperature: 0.5,
      ...row.effort,
    });
  });

  it('default effort is never sent, in any spelling', () => {
    for (const id of PROVIDER_IDS) {
      const body = buildChatRequestBody({ model: 'm', messages: [], reasoningEffort: 'default' }, requestShape(PROVIDER_PROFILES[id], 'm'));
      expect(body).not.toHaveProperty('reasoning_effort');
      expect(body).not.toHaveProperty('reasoning');
    }
  });

  it('max_completion_tokens for the OpenAI o-series and gpt-5 family only', () => {
    const openai = PROVIDER_PROFILES.openai;
    for (const model of ['o1', 'o1-mini', 'o3', 'o4-mini-2025-04-16', 'gpt-5', 'gpt-5-mini', 'gpt-5.1', 'gpt-5.2-codex', 'openai/gpt-5'])
      expect(maxTokensParam(openai, model)).toBe('max_completion_tokens');
    for (const model of ['gpt-4o', 'gpt-4.1-mini', 'gpt-3.5-turbo', 'chatgpt-4o-latest', 'llama-3-o1x', 'ollama3'])
      expect(maxTokensParam(openai, model)).toBe('max_tokens');
    expect(maxTokensParam(PROVIDER_PROFILES.generic, 'gpt-5')).toBe('max_tokens');
  });
});

describe('reasoningEffortLevels', () => {
  const levels = (id: ProviderId, model: string) => reasoningEffortLevels(PROVIDER_PROFILES[id], model);
  it('offers default first, and the levels each provider documents', () => {
    expect(levels('openai', 'gpt-5')).toEqual(['default', 'minimal', 'low', 'medium', 'high']);
    expect(levels('openai', 'gpt-5.1')).toEqual(['default', 'none', 'low', 'medium', 'high']);
    expect(levels('openai', 'gpt-5-pro')).toEqual(['default', 'high']);
    expect(levels('openai', 'o3-mini')).toEqual(['default', 'low', 'medium', 'high']);
    expect(levels('openai', 'gpt-4o')).toEqual(['default']);
    expect(levels('xai', 'grok-3-mini')).toEqual(['default', 'low', 'high']);
    expect(levels('xai', 'grok-4')).toEqual(['default']);
    expect(levels('groq', 'openai/gpt-oss-20b')).toEqual(['default', 'low', 'medium', 'high']);
    expect(levels('groq', 'llama-3.3-70b-versatile')).toEqual(['default']);
    expect(levels('deepseek', 'deepseek-reasoner')).toEqual(['default']);
    expect(levels('mistral', 'magistral-small')).toEqual(['default']);
    expect(levels('openrouter', 'anthropic/claude-sonnet-4')).toContain('minimal');
    expect(levels('generic', 'anything')).toEqual(['default', 'low', 'medium', 'high']);
  });
});

describe('detectProvider', () => {
  it.each([
    ['https://api.openai.com/v1', 'openai'],
    ['https://my-res.openai.azure.com/openai/deployments/x', 'azure'],
    ['https://my-res.cognitiveservices.azure.com/openai/v1', 'azure'],
    ['https://proj.services.ai.azure.com/openai/v1', 'azure'],
    ['https://bedrock-runtime.eu-central-1.amazonaws.com/openai/v1', 'bedrock'],
    ['https://openrouter.ai/api/v1', 'openrouter'],
    ['https://api.deepseek.com', 'deepseek'],
    ['https://api.groq.com/openai/v1', 'groq'],
    ['https://api.mistral.ai/v1', 'mistral'],
    ['https://generativelanguage.googleapis.com/v1beta/openai/', 'gemini'],
    ['https://api.x.ai/v1', 'xai'],
    ['https://api.together.xyz/v1', 'together'],
    ['https://api.fireworks.ai/inference/v1', 'fireworks'],
    ['http://127.0.0.1:11434/v1', 'ollama'],
    ['http://localhost:1234/v1', 'lmstudio'],
    ['http://127.0.0.1:8000/v1', 'vllm'],
    ['http://[::1]:8080/v1', 'llamacpp'],
    ['http://0.0.0.0:4000', 'litellm'],
    ['http://127.0.0.1:5000/v1', 'generic'],
    ['https://api.openai.com.evil.example/v1', 'generic'],
    ['not a url', 'generic'],
  ])('%s → %s', (url, id) => {
    expect(detectProvider(url)).toBe(id);
  });
});

describe('parseProviderId', () => {
  it('accepts every id in any case, and common aliases', () => {
    for (const id of PROVIDER_IDS) {
      expect(parseProviderId(id)).toBe(id);
      expect(parseProviderId(` ${id.toUpperCase()} `)).toBe(id);
    }
    expect(parseProviderId('llama.cpp')).toBe('llamacpp');
    expect(parseProviderId('LM-Studio')).toBe('lmstudio');
    expect(parseProviderId('azure-openai')).toBe('azure');
    expect(parseProviderId('google')).toBe('gemini');
  });
  it('rejects anything else', () => {
    for (const raw of ['', 'anthropic', 'open ai', 'toString', '__proto__']) expect(parseProviderId(raw)).toBeUndefined();
  });
});

describe('profiles are data', () => {
  it('every id has a profile with the same id and a docs link', () => {
    expect(PROVIDER_IDS).toHaveLength(17);
    for (const id of PROVIDER_IDS) {
      expect(PROVIDER_PROFILES[id].id).toBe(id);
      expect(PROVIDER_PROFILES[id].docs).toMatch(/^https:\/\//);
    }
  });
  it('a base URL is read without its fragment, trailing slashes and /chat/completions (its query kept once)', () => {
    const chatUrl = (baseUrl: string) => resolveEndpoint({ baseUrl, provider: 'generic' }).chatUrl;
    expect(chatUrl(' https://h/v1/chat/completions/?a=1#x ')).toBe('https://h/v1/chat/completions?a=1');
    expect(chatUrl('https://h/v1/Chat/Completions')).toBe('https://h/v1/chat/completions');
    expect(chatUrl('https://h/v1/chat/completions/chat/completions//')).toBe('https://h/v1/chat/completions');
  });
});
