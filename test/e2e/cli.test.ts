/**
 * End to end: the built CLI spawned as a client would, driven over real stdio with raw JSON-RPC
 * lines, against a loopback OpenAI-compatible server.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chunk, httpError, startFakeOpenAI, streamText, type FakeOpenAI } from '../helpers/fake-openai.js';
import { CLI, SCRATCH_HOME, sleep, spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';
import { cleanEnv } from '../helpers/temp-home.js';
import { heldAnswers } from '../helpers/held-answers.js';
import { sharedPerFile } from '../helpers/shared-agent.js';

let server: FakeOpenAI;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());
afterEach(() => {
  if (agent && agent.badLines.length > 0) throw new Error(`non-JSON-RPC stdout: ${agent.badLines.join('\n')}`);
  agent?.kill();
  agent = undefined;
  server.requests.length = 0;
  server.handle(streamText(['Hello', ' world']));
});

/** The case's own agent: the defaults below with `env` over them. */
function launch(env: Record<string, string> = {}, args: string[] = []) {
  agent = spawnAgent(
    {
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_API_KEY: 'sk-e2e-secret-key-123',
      OPENAI_MODEL: 'test-model',
      OPENAI_MAX_RETRIES: '1',
      OPENAI_ACP_TOOLS: 'off',
      ...env,
    },
    args,
  );
  return agent;
}

/**
 * The agent with the default settings of {@link launch}, spawned once for the cases that need no
 * settings of their own, do not end it and teach it nothing of the endpoint: each case starts its
 * own sessions (`start()`), and the agent's recorded messages start afresh per case (the server's
 * requests and handler already do). Every behaviour here is still shown by a real spawn.
 */
const sharedAgent = sharedPerFile(async () => ({
  agent: spawnAgent({
    OPENAI_BASE_URL: server.baseUrl,
    OPENAI_API_KEY: 'sk-e2e-secret-key-123',
    OPENAI_MODEL: 'test-model',
    OPENAI_MAX_RETRIES: '1',
    OPENAI_ACP_TOOLS: 'off',
  }),
}));
const launchShared = async () => (await sharedAgent()).agent;

/** A handler that streams `first`, then holds the response open until the client goes away. */
function stallAfter(first: string) {
  return (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ content: first }));
  };
}

describe('openai-acp over stdio', () => {
  it('answers initialize with protocol 1, agent info and prompt capabilities', async () => {
    const a = await launchShared();
    const init = await a.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(init.result.protocolVersion).toBe(1);
    expect(init.result.agentInfo.name).toBe('openai-acp');
    expect(init.result.agentCapabilities.promptCapabilities).toMatchObject({ image: true, embeddedContext: true });
  });

  it('streams a multi-turn conversation and sends the history upstream', async () => {
    const a = launch({ OPENAI_SYSTEM_PROMPT: 'Be brief.' });
    const sessionId = await a.start();
    const first = await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(first.result.stopReason).toBe('end_turn');
    expect(first.result.usage).toMatchObject({ inputTokens: 7, outputTokens: 2 });
    expect(a.text(sessionId)).toBe('Hello world');
    server.handle(streamText(['Second']));
    const second = await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    expect(second.result.stopReason).toBe('end_turn');
    const body = server.requests[1]!.body;
    expect(body.model).toBe('test-model');
    expect(body.stream).toBe(true);
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello world' },
      { role: 'user', content: 'again' },
    ]);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-e2e-secret-key-123');
    expect(a.stderr()).not.toContain('sk-e2e-secret-key-123');
  });

  it('a client that knows only session/set_model (acp-ai-provider, Open Design fallback) switches the model', async () => {
    server.setModels({ object: 'list', data: [{ id: 'test-model' }, { id: 'other-model' }] });
    const a = launch();
    const sessionId = await a.start();
    const created = a.messages.find((m) => m.result?.sessionId === sessionId).result;
    expect(created.models).toEqual({
      currentModelId: 'test-model',
      availableModels: [
        { modelId: 'test-model', name: 'test-model' },
        { modelId: 'other-model', name: 'other-model' },
      ],
    });
    expect((await a.request('session/set_model', { sessionId, modelId: 'other-model' })).result).toEqual({});
    await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(server.requests.at(-1)!.body.model).toBe('other-model');
    server.setModels({ object: 'list', data: [{ id: 'test-model', object: 'model' }] });
  });

  it('cancels mid-stream and keeps what the user saw; an idle cancel changes nothing', async () => {
    const a = await launchShared();
    const sessionId = await a.start();
    a.notify('session/cancel', { sessionId }); // idle cancel
    server.handle(stallAfter('partial'));
    const pending = a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'long' }] });
    await waitFor(() => a.text(sessionId) === 'partial', 5000, 'first chunk');
    a.notify('session/cancel', { sessionId });
    const answer = await pending;
    expect(answer.result.stopReason).toBe('cancelled');
    server.handle(streamText(['fine']));
    const next = await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'next' }] });
    expect(next.result.stopReason).toBe('end_turn');
    expect(server.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: 'long' },
      { role: 'assistant', content: 'partial' },
      { role: 'user', content: 'next' },
    ]);
  });

  it('answers session/cancel sent as a request (Open Design) with {}', async () => {
    const a = await launchShared();
    const sessionId = await a.start();
    server.handle(stallAfter('x'));
    const pending = a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'q' }] });
    await waitFor(() => a.text(sessionId) === 'x');
    const cancel = await a.request('session/cancel', { sessionId });
    expect(cancel.result).toEqual({});
    expect((await pending).result.stopReason).toBe('cancelled');
  });

  it.each([
    [401, { error: { message: 'Incorrect API key provided' } }, /HTTP 401[\s\S]*OPENAI_API_KEY[\s\S]*Incorrect API key/],
    [404, { error: { message: 'The model `test-model` does not exist' } }, /test-model[\s\S]*HTTP 404/],
    [429, { error: { message: 'Rate limit reached' } }, /Rate limited[\s\S]*HTTP 429[\s\S]*Rate limit reached/],
    [500, { error: { message: 'boom' } }, /server error \(HTTP 500\)[\s\S]*boom/],
  ])('explains HTTP %i in words, and fails the prompt with the kind in data', async (status, body, words) => {
    const a = await launchShared();
    const sessionId = await a.start();
    server.handle(httpError(status, body, { 'retry-after-ms': '10' }));
    const answer = await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'q' }] });
    // The words once, as the error's message (no generic "Internal error"); nothing streamed.
    expect(answer.error).toEqual({ code: -32603, message: expect.stringMatching(words), data: { kind: 'http', status, retryable: status >= 429 } });
    expect(answer.error.message).toContain(server.baseUrl);
    expect(answer.error.message).not.toMatch(/internal error/i);
    expect(a.text(sessionId)).toBe('');
    expect(server.requests.length).toBe(status >= 429 ? 2 : 1);
  });

  it('explains a dropped connection', async () => {
    const a = launch({ OPENAI_MAX_RETRIES: '0' });
    const sessionId = await a.start();
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': keep-alive\n\n');
      setTimeout(() => res.destroy(), 20);
    });
    const answer = await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'q' }] });
    expect(answer.error).toMatchObject({ code: -32603, message: expect.stringMatching(/broke off|ended early/), data: { kind: 'stream' } });
  });

  it('abandons a stalled upstream after OPENAI_TIMEOUT_MS and names the setting', async () => {
    const a = launch({ OPENAI_TIMEOUT_MS: '300', OPENAI_MAX_RETRIES: '0' });
    const sessionId = await a.start();
    server.handle(() => undefined); // never answers
    const answer = await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'q' }] });
    expect(answer.error).toMatchObject({ code: -32603, message: expect.stringContaining('OPENAI_TIMEOUT_MS'), data: { kind: 'timeout' } });
  });

  it('exits 0 on stdin EOF, even mid-turn', async () => {
    const a = launch();
    const sessionId = await a.start();
    server.handle(stallAfter('x'));
    void a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'q' }] });
    await waitFor(() => a.text(sessionId) === 'x');
    a.child.stdin.end();
    expect(await a.exited).toBe(0);
  });

  it('a prompt arriving while the turn runs waits for that turn to end, then runs', async () => {
    const a = await launchShared();
    const sessionId = await a.start();
    const held = heldAnswers();
    server.handle(held.handler);
    const older = a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] });
    (await held.at(0)).say('first');
    await waitFor(() => a.text(sessionId) === 'first');
    const newer = a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] });
    await sleep(100);
    expect(held.all).toHaveLength(1);
    held.all[0]!.end();
    expect((await older).result.stopReason).toBe('end_turn');
    (await held.at(1)).end('second');
    expect((await newer).result.stopReason).toBe('end_turn');
    expect(held.all[1]!.body.messages).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'first' },
      { role: 'user', content: 'two' },
    ]);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('exits 0 on %s mid-turn, answering the prompt cancelled', async (signal) => {
    const a = launch();
    const sessionId = await a.start();
    server.handle(stallAfter('x'));
    const pending = a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'q' }] });
    await waitFor(() => a.text(sessionId) === 'x');
    a.child.kill(signal);
    expect(await a.exited).toBe(0);
    expect((await Promise.race([pending, sleep(100).then(() => undefined)]))?.result?.stopReason).toBe('cancelled');
  });

  it('routes stdio Bus sessions by the top-level sessionId key', async () => {
    const a = await launchShared();
    await a.request('initialize', { protocolVersion: 1, clientCapabilities: {} }, { sessionId: 'bus-A' });
    const createdA = await a.request('session/new', { cwd: '/', mcpServers: [] }, { sessionId: 'bus-A' });
    const createdB = await a.request('session/new', { cwd: '/', mcpServers: [] }, { sessionId: 'bus-B' });
    expect(createdA.sessionId).toBe('bus-A');
    expect(createdB.sessionId).toBe('bus-B');
    const acpA = createdA.result.sessionId;
    const answer = await a.request('session/prompt', { sessionId: acpA, prompt: [{ type: 'text', text: 'q' }] }, { sessionId: 'bus-A' });
    expect(answer.sessionId).toBe('bus-A');
    const notes = a.messages.filter((m) => m.method === 'session/update' && m.params.sessionId === acpA);
    expect(notes.length).toBeGreaterThan(0);
    expect(notes.every((m) => m.sessionId === 'bus-A')).toBe(true);
  });

  it('without a routing key adds none', async () => {
    const a = await launchShared();
    const sessionId = await a.start();
    await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'q' }] });
    expect(a.messages.some((m) => 'sessionId' in m)).toBe(false);
  });

  it('runs two sessions prompting at once without mixing them', async () => {
    const a = await launchShared();
    const s1 = await a.start();
    const s2 = (await a.request('session/new', { cwd: '/', mcpServers: [] })).result.sessionId;
    server.handle((_req, res, body) => {
      const word = body.messages.at(-1).content;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const timer = setInterval(() => {
        if (i < 5) res.write(chunk({ content: `${word}${i++} ` }));
        else {
          clearInterval(timer);
          res.end(chunk({}, 'stop'));
        }
      }, 5);
    });
    const [r1, r2] = await Promise.all([
      a.request('session/prompt', { sessionId: s1, prompt: [{ type: 'text', text: 'a' }] }),
      a.request('session/prompt', { sessionId: s2, prompt: [{ type: 'text', text: 'b' }] }),
    ]);
    expect(r1.result.stopReason).toBe('end_turn');
    expect(r2.result.stopReason).toBe('end_turn');
    expect(a.text(s1)).toBe('a0 a1 a2 a3 a4 ');
    expect(a.text(s2)).toBe('b0 b1 b2 b3 b4 ');
  });

  it('survives malformed lines, unknown methods and unknown notifications', async () => {
    const a = await launchShared();
    const sessionId = await a.start();
    a.writeLine('{not json');
    a.notify('something/unknown', {});
    const unknown = await a.request('no/such_method', {});
    expect(unknown.error.code).toBe(-32601);
    const missing = await a.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'q' }] });
    expect(missing.error.code).toBe(-32002);
    expect(missing.error.data).toEqual({ sessionId: 'nope' });
    const bad = await a.request('session/prompt', { sessionId });
    expect(bad.error.code).toBe(-32602);
    const ok = await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'q' }] });
    expect(ok.result.stopReason).toBe('end_turn');
  });

  it('with an invalid setting still starts, names it on stderr and explains it at every prompt', async () => {
    const a = launch({ OPENAI_TEMPERATURE: 'hot' });
    const sessionId = await a.start();
    const answer = await a.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'q' }] });
    expect(answer.error).toMatchObject({ code: -32603, message: expect.stringContaining('OPENAI_TEMPERATURE'), data: { kind: 'config', retryable: false } });
    expect(a.stderr()).toContain('OPENAI_TEMPERATURE');
    expect(server.requests.length).toBe(0);
  });

  it('prints its version and help', () => {
    const version = execFileSync(process.execPath, [CLI, '--version'], { encoding: 'utf8', env: cleanEnv(SCRATCH_HOME) }).trim();
    expect(version).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
    const help = execFileSync(process.execPath, [CLI, '--help'], { encoding: 'utf8', env: cleanEnv(SCRATCH_HOME) });
    for (const name of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_MODEL', 'OPENAI_TIMEOUT_MS', '--base-url', '--model']) expect(help).toContain(name);
  });
});
