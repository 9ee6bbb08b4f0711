/**
 * End to end, what a new user meets on the first run: the built CLI against a loopback
 * self-hosted-style server with no OPENAI_MODEL, extra request fields, JSON logs, a base URL
 * without /v1, and a start by hand in a terminal.
 */
import { spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { TTY_NOTICE } from '../../src/cli-help.js';
import { fakeServerPool, httpError, streamText } from '../helpers/fake-openai.js';
import { CLI, spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';
import { cleanEnv, tempHome } from '../helpers/doctor-run-cli.js';

const fake = fakeServerPool();
let agent: AgentProcess | undefined;
afterEach(() => {
  agent?.kill();
  agent = undefined;
});

const prompt = (a: AgentProcess, sessionId: string, text = 'hi') => a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });

describe('a self-hosted server without OPENAI_MODEL', () => {
  it('chats with the first chat model the server lists, sending OPENAI_EXTRA_BODY', async () => {
    const server = await fake(streamText(['Olá']));
    server.setModels({ object: 'list', data: [{ id: 'nomic-embed-text' }, { id: 'qwen3:8b' }, { id: 'qwen3:14b' }] });
    agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_EXTRA_BODY: '{"options":{"num_ctx":8192},"model":"ignored"}' });
    const sessionId = await agent.start();
    const answer = await prompt(agent, sessionId);
    expect(answer.result.stopReason).toBe('end_turn');
    expect(agent.text(sessionId)).toBe('Olá');
    expect(server.requests[0]!.body).toMatchObject({ model: 'qwen3:8b', stream: true, options: { num_ctx: 8192 } });
  });

  it('explains an OPENAI_EXTRA_BODY that is not a JSON object at every prompt', async () => {
    const server = await fake();
    agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'm', OPENAI_EXTRA_BODY: '[1]' });
    const sessionId = await agent.start();
    expect((await prompt(agent, sessionId)).error.message).toContain('OPENAI_EXTRA_BODY: is JSON array, not an object');
    expect(agent.stderr()).toContain('OPENAI_EXTRA_BODY');
    expect(server.requests).toHaveLength(0);
  });
});

describe('the context window from the server', () => {
  it('Ollama /api/show gives usage_update its size without OPENAI_CONTEXT_WINDOW (on /v1: OPENAI_ACP_OLLAMA_NUM_CTX=0)', async () => {
    const chat = streamText(['Hi']);
    const server = await fake((req, res, body) => {
      if (req.url === '/api/show') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ model_info: { 'qwen3.context_length': 40960 }, parameters: 'num_ctx 16384' }));
        return;
      }
      return chat(req, res, body);
    });
    server.setModels({ object: 'list', data: [{ id: 'qwen3:8b' }] });
    agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_PROVIDER: 'ollama', OPENAI_ACP_OLLAMA_NUM_CTX: '0' });
    const sessionId = await agent.start();
    await prompt(agent, sessionId);
    const usage = agent.updates(sessionId).filter((update) => update.sessionUpdate === 'usage_update');
    // The meter after session/new, then the request's.
    expect(usage).toEqual([expect.objectContaining({ used: 0, size: 16384 }), expect.objectContaining({ used: 7 + 1, size: 16384 })]);
    expect(server.requests.filter((r) => r.url === '/api/show').map((r) => r.body)).toEqual([{ model: 'qwen3:8b' }]);
  });
});

describe('a base URL without /v1', () => {
  it("says to add /v1 in the prompt's answer", async () => {
    const server = await fake(httpError(404, '404 page not found'));
    const base = server.baseUrl.replace(/\/v1$/, '');
    agent = spawnAgent({ OPENAI_BASE_URL: base, OPENAI_MODEL: 'qwen3:8b' });
    const sessionId = await agent.start();
    const answer = await prompt(agent, sessionId);
    expect(answer.error).toMatchObject({ code: -32603, data: { kind: 'http', status: 404 } });
    expect(answer.error.message).toContain(`add /v1 to OPENAI_BASE_URL (OPENAI_BASE_URL=${base}/v1)`);
  });
});

describe('OPENAI_ACP_LOG_FORMAT=json', () => {
  it('writes only JSON objects to stderr, {time, level, message, ...}, with the key redacted', async () => {
    const key = 'sk-json-log-secret-4242';
    const server = await fake();
    agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'm', OPENAI_API_KEY: key, OPENAI_ACP_LOG_FORMAT: 'json' });
    const sessionId = await agent.start();
    await prompt(agent, sessionId);
    const a = agent;
    await waitFor(() => a.stderr().includes('\n'));
    const lines = agent.stderr().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) {
      const record = JSON.parse(line);
      expect(typeof record.time).toBe('string');
      expect(['error', 'warn', 'info', 'debug']).toContain(record.level);
      expect(typeof record.message).toBe('string');
    }
    expect(lines.some((line) => JSON.parse(line).message.includes('serving ACP on stdio'))).toBe(true);
    expect(agent.stderr()).not.toContain(key);
  });
});

describe('started by hand in a terminal', () => {
  it('says in one stderr line that an editor starts it and suggests doctor, and keeps serving', async () => {
    // `script` (util-linux) gives the agent a pseudo-terminal as stdin; skip where it is missing.
    if (spawnSync('script', ['--version']).status !== 0) return;
    const home = tempHome();
    const child = spawn('script', ['-qfec', `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}`, '/dev/null'], {
      cwd: home,
      env: cleanEnv(home, { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'm', OPENAI_ACP_LOG: 'error' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    const exited = new Promise((resolve) => child.on('close', resolve));
    await waitFor(() => output.includes('openai-acp doctor'));
    // Still serving: a JSON-RPC line typed in gets its answer.
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n');
    await waitFor(() => output.includes('"protocolVersion":1'));
    child.stdin.write('\u0004');
    child.stdin.end();
    await exited;
    const notices = output.split(/\r?\n/).filter((line) => line.includes('meant to be started by an editor'));
    expect(notices).toEqual([TTY_NOTICE]);
  });

  it('says nothing of the kind when stdin is a pipe (an editor)', async () => {
    const server = await fake();
    agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'm' });
    await agent.start();
    expect(agent.stderr()).not.toContain('meant to be started by an editor');
  });
});
