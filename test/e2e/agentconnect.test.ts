/**
 * `openai-acp agentconnect` end to end: the built CLI serves AgentConnect on a loopback port and a
 * `ws` client drives it as an app would (shapes: `test/helpers/agentconnect-client.ts`, from
 * AgentConnect v0.2.6 `docs/PROTOCOL.md` and its SDK), against the loopback fake OpenAI server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chunk, fakeServerPool, startFakeOpenAI, type ChatHandler, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectApp, frontDoorPool } from '../helpers/agentconnect-client.js';
import { script, tempDirs } from '../helpers/tool-script.js';

const servers = fakeServerPool();
const tempDir = tempDirs('openai-acp-ac-');
const { door, app } = frontDoorPool();

/**
 * One front door (no saved sessions, no token) and its model server, listing `test-model` (32768
 * tokens) and `other-model`, for the cases that need no settings of their own and do not stop it:
 * each case sets the model's handler (its recorded requests start afresh), connects its own app and
 * makes its own sessions. A process start costs ~0.3 s of CPU.
 */
let shared: Promise<{ model: FakeOpenAI; url: string }> | undefined;
afterAll(async () => {
  await (await shared)?.model.close();
});
async function sharedDoor(handler?: ChatHandler): Promise<{ server: FakeOpenAI; url: string }> {
  shared ??= (async () => {
    const model = await startFakeOpenAI();
    model.setModels({ object: 'list', data: [{ id: 'test-model', context_length: 32768 }, { id: 'other-model' }] });
    return { model, url: (await door(model.baseUrl, [], { OPENAI_ACP_STATE_DIR: 'off' }, true)).url };
  })();
  const { model, url } = await shared;
  if (handler) model.handle(handler);
  model.requests.length = 0;
  return { server: model, url };
}

describe('openai-acp agentconnect', () => {
  it('answers hello, providers and models as the local provider, and refuses the machine', async () => {
    const client = await app((await sharedDoor()).url);

    const hello = (await client.request('acp.hello')).result;
    expect(hello).toMatchObject({ protocolVersion: '0.1', mode: 'local', providers: ['local'] });
    expect(hello.capabilities).not.toContain('fs.read');
    const [provider] = (await client.request('acp.providers.list')).result.providers;
    expect(provider).toMatchObject({ id: 'local', installed: true, loggedIn: true });
    expect((await client.request('acp.providers.status', { provider: 'claude' })).error?.code).toBe('AC_ERR_UNSUPPORTED');

    const models = (await client.request('acp.models.list')).result.models;
    expect(models).toEqual([
      { id: 'test-model', provider: 'local', displayName: 'test-model', contextWindow: 32768 },
      { id: 'other-model', provider: 'local', displayName: 'other-model' },
    ]);
    expect((await client.request('acp.models.info', { model: 'local:test-model' })).result.model.contextWindow).toBe(32768);
    expect((await client.request('acp.models.info', { model: 'local/nope' })).error?.code).toBe('AC_ERR_INVALID_ARGS');
    expect((await client.request('acp.models.recent')).result.models.map((m: { id: string }) => m.id)).toEqual(['test-model']);

    for (const method of ['acp.fs.read', 'acp.process.spawn', 'acp.net.request', 'acp.clipboard.read', 'acp.system.open', 'acp.backend.start']) {
      expect((await client.request(method, { path: '/etc/passwd', command: 'id', url: 'http://127.0.0.1/' })).error?.code, method).toBe('AC_ERR_UNSUPPORTED');
    }
    expect((await client.request('acp.sessions.create', { provider: 'local', cwd: 42 })).error?.code).toBe('AC_ERR_INVALID_ARGS');
    // The connect widget's save of the local provider: the endpoint's state, nothing changed.
    expect((await client.request('acp.providers.login', { provider: 'local', options: { baseUrl: 'http://elsewhere/v1' } })).result).toEqual({
      loggedIn: true,
    });
    expect((await client.request('acp.providers.ensureInstalled', { provider: 'local' })).result).toMatchObject({ installed: true });
  });

  it('runs a send: accepted, a tool call in the cwd, streamed deltas, usage, then the full text', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.txt'), 'the secret word is plum\n');
    const { server, url } = await sharedDoor(script([{ calls: [['read_file', { path: 'notes.txt' }]] }, { text: 'It is plum.' }]));
    const client = await app(url);
    const created = await client.request('acp.sessions.create', { model: 'local', cwd, system: 'Answer in one short sentence.' });
    const { sessionId } = created.result;
    expect(typeof sessionId).toBe('string');

    const sent = await client.request('acp.sessions.send', { sessionId, message: { role: 'user', content: 'What is the secret word?' } });
    expect(sent.result).toEqual({ accepted: true });
    const final = await client.waitForEvent(sessionId, (event) => event.type === 'final');
    expect(final.data).toMatchObject({ text: 'It is plum.' });
    expect(final.data['cancelled']).toBeUndefined();

    const events = client.events.filter((event) => event.sessionId === sessionId);
    // The answer to send came before any event of its run.
    const answerAt = client.received.findIndex((message) => message.result?.accepted === true);
    const firstEventAt = client.received.findIndex((message) => message.method === 'acp.session.event' && message.params.type !== 'context_usage');
    expect(answerAt).toBeLessThan(firstEventAt);
    const tools = events.filter((event) => event.type === 'tool_call');
    expect(tools.map((event) => event.data['phase'])).toEqual(['start', 'completed']);
    expect(tools[0]!.data).toMatchObject({ provider: 'local', input: { path: 'notes.txt' } });
    expect(String(tools[1]!.data['output'])).toContain('plum');
    expect(
      events
        .filter((event) => event.type === 'delta')
        .map((event) => event.data['text'])
        .join(''),
    ).toBe('It is plum.');
    expect(events.filter((event) => event.type === 'usage')).toHaveLength(1);
    expect(events.findIndex((event) => event.type === 'usage')).toBeLessThan(events.findIndex((event) => event.type === 'final'));

    // The app's system text reached the model after the agent's own; the session is read-only and
    // the model is told so in the conversation (the tools offered are the same in every mode).
    const first = server.requests[0]!.body;
    expect(first.messages[0].role).toBe('system');
    expect(first.messages[0].content).toContain('Answer in one short sentence.');
    const offered = (first.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);
    expect(offered).toContain('read_file');
    expect(JSON.stringify(first.messages.at(-1).content)).toMatch(/Session mode: Read only/);
    // A second send while nothing runs is fine; a send to a session of no one is refused.
    expect((await client.request('acp.sessions.send', { sessionId: 'nope', message: { content: 'hi' } })).error?.code).toBe('AC_ERR_INVALID_ARGS');
  });

  it('cancel mid-stream stops the run and its HTTP request, then a final with cancelled: true', async () => {
    let upstreamClosed = false;
    const { url } = await sharedDoor((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'Once upon' }));
      // Never finishes: only a cancel ends it.
      req.socket.once('close', () => (upstreamClosed = true));
    });
    const client = await app(url);
    const { sessionId } = (await client.request('acp.sessions.create', { model: 'local:test-model', cwd: tempDir() })).result;
    await client.request('acp.sessions.send', { sessionId, message: { role: 'user', content: 'Tell a long story' } });
    await client.waitForEvent(sessionId, (event) => event.type === 'delta');
    // Busy while it runs.
    expect((await client.request('acp.sessions.send', { sessionId, message: { content: 'again' } })).error?.code).toBe('AC_ERR_BUSY');

    const cancelled = await client.request('acp.sessions.cancel', { sessionId });
    expect(cancelled.result).toEqual({ cancelled: true });
    const final = await client.waitForEvent(sessionId, (event) => event.type === 'final');
    expect(final.data).toMatchObject({ cancelled: true, text: 'Once upon' });
    for (let i = 0; i < 200 && !upstreamClosed; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(upstreamClosed).toBe(true);
  });

  it('resumes a session after the process restarts, with its history, and refuses an unknown one', async () => {
    const stateDir = tempDir();
    const server = await servers(script([{ text: 'Noted: blue.' }]));
    const env = { OPENAI_ACP_STATE_DIR: stateDir };
    const firstDoor = await door(server.baseUrl, [], env);
    const first = await app(firstDoor.url);
    const { sessionId } = (await first.request('acp.sessions.create', { cwd: tempDir() })).result;
    await first.request('acp.sessions.send', { sessionId, message: { role: 'user', content: 'My colour is blue.' } });
    await first.waitForEvent(sessionId, (event) => event.type === 'final');
    first.close();
    await firstDoor.stop();

    const second = await app((await door(server.baseUrl, [], env)).url);
    expect((await second.request('acp.sessions.send', { sessionId, message: { content: 'hi' } })).error?.code).toBe('AC_ERR_INVALID_ARGS');
    expect((await second.request('acp.sessions.resume', { sessionId: 'sess_unknown' })).error?.code).toBe('AC_ERR_INVALID_ARGS');
    expect((await second.request('acp.sessions.resume', { sessionId })).result).toEqual({ sessionId });
    await second.request('acp.sessions.send', { sessionId, message: { role: 'user', content: 'What is my colour?' } });
    await second.waitForEvent(sessionId, (event) => event.type === 'final');
    const texts = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(texts).toContain('My colour is blue.');
    expect(texts).toContain('Noted: blue.');
    expect((await second.request('acp.sessions.close', { sessionId })).result).toEqual({ closed: true });
  });

  it('refuses a browser origin not allowed, before any method runs; lets in the allowed one and a client without Origin; checks the token', async () => {
    const server = await servers();
    const started = await door(server.baseUrl, ['--allow-origin', 'http://localhost:5173', '--token', 'open-sesame-42'], { OPENAI_ACP_STATE_DIR: 'off' });

    await expect(connectApp(`${started.url}/?token=open-sesame-42`, { origin: 'https://evil.example' })).rejects.toMatchObject({ status: 403 });
    await expect(connectApp(started.url, { origin: 'http://localhost:5173' })).rejects.toMatchObject({ status: 401 });
    await expect(connectApp(`${started.url}/?token=wrong-token`)).rejects.toMatchObject({ status: 401 });
    expect(started.stderr()).not.toContain('AgentConnect request');
    expect(started.stderr()).not.toContain('open-sesame-42');
    expect(started.stderr()).not.toContain('wrong-token');

    const allowed = await app(`${started.url}/?token=open-sesame-42`, { origin: 'http://localhost:5173' });
    expect((await allowed.request('acp.hello')).result.providers).toEqual(['local']);
    const backend = await app(started.url, { authorization: 'Bearer open-sesame-42' });
    expect((await backend.request('acp.hello')).result.providers).toEqual(['local']);
    expect(server.requests).toHaveLength(0);

    // A message over 4 MiB closes that connection (1009, message too big) without an answer.
    const closed = new Promise<number>((resolve) => backend.ws.once('close', (code) => resolve(code)));
    backend.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'acp.hello', params: { pad: 'x'.repeat(4 * 1024 * 1024) } }));
    expect(await closed).toBe(1009);
    expect((await allowed.request('acp.hello')).result.providers).toEqual(['local']);
  });
});
