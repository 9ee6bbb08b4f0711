import { describe, expect, it } from 'vitest';
import { ConfigError, describeConfigProblems, type Config } from '../../src/config/config.js';
import { loadConfig, mergeDotEnv } from '../../src/config/load-config.js';

const KEY = 'sk-DISTINCTIVE-test-key-9f8e7d';

/** The ConfigError thrown by `loadConfig(env)`; fails the test when nothing is thrown. */
function configError(env: Record<string, string | undefined>, flags = {}): ConfigError {
  try {
    loadConfig(env, flags);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('OPENAI_ACP_OLLAMA_NUM_CTX', () => {
  it("takes 0 (the server's own window) and whole numbers of tokens", () => {
    expect(loadConfig({ OPENAI_ACP_OLLAMA_NUM_CTX: '0' }).ollamaNumCtx).toBe(0);
    expect(loadConfig({ OPENAI_ACP_OLLAMA_NUM_CTX: ' 16384 ' }).ollamaNumCtx).toBe(16_384);
  });

  it('defaults to OPENAI_CONTEXT_WINDOW when that is set, so requests are planned for the window asked of Ollama', () => {
    expect(loadConfig({ OPENAI_CONTEXT_WINDOW: '65536' }).ollamaNumCtx).toBe(65_536);
    expect(loadConfig({ OPENAI_CONTEXT_WINDOW: '65536', OPENAI_ACP_OLLAMA_NUM_CTX: '8192' }).ollamaNumCtx).toBe(8_192);
    expect(loadConfig({}).ollamaNumCtx).toBe(32_768);
  });

  it.each(['-1', '8k', '1.5', 'lots'])('refuses %j with a configuration error naming it', (raw) => {
    const error = configError({ OPENAI_ACP_OLLAMA_NUM_CTX: raw });
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]!.variable).toBe('OPENAI_ACP_OLLAMA_NUM_CTX');
    expect(error.message).toContain('OPENAI_ACP_OLLAMA_NUM_CTX');
    expect(error.fallback.ollamaNumCtx).toBe(32_768);
  });
});

describe('OPENAI_ACP_RIPGREP', () => {
  it('passes the value on as written (a path, a name on the PATH, off), unset when not given', () => {
    expect(loadConfig({ OPENAI_ACP_RIPGREP: '/opt/rg/bin/rg' }).ripgrep).toBe('/opt/rg/bin/rg');
    expect(loadConfig({ OPENAI_ACP_RIPGREP: 'off' }).ripgrep).toBe('off');
    expect(loadConfig({}).ripgrep).toBeUndefined();
  });
});

describe('loadConfig defaults', () => {
  it('gives the documented defaults for an empty environment', () => {
    expect(loadConfig({})).toEqual<Config>({
      baseUrl: 'https://api.openai.com/v1',
      chatCompletionsUrl: 'https://api.openai.com/v1/chat/completions',
      apiKey: undefined,
      model: 'gpt-4o',
      models: undefined,
      systemPrompt: undefined,
      maxTokens: undefined,
      temperature: undefined,
      headers: {},
      query: undefined,
      extraBody: undefined,
      maxRetries: 2,
      timeoutMs: 600_000,
      contextWindow: undefined,
      logLevel: 'info',
      logFormat: 'text',
      provider: undefined,
      stateDir: undefined,
      inContainer: undefined,
      endpointConfigured: false,
      modelConfigured: false,
      tools: true,
      maxSteps: 50,
      mcpStartupMs: 10_000,
      mcpToolTimeoutMs: 60_000,
      fetchTimeoutMs: 30_000,
      ripgrep: undefined,
      searchTimeoutMs: 10_000,
      sessionIdleMs: 600_000,
      ollamaNumCtx: 32_768,
      sandbox: undefined,
      sandboxNetwork: false,
      toolEnvKeep: [],
      toolEnvDrop: [],
    });
  });

  it('reads the sandbox and tool environment settings, naming a bad value', () => {
    const config = loadConfig({
      OPENAI_ACP_SANDBOX: 'ON',
      OPENAI_ACP_SANDBOX_NETWORK: 'yes',
      OPENAI_ACP_TOOL_ENV_KEEP: 'GITHUB_TOKEN, NPM_*',
      OPENAI_ACP_TOOL_ENV_DROP: 'HISTFILE',
    });
    expect(config).toMatchObject({ sandbox: 'on', sandboxNetwork: true, toolEnvKeep: ['GITHUB_TOKEN', 'NPM_*'], toolEnvDrop: ['HISTFILE'] });
    expect(loadConfig({ OPENAI_ACP_SANDBOX: 'auto' }).sandbox).toBe('auto');
    expect(loadConfig({ OPENAI_ACP_SANDBOX: 'false' }).sandbox).toBe('off');
    const error = configError({ OPENAI_ACP_SANDBOX: 'maybe', OPENAI_ACP_TOOL_ENV_KEEP: 'A=B' });
    expect(error.problems.map((p) => p.variable)).toEqual(['OPENAI_ACP_SANDBOX', 'OPENAI_ACP_TOOL_ENV_KEEP']);
    expect(error.message).toContain('"maybe" is not on, off or auto');
  });

  it('reads OPENAI_QUERY from OPENAI_QUERY_FILE, and leaves the serve token files to serve', () => {
    const files: Record<string, string> = { '/s/query': 'key=abc\n', '/s/token': 'tok\n' };
    const read = (path: string) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return text;
    };
    expect(loadConfig({ OPENAI_QUERY_FILE: '/s/query', OPENAI_ACP_SERVE_TOKEN_FILE: '/s/missing' }, {}, read).query).toBe('key=abc');
  });

  it('reads OPENAI_ACP_SESSION_IDLE_MS, 0 meaning never, and names a bad value', () => {
    expect(loadConfig({ OPENAI_ACP_SESSION_IDLE_MS: '0' }).sessionIdleMs).toBe(0);
    expect(loadConfig({ OPENAI_ACP_SESSION_IDLE_MS: '30000' }).sessionIdleMs).toBe(30_000);
    expect(configError({ OPENAI_ACP_SESSION_IDLE_MS: '-5' }).problems.map((p) => p.variable)).toEqual(['OPENAI_ACP_SESSION_IDLE_MS']);
  });

  it('reads the tool settings and names a bad value', () => {
    const config = loadConfig({ OPENAI_ACP_TOOLS: 'off', OPENAI_ACP_MAX_STEPS: '7', OPENAI_ACP_MCP_STARTUP_MS: '500', OPENAI_ACP_MCP_TOOL_TIMEOUT_MS: '900' });
    expect([config.tools, config.maxSteps, config.mcpStartupMs, config.mcpToolTimeoutMs]).toEqual([false, 7, 500, 900]);
    const error = configError({ OPENAI_ACP_TOOLS: 'maybe', OPENAI_ACP_MAX_STEPS: '0' });
    expect(error.problems.map((p) => p.variable)).toEqual(['OPENAI_ACP_TOOLS', 'OPENAI_ACP_MAX_STEPS']);
  });

  it('reads OPENAI_PROVIDER case-insensitively and rejects unknown families, naming the accepted ones', () => {
    expect(loadConfig({ OPENAI_PROVIDER: 'Azure' }).provider).toBe('azure');
    const problem = configError({ OPENAI_PROVIDER: 'azur' }).problems[0];
    expect(problem?.variable).toBe('OPENAI_PROVIDER');
    expect(problem?.accepted).toContain('openrouter');
  });

  it('knows whether an endpoint and a model were configured (local discovery runs only when neither endpoint setting is)', () => {
    expect(loadConfig({ OPENAI_API_KEY: 'k' }).endpointConfigured).toBe(true);
    expect(loadConfig({}, { baseUrl: 'http://127.0.0.1:1/v1' }).endpointConfigured).toBe(true);
    expect(loadConfig({ OPENAI_BASE_URL: ' ' }).endpointConfigured).toBe(false);
    expect(loadConfig({}, { model: 'm' }).modelConfigured).toBe(true);
  });

  it('treats empty and blank values as unset, and trims the rest', () => {
    const config = loadConfig({ OPENAI_API_KEY: '  ', OPENAI_MODEL: '', OPENAI_MAX_RETRIES: ' ', OPENAI_SYSTEM_PROMPT: '  Be brief. \n' });
    expect(config.apiKey).toBeUndefined();
    expect(config.model).toBe('gpt-4o');
    expect(config.maxRetries).toBe(2);
    expect(config.systemPrompt).toBe('Be brief.');
  });

  it('reads every variable', () => {
    const config = loadConfig({
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_API_KEY: KEY,
      OPENAI_MODEL: 'qwen3:8b',
      OPENAI_SYSTEM_PROMPT: 'sys',
      OPENAI_MAX_TOKENS: '512',
      OPENAI_TEMPERATURE: '0.7',
      OPENAI_HEADERS: '{"X-Title":"t","X-Count":3,"X-On":true}',
      OPENAI_QUERY: 'a=1',
      OPENAI_MAX_RETRIES: '0',
      OPENAI_TIMEOUT_MS: '300',
      OPENAI_CONTEXT_WINDOW: '128000',
      OPENAI_ACP_LOG: 'DEBUG',
    });
    expect(config).toMatchObject({
      apiKey: KEY,
      model: 'qwen3:8b',
      systemPrompt: 'sys',
      maxTokens: 512,
      temperature: 0.7,
      headers: { 'X-Title': 't', 'X-Count': '3', 'X-On': 'true' },
      maxRetries: 0,
      timeoutMs: 300,
      contextWindow: 128_000,
      logLevel: 'debug',
      chatCompletionsUrl: 'http://127.0.0.1:11434/v1/chat/completions?a=1',
    });
  });

  it('strips a "Bearer " prefix pasted into the key', () => {
    expect(loadConfig({ OPENAI_API_KEY: `Bearer ${KEY}` }).apiKey).toBe(KEY);
  });
});

describe('base URL normalization', () => {
  it.each([
    ['http://h/v1', 'http://h/v1'],
    ['http://h/v1/', 'http://h/v1'],
    ['http://h/v1//', 'http://h/v1'],
    ['http://h/v1/chat/completions', 'http://h/v1'],
    ['http://h/v1/chat/completions/', 'http://h/v1'],
    ['http://h/v1/chat/completions/chat/completions', 'http://h/v1'],
    ['http://h', 'http://h'],
    ['http://h/', 'http://h'],
    ['HTTPS://API.Example.com:8443/Openai/V1/', 'https://api.example.com:8443/Openai/V1'],
    ['https://api.example.com:443/v1', 'https://api.example.com/v1'],
  ])('%s -> %s', (input, baseUrl) => {
    const config = loadConfig({ OPENAI_BASE_URL: input });
    expect(config.baseUrl).toBe(baseUrl);
    expect(config.chatCompletionsUrl).toBe(`${baseUrl}/chat/completions`);
  });

  it('never doubles /chat/completions', () => {
    for (const url of ['http://h/v1/chat/completions', 'http://h/v1/chat/completions/', 'http://h/v1/chat/completions?x=1']) {
      expect(loadConfig({ OPENAI_BASE_URL: url }).chatCompletionsUrl.match(/chat\/completions/g)).toHaveLength(1);
    }
  });

  it('takes OPENAI_QUERY, without a leading "?"', () => {
    const config = loadConfig({ OPENAI_QUERY: '?api-version=2024-10-21' });
    expect(config.query).toBe('api-version=2024-10-21');
    expect(config.chatCompletionsUrl).toBe('https://api.openai.com/v1/chat/completions?api-version=2024-10-21');
  });

  it('folds the base URL query into query, combined with OPENAI_QUERY (which wins per key)', () => {
    const config = loadConfig({
      OPENAI_BASE_URL: 'https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=old&x=1',
      OPENAI_QUERY: 'api-version=2024-10-21&y=2',
    });
    expect(config.baseUrl).toBe('https://r.openai.azure.com/openai/deployments/d');
    expect(config.query).toBe('x=1&api-version=2024-10-21&y=2');
    expect(config.chatCompletionsUrl).toBe('https://r.openai.azure.com/openai/deployments/d/chat/completions?x=1&api-version=2024-10-21&y=2');
  });

  it('keeps only the base URL query when OPENAI_QUERY is unset', () => {
    expect(loadConfig({ OPENAI_BASE_URL: 'http://h/v1/?api-version=1' }).chatCompletionsUrl).toBe('http://h/v1/chat/completions?api-version=1');
  });

  it.each([
    ['localhost:11434/v1', /not an http/],
    ['127.0.0.1:8080', /not a URL|not an http/],
    ['ftp://h/v1', /not an http/],
    ['not a url', /is not a URL/],
    ['http://h/v1#frag', /fragment/],
  ])('rejects %s', (url, problem) => {
    const [only] = configError({ OPENAI_BASE_URL: url }).problems;
    expect(only?.variable).toBe('OPENAI_BASE_URL');
    expect(only?.problem).toMatch(problem);
    expect(only?.accepted).toMatch(/http:\/\/ or https:\/\//);
  });

  it('rejects credentials in the base URL without echoing them', () => {
    const error = configError({ OPENAI_BASE_URL: `https://user:${KEY}@h/v1` });
    expect(error.problems[0]?.problem).toMatch(/user name or password/);
    expect(error.message).not.toContain(KEY);
  });
});

describe('invalid values', () => {
  it.each([
    ['OPENAI_MAX_TOKENS', '0', /less than 1/],
    ['OPENAI_MAX_TOKENS', '1.5', /not a whole number/],
    ['OPENAI_MAX_TOKENS', 'many', /not a number/],
    ['OPENAI_TEMPERATURE', 'hot', /"hot" is not a number/],
    ['OPENAI_TEMPERATURE', '2.5', /more than 2/],
    ['OPENAI_TEMPERATURE', '-0.1', /negative/],
    ['OPENAI_MAX_RETRIES', '-1', /less than 0/],
    ['OPENAI_TIMEOUT_MS', '0', /less than 1/],
    ['OPENAI_TIMEOUT_MS', '2147483648', /more than 2147483647/],
    ['OPENAI_TIMEOUT_MS', '10s', /not a number/],
    ['OPENAI_CONTEXT_WINDOW', '128k', /not a number/],
    ['OPENAI_ACP_LOG', 'verbose', /not a log level/],
    ['OPENAI_QUERY', 'a=%zz', /%/],
    ['OPENAI_QUERY', 'a=1 b=2', /spaces/],
    ['OPENAI_HEADERS', '[1,2]', /not a JSON object/],
  ])('%s=%s is named with its problem', (variable, value, problem) => {
    const error = configError({ [variable]: value });
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatchObject({ variable, problem: expect.stringMatching(problem) });
    expect(error.message).toContain(variable);
  });

  it('describes a problem as one line with the accepted form', () => {
    const error = configError({ OPENAI_TEMPERATURE: 'hot' });
    expect(describeConfigProblems(error.problems)).toBe('OPENAI_TEMPERATURE: "hot" is not a number; expected a number from 0 to 2.');
  });

  it('lists several problems at once, one line each', () => {
    const error = configError({ OPENAI_TEMPERATURE: 'hot', OPENAI_MAX_TOKENS: 'x', OPENAI_ACP_LOG: 'loud' });
    expect(error.problems.map((p) => p.variable)).toEqual(['OPENAI_MAX_TOKENS', 'OPENAI_TEMPERATURE', 'OPENAI_ACP_LOG']);
    expect(describeConfigProblems(error.problems).split('\n')).toHaveLength(3);
  });

  it('keeps valid values in the fallback and defaults the invalid ones', () => {
    const error = configError({
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_MODEL: 'llama3.2',
      OPENAI_API_KEY: KEY,
      OPENAI_TEMPERATURE: 'hot',
      OPENAI_TIMEOUT_MS: 'soon',
      OPENAI_MAX_TOKENS: '100',
      OPENAI_HEADERS: '{"X-Good":"yes","X-Bad":null}',
    });
    expect(error.fallback).toMatchObject({
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'llama3.2',
      apiKey: KEY,
      temperature: undefined,
      timeoutMs: 600_000,
      maxTokens: 100,
      headers: { 'X-Good': 'yes' },
    });
    expect(error.problems.map((p) => p.variable)).toEqual(['OPENAI_TEMPERATURE', 'OPENAI_HEADERS', 'OPENAI_TIMEOUT_MS']);
  });

  it('falls back to the default base URL when it is invalid', () => {
    expect(configError({ OPENAI_BASE_URL: 'nope' }).fallback.chatCompletionsUrl).toBe('https://api.openai.com/v1/chat/completions');
  });
});

describe('secrets never appear in errors', () => {
  it.each([
    ['not JSON', `{"api-key": ${KEY}}`, /not valid JSON/],
    ['a nested object', `{"api-key": {"v": "${KEY}"}}`, /header "api-key" must be a string, not an object/],
    ['an array value', `{"api-key": ["${KEY}"]}`, /must be a string, not an array/],
    ['a bad header name', `{"${KEY} x": "v"}`, /not a valid HTTP header name/],
    ['a line break in a value', `{"api-key": "${KEY}\\n"}`, /cannot be sent/],
    ['a JSON string', JSON.stringify(KEY), /not a JSON object/],
  ])('OPENAI_HEADERS with %s', (_what, value, problem) => {
    const error = configError({ OPENAI_HEADERS: value });
    expect(error.problems[0]).toMatchObject({ variable: 'OPENAI_HEADERS', problem: expect.stringMatching(problem) });
    expect(error.message).not.toContain(KEY);
    expect(JSON.stringify(error.problems)).not.toContain(KEY);
  });

  it('OPENAI_API_KEY with a control character', () => {
    const error = configError({ OPENAI_API_KEY: `${KEY}\u0001x` });
    expect(error.problems[0]?.variable).toBe('OPENAI_API_KEY');
    expect(error.message).not.toContain(KEY);
    expect(error.fallback.apiKey).toBeUndefined();
  });

  it('a secret in the base URL query is not echoed', () => {
    const error = configError({ OPENAI_BASE_URL: `ftp://h/v1?key=${KEY}` });
    expect(error.message).not.toContain(KEY);
  });
});

describe('flags', () => {
  it('override the environment', () => {
    const config = loadConfig(
      { OPENAI_BASE_URL: 'http://env/v1', OPENAI_MODEL: 'env-model', OPENAI_SYSTEM_PROMPT: 'env prompt' },
      { baseUrl: 'http://flag/v1/', model: 'flag-model', systemPrompt: 'flag prompt' },
    );
    expect(config).toMatchObject({ baseUrl: 'http://flag/v1', model: 'flag-model', systemPrompt: 'flag prompt' });
  });

  it('fall back to the environment when empty', () => {
    expect(loadConfig({ OPENAI_MODEL: 'env-model' }, { model: ' ' }).model).toBe('env-model');
  });

  it('are named in problems by flag', () => {
    const error = configError({ OPENAI_BASE_URL: 'http://fine/v1' }, { baseUrl: 'nope' });
    expect(error.problems[0]?.variable).toBe('--base-url');
  });
});

describe('mergeDotEnv', () => {
  it('puts .env values under the real environment', () => {
    const merged = mergeDotEnv('OPENAI_MODEL=file-model\nOPENAI_API_KEY="file-key"\n# comment\nOPENAI_ACP_LOG=debug\n', {
      OPENAI_MODEL: 'env-model',
      OPENAI_ACP_LOG: undefined,
      PATH: '/bin',
    });
    expect(merged).toMatchObject({ OPENAI_MODEL: 'env-model', OPENAI_API_KEY: 'file-key', OPENAI_ACP_LOG: 'debug', PATH: '/bin' });
  });

  it('lets a variable set to empty in the environment win (like dotenv)', () => {
    expect(mergeDotEnv('OPENAI_API_KEY=file-key', { OPENAI_API_KEY: '' }).OPENAI_API_KEY).toBe('');
  });

  it('does not modify its input and tolerates missing or malformed text', () => {
    const env = { A: '1' };
    expect(mergeDotEnv(undefined, env)).toEqual({ A: '1' });
    expect(mergeDotEnv('=\n"unterminated\n\u0000garbage = = =\nB', env)).toMatchObject({ A: '1' });
    expect(env).toEqual({ A: '1' });
  });

  it('feeds loadConfig', () => {
    expect(loadConfig(mergeDotEnv('OPENAI_MAX_TOKENS=64', {})).maxTokens).toBe(64);
  });
});

describe('OPENAI_MODELS', () => {
  it('reads a comma list or a JSON array, trimmed and deduplicated', () => {
    expect(loadConfig({ OPENAI_MODELS: ' a, b ,,a ' }).models).toEqual(['a', 'b']);
    expect(loadConfig({ OPENAI_MODELS: '["x", " y ", "x"]' }).models).toEqual(['x', 'y']);
    expect(loadConfig({ OPENAI_MODELS: ' , ' }).models).toBeUndefined();
  });

  it('rejects a JSON array that is malformed or not of strings', () => {
    for (const raw of ['["a",', '[1, 2]']) {
      const error = configError({ OPENAI_MODELS: raw });
      expect(error.problems.map((p) => p.variable)).toEqual(['OPENAI_MODELS']);
    }
  });
});
