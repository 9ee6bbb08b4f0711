/**
 * The AgentConnect host over the real ACP agent in process (no WebSocket): the fixed mode decides
 * what tools do, the meter after create, sessions held per connection (takeover on resume, release
 * on disconnect), and the answers' error codes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { client } from '@agentclientprotocol/sdk/unstable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIAgent } from '../../src/acp/agent.js';
import { AgentConnectHost } from '../../src/agentconnect/host.js';
import type { Peer } from '../../src/agentconnect/host-sessions.js';
import type { AcEvent, FrontDoorMode } from '../../src/agentconnect/protocol.js';
import { createLogger } from '../../src/shared/log.js';
import { chunk, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { testConfig } from '../helpers/in-process.js';
import { script, tempDirs } from '../helpers/tool-script.js';

const quiet = createLogger({ level: 'error', write: () => undefined });
const tempDir = tempDirs('openai-acp-ac-host-');
let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());

/** A host in `mode` over `agent`. */
function hostOf(agent: ReturnType<typeof createOpenAIAgent>, mode: FrontDoorMode, logger = quiet) {
  return new AgentConnectHost({ agent, client, mode, catalog: agent.catalog, version: '0.0.0-test', baseCwd: tempDir(), logger, redact: (text) => text });
}

async function hostIn(mode: FrontDoorMode, env: Record<string, string> = {}, logger = quiet) {
  server.setModels({ object: 'list', data: [{ id: 'test-model', context_length: 8192 }] });
  return hostOf(createOpenAIAgent({ config: testConfig({ OPENAI_BASE_URL: server.baseUrl, ...env }), logger }), mode, logger);
}

function peer(): Peer & { events: (AcEvent & { sessionId: string })[] } {
  const events: (AcEvent & { sessionId: string })[] = [];
  return { events, push: (sessionId, event) => events.push({ sessionId, ...event }), whenRead: (then) => then() };
}

async function until<T>(find: () => T | undefined): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('timed out');
}

/** Answers one request as the front door does: the result, then what follows it (the events held for it). */
async function call(host: AgentConnectHost, app: Peer, method: string, params: Record<string, unknown>) {
  const handled = await host.handle(app, method, params);
  handled.after?.();
  return handled.result;
}

/** Runs one send to its final (or error) event; returns the run's events. */
async function run(host: AgentConnectHost, app: ReturnType<typeof peer>, sessionId: string, content: string) {
  const from = app.events.length;
  const handled = await host.handle(app, 'acp.sessions.send', { sessionId, message: { role: 'user', content } });
  expect(handled.result).toEqual({ accepted: true });
  handled.after?.();
  await until(() => app.events.slice(from).find((event) => event.type === 'final' || event.type === 'error'));
  return app.events.slice(from);
}

describe('AgentConnectHost', () => {
  it('lets go of a session whose connection closed while it was being created', async () => {
    server.setModels({ object: 'list', data: [{ id: 'test-model', context_length: 8192 }] });
    const agent = createOpenAIAgent({ config: testConfig({ OPENAI_BASE_URL: server.baseUrl }), logger: quiet });
    const host = hostOf(agent, 'read-only');
    const app = peer();
    const creating = host.handle(app, 'acp.sessions.create', { cwd: tempDir() });
    await host.disconnect(app);
    await expect(creating).rejects.toMatchObject({ code: 'AC_ERR_INTERNAL' });
    // The agent holds nothing for it: the session it was opening is closed there too.
    await until(() => (agent.sessions.size === 0 ? true : undefined));
    expect(host.heldBy(app)).toEqual([]);
  });

  it('in accept-edits writes inside the cwd and refuses a command (told to the model), without asking anyone', async () => {
    const host = await hostIn('accept-edits');
    const app = peer();
    const cwd = tempDir();
    server.handle(
      script([
        {
          calls: [
            ['write_file', { path: 'out.txt', content: 'hello\n' }],
            ['run_command', { command: 'touch ran.txt' }],
          ],
        },
        { text: 'done' },
      ]),
    );
    const { sessionId } = (await call(host, app, 'acp.sessions.create', { cwd })) as { sessionId: string };
    const events = await run(host, app, sessionId, 'write and run');
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('hello\n');
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(false);
    const ends = events.filter((event) => event.type === 'tool_call' && event.data['phase'] !== 'start').map((event) => event.data['phase']);
    expect(ends).toEqual(['completed', 'error']);
    expect(events.at(-1)).toMatchObject({ type: 'final', data: { text: 'done' } });
    // The model heard of the refusal in the tool message.
    const toolMessages = server.requests.at(-1)!.body.messages.filter((message: { role: string }) => message.role === 'tool');
    expect(JSON.stringify(toolMessages)).toMatch(/declined|refused|rejected|denied/i);
  });

  it('in full-access runs the command', async () => {
    const host = await hostIn('full-access');
    const app = peer();
    const cwd = tempDir();
    server.handle(script([{ calls: [['run_command', { command: 'touch ran.txt' }]] }, { text: 'ran' }]));
    const { sessionId } = (await call(host, app, 'acp.sessions.create', { cwd })) as { sessionId: string };
    await run(host, app, sessionId, 'run it');
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(true);
  });

  it('sends the window meter after create, and applies reasoningEffort or refuses it with the valid levels', async () => {
    const host = await hostIn('read-only');
    const app = peer();
    const { sessionId } = (await call(host, app, 'acp.sessions.create', { model: 'local/test-model' })) as { sessionId: string };
    const meter = await until(() => app.events.find((event) => event.type === 'context_usage'));
    expect(meter).toMatchObject({ sessionId, data: { contextUsage: { context_window: 8192, context_tokens: 0 } } });
    await expect(host.handle(app, 'acp.sessions.create', { reasoningEffort: 'ultra' })).rejects.toMatchObject({ code: 'AC_ERR_INVALID_ARGS' });
    // The refused create left nothing held.
    expect(host.heldBy(app).length).toBe(1);
    // Nor does a refused resume on another connection.
    const other = peer();
    await expect(host.handle(other, 'acp.sessions.resume', { sessionId, reasoningEffort: 'ultra' })).rejects.toMatchObject({ code: 'AC_ERR_INVALID_ARGS' });
    expect(host.heldBy(other)).toEqual([]);
    await expect(host.handle(app, 'acp.sessions.create', { cwd: join(tempDir(), 'missing') })).rejects.toMatchObject({ code: 'AC_ERR_INVALID_ARGS' });
  });

  it("gives models.info the window the agent would use: the model list's, or OPENAI_CONTEXT_WINDOW over it", async () => {
    const listed = await hostIn('read-only');
    expect((await listed.handle(peer(), 'acp.models.info', { model: 'local' })).result).toEqual({
      model: { id: 'test-model', provider: 'local', displayName: 'test-model', contextWindow: 8192 },
    });
    const configured = await hostIn('read-only', { OPENAI_CONTEXT_WINDOW: '16384' });
    expect((await configured.handle(peer(), 'acp.models.info', { model: 'test-model' })).result).toMatchObject({ model: { contextWindow: 16384 } });
  });

  it('cancels a run asked to stop before its turn started (session/cancel alone would miss it): final cancelled', async () => {
    const host = await hostIn('read-only');
    const app = peer();
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'never ends' }));
    });
    const { sessionId } = (await call(host, app, 'acp.sessions.create', {})) as { sessionId: string };
    const handled = await host.handle(app, 'acp.sessions.send', { sessionId, message: { content: 'hi' } });
    handled.after?.();
    expect((await host.handle(app, 'acp.sessions.cancel', { sessionId })).result).toEqual({ cancelled: true });
    const final = await until(() => app.events.find((event) => event.type === 'final' || event.type === 'error'));
    expect(final).toMatchObject({ type: 'final', data: { cancelled: true } });
  });

  it('ends a failed run (the prompt answered with a JSON-RPC error) with an error event carrying the words shown and the kind', async () => {
    const host = await hostIn('read-only', { OPENAI_MAX_RETRIES: '0' });
    const app = peer();
    server.handle((_req, res) => void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"Incorrect API key provided"}}'));
    const { sessionId } = (await call(host, app, 'acp.sessions.create', {})) as { sessionId: string };
    const events = await run(host, app, sessionId, 'hi');
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: 'error', data: { kind: 'http' } });
    expect(end.data['message']).toMatch(/HTTP 401[\s\S]*Incorrect API key provided/);
    expect(events.some((event) => event.type === 'final')).toBe(false);
  });

  it("tells a model the server is loading as the host's system message, never as thinking or as part of the answer's final text", async () => {
    // A llama-server stand-in loading its model until the agent has asked /health (LOADING_LOOK_MS after the request).
    const seen: string[] = [];
    const loading = await startFakeOpenAI((req, res) => {
      const path = (req.url ?? '').split('?')[0]!;
      const ready = seen.includes('/health loading');
      seen.push(`${path} ${ready ? 'ready' : 'loading'}`);
      if (!ready) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":503,"message":"Loading model"}}');
      if (path === '/health') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${chunk({ content: 'Loaded and answering.' }, 'stop')}data: [DONE]\n\n`);
    });
    try {
      const env = { OPENAI_BASE_URL: loading.baseUrl, OPENAI_PROVIDER: 'llamacpp', OPENAI_CONTEXT_WINDOW: '32768', OPENAI_ACP_TOOLS: 'off' };
      const agent = createOpenAIAgent({ config: testConfig(env), logger: quiet });
      const host = hostOf(agent, 'read-only');
      const app = peer();
      const { sessionId } = (await call(host, app, 'acp.sessions.create', {})) as { sessionId: string };
      const events = await run(host, app, sessionId, 'hi');
      expect(seen).toContain('/health loading');
      // The host's own words: a system message, neither the model's thinking nor the answer.
      const told = events.filter((event) => event.type === 'message').map((event) => [event.data['role'], event.data['content']]);
      expect(told).toEqual([['system', expect.stringContaining('Loading test-model on the server')]]);
      expect(events.some((event) => event.type === 'thinking')).toBe(false);
      expect(events.filter((event) => event.type === 'delta').map((event) => event.data['text'])).toEqual(['Loaded and answering.']);
      expect(events.at(-1)).toMatchObject({ type: 'final', data: { text: 'Loaded and answering.' } });
    } finally {
      await loading.close();
    }
  });

  it('holds at most 16 sessions per connection, counting those being opened at once', async () => {
    const host = await hostIn('read-only');
    const app = peer();
    const answers = await Promise.allSettled(Array.from({ length: 18 }, () => host.handle(app, 'acp.sessions.create', {})));
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(16);
    expect(answers.filter((answer) => answer.status === 'rejected').map((answer) => (answer as PromiseRejectedResult).reason.code)).toEqual([
      'AC_ERR_BUSY',
      'AC_ERR_BUSY',
    ]);
    const first = host.heldBy(app)[0]!;
    await host.handle(app, 'acp.sessions.close', { sessionId: first });
    await expect(host.handle(app, 'acp.sessions.create', {})).resolves.toBeDefined();
  });

  it("gives a session to the connection that resumes it, and lets go of a disconnected one's sessions", async () => {
    server.setModels({ object: 'list', data: [{ id: 'test-model', context_length: 8192 }] });
    const agent = createOpenAIAgent({ config: testConfig({ OPENAI_BASE_URL: server.baseUrl }), logger: quiet });
    const host = hostOf(agent, 'read-only');
    const one = peer();
    const two = peer();
    server.handle(script([{ text: 'hi' }]));
    const { sessionId } = (await call(host, one, 'acp.sessions.create', {})) as { sessionId: string };
    await expect(host.handle(two, 'acp.sessions.send', { sessionId, message: { content: 'x' } })).rejects.toMatchObject({ code: 'AC_ERR_INVALID_ARGS' });
    expect(await call(host, two, 'acp.sessions.resume', { sessionId })).toEqual({ sessionId });
    await expect(host.handle(one, 'acp.sessions.send', { sessionId, message: { content: 'x' } })).rejects.toMatchObject({ code: 'AC_ERR_INVALID_ARGS' });
    const events = await run(host, two, sessionId, 'hello');
    expect(events.at(-1)).toMatchObject({ type: 'final', data: { text: 'hi' } });
    expect(agent.sessions.live(sessionId)).toBeDefined();
    await host.disconnect(two);
    // The one holder (one was taken over) is gone: the agent let the session go.
    expect(agent.sessions.live(sessionId)).toBeUndefined();
    expect(host.heldBy(two).length).toBe(0);
    // A request after its WebSocket went makes no connection for it again.
    await expect(host.handle(two, 'acp.sessions.create', {})).rejects.toMatchObject({ code: 'AC_ERR_INTERNAL' });
    await expect(host.handle(one, 'acp.unknown.method', {})).rejects.toMatchObject({ code: 'AC_ERR_UNSUPPORTED' });
  });

  it("keeps a run's events, to its final, with the connection that sent it when another one resumes the session mid-run", async () => {
    const host = await hostIn('read-only');
    const one = peer();
    const two = peer();
    let release: (() => void) | undefined;
    server.handle(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'half' }, finish_reason: null }] })}\n\n`);
      await new Promise<void>((resolve) => (release = resolve));
      res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: ' done' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
    });
    const { sessionId } = (await call(host, one, 'acp.sessions.create', {})) as { sessionId: string };
    const handled = await host.handle(one, 'acp.sessions.send', { sessionId, message: { role: 'user', content: 'go' } });
    handled.after?.();
    await until(() => (release ? true : undefined));
    expect(await call(host, two, 'acp.sessions.resume', { sessionId })).toEqual({ sessionId });
    release?.();
    await until(() => one.events.find((event) => event.type === 'final'));
    expect(one.events.filter((event) => event.type === 'error')).toEqual([]);
    expect(two.events.filter((event) => event.type === 'final')).toEqual([]);
  });

  it("answers the connect widget's install, login, update and logout of local with the endpoint's state, using no option the app sent", async () => {
    const lines: string[] = [];
    const host = await hostIn('read-only', {}, createLogger({ level: 'debug', write: (line) => void lines.push(line) }));
    const app = peer();
    const options = { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-from-the-app-0123456789', model: 'other-model', models: ['other-model'] };
    expect(await call(host, app, 'acp.providers.login', { provider: 'local', options })).toEqual({ loggedIn: true });
    expect(await call(host, app, 'acp.providers.ensureInstalled', { provider: 'local' })).toEqual({ installed: true, version: '0.0.0-test' });
    expect(await call(host, app, 'acp.providers.update', { provider: 'local' })).toMatchObject({ provider: { id: 'local', installed: true, loggedIn: true } });
    expect(await call(host, app, 'acp.providers.logout', { provider: 'local' })).toEqual({ loggedIn: true });
    await expect(host.handle(app, 'acp.providers.login', { provider: 'claude' })).rejects.toMatchObject({ code: 'AC_ERR_UNSUPPORTED' });
    // Nothing changed: a run still goes to the configured endpoint and model, and the key was never written anywhere.
    server.handle(script([{ text: 'still here' }]));
    const { sessionId } = (await call(host, app, 'acp.sessions.create', { model: 'default' })) as { sessionId: string };
    await run(host, app, sessionId, 'hi');
    expect(server.requests.at(-1)!.body.model).toBe('test-model');
    expect(server.requests.at(-1)!.headers.authorization).not.toContain('sk-from-the-app');
    expect(lines.join('')).toContain('"apiKey"');
    expect(lines.join('')).not.toContain('sk-from-the-app');
    expect(lines.join('')).not.toContain('127.0.0.1:9/v1');
  });

  it('lists the default model first (the widget picks the first), and takes model "default" or none as it', async () => {
    const host = await hostIn('read-only', { OPENAI_MODEL: 'test-model' });
    server.setModels({ object: 'list', data: [{ id: 'alpha' }, { id: 'test-model' }, { id: 'omega' }] });
    expect(((await call(host, peer(), 'acp.models.list', {})) as { models: { id: string }[] }).models.map((m) => m.id)).toEqual([
      'test-model',
      'alpha',
      'omega',
    ]);
    const unlisted = await hostIn('read-only', { OPENAI_MODEL: 'not-listed' });
    server.setModels({ object: 'list', data: [{ id: 'alpha' }] });
    // A default the server does not list is still the one a session starts with: first.
    expect(((await call(unlisted, peer(), 'acp.models.list', { provider: 'local' })) as { models: { id: string }[] }).models.map((m) => m.id)).toEqual([
      'not-listed',
      'alpha',
    ]);
  });

  it('lets the events of a session just opened go only once the app has read the answer (its pong) or named the session', async () => {
    const host = await hostIn('read-only');
    const reads: (() => void)[] = [];
    const app = { ...peer(), whenRead: (then: () => void) => void reads.push(then) };
    const { sessionId } = (await call(host, app, 'acp.sessions.create', {})) as { sessionId: string };
    // However long the pong takes, nothing goes before it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(app.events).toEqual([]);
    reads.shift()!();
    expect(app.events.map((event) => event.type)).toEqual(['context_usage']);
    // Without a pong, the app's send naming the session lets them go, before the run's events.
    const other = { ...peer(), whenRead: () => undefined };
    const opened = (await call(host, other, 'acp.sessions.create', {})) as { sessionId: string };
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(other.events).toEqual([]);
    server.handle(script([{ text: 'hi' }]));
    const events = await run(host, other, opened.sessionId, 'hello');
    expect(events[0]).toMatchObject({ type: 'context_usage', sessionId: opened.sessionId });
    expect(events.at(-1)).toMatchObject({ type: 'final', data: { text: 'hi' } });
    expect(sessionId).not.toBe(opened.sessionId);
  });

  it("holds a session's events until the answer that names it is out (the SDK drops events of a session it does not know yet)", async () => {
    const host = await hostIn('read-only');
    const app = peer();
    const handled = await host.handle(app, 'acp.sessions.create', {});
    const { sessionId } = handled.result as { sessionId: string };
    // The meter after create comes while the answer is on its way: not pushed yet.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(app.events).toEqual([]);
    handled.after?.();
    await until(() => app.events.find((event) => event.type === 'context_usage'));
    expect(app.events.map((event) => [event.sessionId, event.type])).toEqual([[sessionId, 'context_usage']]);
    // The same on resume, by another connection.
    const other = peer();
    const resumed = await host.handle(other, 'acp.sessions.resume', { sessionId });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(other.events).toEqual([]);
    resumed.after?.();
    await until(() => other.events.find((event) => event.type === 'context_usage'));
  });

  it('answers acp.capabilities.observed as PROTOCOL.md says: appId, requested, observed, updatedAt', async () => {
    const host = await hostIn('read-only');
    const app = peer();
    const before = (await call(host, app, 'acp.capabilities.observed', { appId: 'com.example.notes' })) as Record<string, unknown>;
    expect(before).toEqual({ appId: 'com.example.notes', requested: [], observed: ['agent.connect'], updatedAt: expect.any(String) });
    await call(host, app, 'acp.sessions.create', {});
    await expect(host.handle(app, 'acp.fs.read', { path: '/etc/passwd' })).rejects.toMatchObject({ code: 'AC_ERR_UNSUPPORTED' });
    const after = (await call(host, app, 'acp.capabilities.observed', {})) as Record<string, unknown>;
    expect(after).toMatchObject({ appId: 'agentconnect-app', requested: [], observed: ['agent.connect', 'model.local'] });
    expect(Date.parse(after['updatedAt'] as string)).toBeGreaterThanOrEqual(Date.parse(before['updatedAt'] as string));
    // Per connection: another app has used nothing but the protocol.
    expect(((await call(host, peer(), 'acp.capabilities.observed', {})) as { observed: string[] }).observed).toEqual(['agent.connect']);
  });
});
