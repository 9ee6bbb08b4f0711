/**
 * `openai-acp doctor`: two runs spawn the built CLI (a healthy endpoint, a silent one: the exit
 * code and a process that ends with sockets open); the others run the CLI's own steps in this
 * process (its argument parser, then `runDoctor` with the clean environment of a temp home, in that
 * home: `runCliInProcess`), which print the same report without a Node start per case.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkLine, runCli, runCliInProcess, tempHome } from '../helpers/doctor-run-cli.js';
import { chunk, fakeServerPool, httpError, streamText } from '../helpers/fake-openai.js';
import { startFakeOllama } from '../helpers/fake-ollama.js';

const KEY = 'sk-test-DISTINCTIVE-doctor-key-0123456789';
const fake = fakeServerPool();

function doctor(env: Record<string, string>, args: string[] = []) {
  return runCliInProcess(['doctor', '--timeout-ms', '3000', ...args], { home: tempHome(), env });
}

/** A port that was listening a moment ago and is closed now. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('openai-acp doctor', () => {
  it('passes every check against a healthy endpoint, masking the key (the built CLI)', async () => {
    const server = await fake();
    const run = await runCli(['doctor', '--timeout-ms', '3000'], {
      home: tempHome(),
      env: {
        OPENAI_BASE_URL: server.baseUrl,
        OPENAI_MODEL: 'test-model',
        OPENAI_API_KEY: KEY,
        OPENAI_HEADERS: '{"X-Title":"visible-title-value"}',
      },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`OPENAI_API_KEY: set (${KEY.length} characters)`);
    expect(run.stdout).toContain('X-Title: set (19 characters)');
    expect(run.stdout).not.toContain(KEY.slice(0, 8));
    expect(run.stdout).not.toContain(KEY.slice(-6));
    expect(run.stdout).not.toContain('visible-title-value');
    expect(checkLine(run.stdout, 'configuration is valid')).toMatch(/^✓/);
    expect(checkLine(run.stdout, 'endpoint answers')).toMatch(/^✓ endpoint answers: HTTP 200 from http:\/\/127\.0\.0\.1:\d+\/v1\/models/);
    expect(checkLine(run.stdout, 'authentication accepted')).toMatch(/^✓ .*the key was accepted/);
    expect(checkLine(run.stdout, 'model list (GET /models)')).toMatch(/^✓ .*1 model, including test-model/);
    expect(checkLine(run.stdout, 'one-token streamed completion')).toMatch(/^✓ .*test-model answered/);
    expect(checkLine(run.stdout, 'usage reported')).toMatch(/^✓ .*7 prompt \+ 2 completion tokens/);
    expect(checkLine(run.stdout, 'reasoning effort accepted')).toMatch(/^✓ .*reasoning_effort=low was accepted/);
    expect(run.stdout).toContain('Result: the agent would work');
    // The completion asked for one token, through the shared request path (with usage requested).
    const first = server.requests[0]!;
    expect(first.body).toMatchObject({ model: 'test-model', stream: true, max_tokens: 1, stream_options: { include_usage: true } });
    expect(first.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(server.requests[1]!.body['reasoning_effort']).toBe('low');
  });

  it('warns (⚠, not ✗) about a missing model and missing usage, and still exits 0', async () => {
    const server = await fake((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${chunk({ content: 'O' }, 'length')}data: [DONE]\n\n`);
    });
    server.setModels({ object: 'list', data: [{ id: 'other-model' }, { id: 'third-model' }] });
    const run = await doctor({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model' });
    expect(run.code).toBe(0);
    expect(checkLine(run.stdout, 'authentication accepted')).toMatch(/^✓ .*no key is set/);
    expect(checkLine(run.stdout, 'model list (GET /models)')).toMatch(/^⚠ .*2 models, but not test-model/);
    expect(run.stdout).toMatch(/fix: set OPENAI_MODEL to one of other-model, third-model/);
    expect(checkLine(run.stdout, 'one-token streamed completion')).toMatch(/^✓ .*finish reason: length/);
    expect(checkLine(run.stdout, 'usage reported')).toMatch(/^⚠ usage reported: the stream carried no token counts/);
    expect(run.stdout).toContain('Result: the agent would work (the ⚠ lines are worth a look)');
    expect(run.stdout).not.toMatch(/^\s*✗/m);
  });

  it('reports a refused key (HTTP 401) with a fix, without echoing any part of the key', async () => {
    const body = readFileSync(new URL('../fixtures/providers/http-errors/azure__401_invalid_subscription_key.body', import.meta.url), 'utf8');
    const echo = {
      error: {
        message: `Incorrect API key provided: sk-test-****************************6789. You can find your API key at https://x.invalid.`,
        code: 'invalid_api_key',
      },
    };
    const server = await fake(httpError(401, echo));
    server.setModels(JSON.parse(body), 401);
    const run = await doctor({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_API_KEY: KEY });
    expect(run.code).toBe(1);
    expect(checkLine(run.stdout, 'endpoint answers')).toMatch(/^✓ endpoint answers: HTTP 401/);
    expect(checkLine(run.stdout, 'authentication accepted')).toMatch(/^✗ authentication accepted: the endpoint refused the key \(HTTP 401\)/);
    expect(run.stdout).toMatch(/fix: check the key in OPENAI_API_KEY/);
    expect(checkLine(run.stdout, 'one-token streamed completion')).toMatch(/^✗ .*HTTP 401/);
    expect(checkLine(run.stdout, 'usage reported')).toMatch(/^– /);
    expect(checkLine(run.stdout, 'reasoning effort accepted')).toMatch(/^– /);
    expect(run.stdout).toContain('Result: the agent would not work');
    for (const piece of [KEY, KEY.slice(0, 8), '6789', '****']) expect(run.stdout).not.toContain(piece);
  });

  it('says how to set a key when none is set and the endpoint wants one', async () => {
    const server = await fake(httpError(401, { error: { message: 'Missing bearer authentication' } }));
    server.setModels({ error: { message: 'Missing bearer authentication' } }, 401);
    const run = await doctor({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model' });
    expect(run.code).toBe(1);
    expect(checkLine(run.stdout, 'authentication accepted')).toMatch(/^✗ .*the endpoint needs a key; OPENAI_API_KEY is not set \(HTTP 401\)/);
    expect(checkLine(run.stdout, 'one-token streamed completion')).toMatch(/the endpoint needs a key; OPENAI_API_KEY is not set/);
    expect(run.stdout).toMatch(/fix: no API key is set: set OPENAI_API_KEY/);
  });

  it('masks secret query parameters in every URL it shows', async () => {
    const server = await fake(httpError(404, { error: { message: 'The model `test-model` does not exist' } }));
    const run = await doctor({ OPENAI_BASE_URL: `${server.baseUrl}?api-version=2024-10-21&key=QUERY-SECRET-0123456789`, OPENAI_MODEL: 'test-model' });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('api-version=2024-10-21&key=<set (23 characters)>');
    expect(checkLine(run.stdout, 'one-token streamed completion')).toMatch(/^✗ .*HTTP 404/);
    expect(run.stdout).toMatch(/fix: check OPENAI_MODEL \(now test-model\); openai-acp models lists/);
    expect(run.stdout).not.toContain('QUERY-SECRET');
    expect(run.stdout).not.toContain('6789');
  });

  it('reports an endpoint that is not running (a port just closed)', async () => {
    const port = await closedPort();
    const run = await doctor({ OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_MODEL: 'test-model' });
    expect(run.code).toBe(1);
    expect(checkLine(run.stdout, 'endpoint answers')).toBe(`✗ endpoint answers: cannot connect to http://127.0.0.1:${port}/v1/models (ECONNREFUSED)`);
    expect(run.stdout).toMatch(/fix: start the server, or point OPENAI_BASE_URL at the right address/);
    expect(checkLine(run.stdout, 'authentication accepted')).toMatch(/^– .*did not answer/);
    expect(checkLine(run.stdout, 'model list (GET /models)')).toMatch(/^– /);
    expect(checkLine(run.stdout, 'one-token streamed completion')).toMatch(/^✗ .*not attempted/);
  });

  it('an Ollama that is not running and no model set: the model row says the endpoint did not answer, not that it lists no model', async () => {
    const port = await closedPort();
    const run = await doctor({ OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_PROVIDER: 'ollama' });
    expect(run.code).toBe(1);
    const model = run.stdout.split('\n').find((line) => /^\s+model\s/.test(line))!;
    expect(model).toMatch(/OPENAI_MODEL is not set and the endpoint did not answer, so the stand-in \S+ would be sent: start the server, or set OPENAI_MODEL/);
    expect(run.stdout).not.toContain('lists no model');
    expect(checkLine(run.stdout, 'endpoint answers')).toMatch(/^✗ .*ECONNREFUSED/);
  });

  it('never hangs: a silent endpoint fails within the timeout, and the built CLI exits', async () => {
    const server = await fake(() => undefined);
    server.setModels({ object: 'list', data: [{ id: 'test-model' }] });
    const run = await runCli(['doctor', '--timeout-ms', '600'], { home: tempHome(), env: { OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model' } });
    // The endpoint never answers: exit code 1 (not the helper's SIGKILL) shows the checks' bound ended it.
    expect(run.code).toBe(1);
    expect(checkLine(run.stdout, 'one-token streamed completion')).toMatch(/^✗ .*No data from .* for 600 ms/);
    expect(run.stdout).toMatch(/fix: the endpoint is slow or stuck/);
  });

  it('reports a reasoning effort the endpoint refuses, after the adaptive correction drops it', async () => {
    const server = await fake((req, res, body) => {
      if ('reasoning_effort' in body)
        return httpError(400, {
          error: { message: 'Unrecognized request argument supplied: reasoning_effort', type: 'invalid_request_error', param: null, code: null },
        })(req, res, body);
      return streamText(['O'])(req, res, body);
    });
    const run = await doctor({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model' });
    expect(run.code).toBe(0);
    expect(checkLine(run.stdout, 'reasoning effort accepted')).toMatch(/^⚠ reasoning effort accepted: reasoning_effort=low was refused/);
    expect(run.stdout).toMatch(/fix: leave the reasoning-effort option at "default"/);
  });

  it('stops at an invalid configuration, naming the setting', async () => {
    const run = await doctor({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', OPENAI_TEMPERATURE: 'hot' });
    expect(run.code).toBe(1);
    expect(checkLine(run.stdout, 'configuration is valid')).toMatch(/^✗ .*OPENAI_TEMPERATURE: "hot" is not a number/);
  });

  it('takes --base-url and --model like the agent', async () => {
    const server = await fake();
    const run = await runCliInProcess(['doctor', '--base-url', server.baseUrl, '--model=test-model'], { home: tempHome() });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`base URL        ${server.baseUrl}`);
  });

  it('checks every endpoint of a config file, and fails when one does not work', async () => {
    const server = await fake();
    const port = await closedPort();
    const home = tempHome();
    mkdirSync(join(home, '.config', 'openai-acp'), { recursive: true });
    const file = join(home, '.config', 'openai-acp', 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        providers: [
          { id: 'local', baseUrl: server.baseUrl, apiKeyEnv: 'LOCAL_KEY' },
          { id: 'down', baseUrl: `http://127.0.0.1:${port}/v1`, models: ['gone-model'] },
        ],
        model: 'local/test-model',
      }),
    );
    const run = await runCliInProcess(['doctor', '--timeout-ms', '3000'], { home, env: { LOCAL_KEY: KEY } });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`config file       ${file}\n`);
    expect(run.stdout).toContain('default model     local/test-model');
    expect(run.stdout).toMatch(new RegExp(`API key +set \\(${KEY.length} characters\\), sent as Authorization: Bearer`));
    const [, local, down] = run.stdout.split(/\n {2}endpoint "(?:local|down)"\n/);
    expect(checkLine(local!, 'one-token streamed completion')).toMatch(/^✓ .*test-model answered/);
    expect(checkLine(down!, 'endpoint answers')).toMatch(/^✗ .*ECONNREFUSED/);
    expect(down).toMatch(/fix: start the server, or point "baseUrl" of provider "down" in .*config\.json at the right address/);
    expect(server.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(run.stdout).not.toContain(KEY);
  });

  it('says so when the config file is malformed', async () => {
    const home = tempHome();
    mkdirSync(join(home, '.config', 'openai-acp'), { recursive: true });
    writeFileSync(join(home, '.config', 'openai-acp', 'config.json'), '{"providers": [{"id": "x"}]}');
    const run = await runCliInProcess(['doctor'], { home });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('(not used: see the configuration check)');
    expect(checkLine(run.stdout, 'configuration is valid')).toMatch(/^✗ .*providers\[0\]\.baseUrl/);
  });
});

describe('openai-acp doctor, first-run help', () => {
  it('names the model it picked, and why, when OPENAI_MODEL is unset on a self-hosted server', async () => {
    const server = await fake(streamText(['OK']));
    server.setModels({ object: 'list', data: [{ id: 'nomic-embed-text' }, { id: 'qwen3:8b' }] });
    const run = await doctor({ OPENAI_BASE_URL: server.baseUrl });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/model\s+qwen3:8b \(the first chat model the endpoint lists, as OPENAI_MODEL is not set/);
    expect(server.requests[0]!.body['model']).toBe('qwen3:8b');
    expect(checkLine(run.stdout, 'model list (GET /models)')).toMatch(/^✓ .*including qwen3:8b/);
  });

  it('says "add /v1" when the base URL lacks it and <base>/v1/models answers', async () => {
    const server = await fake(httpError(404, '404 page not found'));
    const base = server.baseUrl.replace(/\/v1$/, '');
    const run = await doctor({ OPENAI_BASE_URL: base, OPENAI_MODEL: 'test-model' });
    expect(run.code).toBe(1);
    expect(checkLine(run.stdout, 'one-token streamed completion')).toContain('add /v1 to OPENAI_BASE_URL');
    expect(run.stdout).toContain(`fix: add /v1 to OPENAI_BASE_URL: set it to ${base}/v1`);
  });

  it('prints what the checks noted as words at the indentation of the checks, never a raw log line; names where the provider was set', async () => {
    const ollama = await startFakeOllama({ steps: [{ text: 'OK' }] });
    try {
      const run = await doctor({ OPENAI_BASE_URL: ollama.baseUrl, OPENAI_MODEL: 'qwen3:8b', OPENAI_PROVIDER: 'ollama' });
      expect(run.code).toBe(0);
      const notes = run.stdout.split('\n').filter((line) => line.includes('note:'));
      expect(notes.length).toBeGreaterThan(0);
      for (const note of notes) {
        expect(note).toMatch(/^ {2}note: \S/);
        expect(note).not.toMatch(/[{}]/);
      }
      expect(run.stdout).toContain('    provider        Ollama (ollama, set by OPENAI_PROVIDER)');
      expect(run.stdout).not.toMatch(/^\{/m);
    } finally {
      await ollama.close();
    }
  });

  it('repeats the settings it ran with in the closing "Try it" line, never a secret', async () => {
    const server = await fake();
    const run = await doctor({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_API_KEY: KEY, OPENAI_EXTRA_BODY: '{"seed": 1}' });
    expect(run.code).toBe(0);
    const line = run.stdout.split('\n').find((l) => l.includes('Try it:'))!;
    expect(line).toContain(`Try it: OPENAI_BASE_URL=${server.baseUrl} OPENAI_MODEL=test-model npx --yes acpx@`);
    expect(line).toContain('(with OPENAI_API_KEY, OPENAI_EXTRA_BODY set as now; not repeated here)');
    expect(line).not.toContain(KEY.slice(0, 8));
  });
});

describe('openai-acp doctor, where settings come from', () => {
  it("does not send a project .env's key to a base URL that .env does not name, and says so", async () => {
    const home = tempHome();
    writeFileSync(join(home, '.env'), `OPENAI_API_KEY=${KEY}\nOPENAI_MODEL=gpt-4o-mini\n`);
    const run = await runCliInProcess(['doctor', '--timeout-ms', '3000'], { home });
    expect(run.stdout).toContain(`OPENAI_API_KEY in ${join(home, '.env')} is not used`);
    expect(run.stdout).toContain(`OPENAI_MODEL from .env (${join(home, '.env')})`);
    // No endpoint of the environment: the key did not make one for api.openai.com.
    expect(run.stdout).not.toContain('endpoint "default"');
    expect(run.stdout).not.toContain('api.openai.com/v1/chat');
    expect(run.stdout).toMatch(/local search {6}found /);
    expect(run.stdout).not.toContain(KEY.slice(-8));
  });

  it("uses a .env key for the base URL in the same file, naming each setting's source", async () => {
    const server = await fake();
    const home = tempHome();
    writeFileSync(join(home, '.env'), `OPENAI_BASE_URL=${server.baseUrl}\nOPENAI_API_KEY=${KEY}\n`);
    const run = await runCliInProcess(['doctor', '--timeout-ms', '3000', '--model', 'test-model'], { home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`OPENAI_API_KEY from .env (${join(home, '.env')})`);
    expect(run.stdout).toContain(`OPENAI_BASE_URL from .env (${join(home, '.env')})`);
    expect(run.stdout).toContain('OPENAI_MODEL from --model');
    expect(server.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(run.stdout).not.toContain(KEY.slice(-8));
  });
});
