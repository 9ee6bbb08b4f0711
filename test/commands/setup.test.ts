import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLine, runCli, runCliInProcess, tempHome } from '../helpers/doctor-run-cli.js';
import { fakeServerPool } from '../helpers/fake-openai.js';

const fake = fakeServerPool();

const configPath = (home: string) => join(home, '.config', 'openai-acp', 'config.json');
const readConfig = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const mode = (path: string) => statSync(path).mode & 0o777;

// The first case runs the built CLI (stdin piped, nothing on stderr, then doctor on what it wrote); the
// others run the CLI's steps in this process (runCliInProcess), which write the same file and text.
describe('openai-acp setup', () => {
  it('writes the config file (0600, in a 0700 directory) from answers piped in, with the model from the live list', async () => {
    const server = await fake();
    server.setModels({ object: 'list', data: [{ id: 'text-embedding-3-small' }, { id: 'test-model', context_length: 32768 }] });
    const home = tempHome();
    const run = await runCli(['setup'], { home, env: { MY_VLLM_KEY: 'sk-from-variable-0123456789' }, input: `vllm\n${server.baseUrl}\nMY_VLLM_KEY\n2\n` });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const path = configPath(home);
    expect(readConfig(path)).toEqual({
      providers: [{ id: 'vllm', provider: 'vllm', baseUrl: server.baseUrl, apiKeyEnv: 'MY_VLLM_KEY' }],
      model: 'vllm/test-model',
    });
    expect(mode(path)).toBe(0o600);
    expect(mode(join(home, '.config', 'openai-acp'))).toBe(0o700);
    // The live list was shown, read with the key the variable holds, and the result is explained.
    expect(run.stdout).toMatch(/2\) test-model\s+\(32768 tokens context\)/);
    expect(server.modelRequests).toBe(1);
    expect(run.stdout).toContain(`Wrote ${path}`);
    expect(run.stdout).toContain('openai-acp doctor');
    expect(run.stdout).not.toContain('sk-from-variable');

    // doctor reads what setup wrote and finds the endpoint working.
    const doctor = await runCli(['doctor'], { home, env: { MY_VLLM_KEY: 'sk-from-variable-0123456789' } });
    expect(doctor.code).toBe(0);
    expect(checkLine(doctor.stdout, 'one-token streamed completion')).toMatch(/^✓ .*test-model/);
    expect(server.requests[0]!.headers['authorization']).toBe('Bearer sk-from-variable-0123456789');
  });

  it('aborts on end of input with exit 1 and writes nothing', async () => {
    const server = await fake();
    const home = tempHome();
    for (const input of ['', 'openrouter\n', `generic\n${server.baseUrl}\n`, `generic\n${server.baseUrl}\nKEY_VAR\n`]) {
      const run = await runCliInProcess(['setup'], { home, input });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('nothing was written');
      expect(existsSync(configPath(home))).toBe(false);
      expect(existsSync(join(home, '.config', 'openai-acp'))).toBe(false);
    }
  });

  it('explains bad answers and asks again, and never echoes a typed key', async () => {
    const server = await fake();
    const home = tempHome();
    const answers = [
      '99',
      'not-a-provider',
      '',
      'generic',
      'ftp://example.com/v1',
      '',
      server.baseUrl,
      'has two words',
      'sk-typed-secret-key-987654',
      '7',
      'two words',
      '1',
    ];
    const run = await runCliInProcess(['setup'], { home, input: `${answers.join('\n')}\n` });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/"99" is not one of the providers/);
    expect(run.stdout).toMatch(/"not-a-provider" is not one of the providers/);
    expect(run.stdout).toMatch(/Please choose a provider/);
    expect(run.stdout).toMatch(/That URL .*is not an http:\/\/ or https:\/\/ URL/);
    expect(run.stdout).toMatch(/Please type the base URL/);
    expect(run.stdout).toMatch(/neither a variable name .* nor a key/);
    expect(run.stdout).toMatch(/Please type a number from 1 to 1, or a model id/);
    expect(run.stdout).toMatch(/A model id is one word without spaces/);
    expect(run.stdout).not.toContain('sk-typed-secret');
    expect(readConfig(configPath(home))).toEqual({
      providers: [{ id: 'generic', provider: 'generic', baseUrl: server.baseUrl, apiKey: 'sk-typed-secret-key-987654' }],
      model: 'generic/test-model',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('falls back to typing the model id when the list cannot be read', async () => {
    const server = await fake();
    server.setModels({ error: { message: 'no list here' } }, 404);
    const home = tempHome();
    const run = await runCliInProcess(['setup'], { home, input: `ollama\n${server.baseUrl}\n\n\nmy-model:latest\n` });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Could not read the model list: .*HTTP 404/);
    expect(run.stdout).toMatch(/Please type the model id/);
    expect(readConfig(configPath(home))).toEqual({
      providers: [{ id: 'ollama', provider: 'ollama', baseUrl: server.baseUrl }],
      model: 'ollama/my-model:latest',
    });
  });

  it('offers the profile defaults on empty answers and keeps other providers of an existing file', async () => {
    const server = await fake();
    const path = join(tempHome(), 'nested', 'dir', 'openai-acp.json');
    mkdirSync(join(path, '..'), { recursive: true });
    const other = { id: 'work', baseUrl: 'https://llm.example.com/v1', apiKeyEnv: 'WORK_KEY' };
    writeFileSync(path, JSON.stringify({ providers: [other, { id: 'openrouter', baseUrl: 'https://old.example.com/v1' }], model: 'work/x' }));
    const run = await runCliInProcess(['setup'], {
      home: tempHome(),
      env: { OPENAI_ACP_CONFIG: path, OPENAI_BASE_URL: server.baseUrl },
      input: `9\n${server.baseUrl}\n\n1\n`,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Base URL [https://openrouter.ai/api/v1]');
    expect(run.stdout).toContain('[OPENROUTER_API_KEY]');
    expect(run.stdout).toMatch(/replacing the earlier "openrouter" provider; 1 other provider kept/);
    expect(run.stdout).toMatch(/Set OPENROUTER_API_KEY in the environment/);
    expect(run.stdout).toMatch(/OPENAI_BASE_URL or OPENAI_API_KEY is set here/);
    expect(readConfig(path)).toEqual({
      providers: [{ id: 'openrouter', provider: 'openrouter', baseUrl: server.baseUrl, apiKeyEnv: 'OPENROUTER_API_KEY' }, other],
      model: 'openrouter/test-model',
    });
    expect(mode(path)).toBe(0o600);
  });

  it('refuses to touch an existing file that is not a config file', async () => {
    const home = tempHome();
    mkdirSync(join(home, '.config', 'openai-acp'), { recursive: true });
    writeFileSync(configPath(home), '{ not json');
    const run = await runCliInProcess(['setup'], { home, input: 'ollama\n' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/is not a config file .*fix or move it/);
    expect(readFileSync(configPath(home), 'utf8')).toBe('{ not json');
  });
});
