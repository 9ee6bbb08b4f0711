/**
 * The AgentConnect host over the real ACP agent in process (no WebSocket): the fixed mode decides
 * what tools do, the meter after create, sessions held per connection (takeover on resume, release
 * on disconnect), and the answers' error codes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { client } from '@agentclientprotocol/sdk/unstable';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIAgent } from '../../src/acp/agent.js';
import { AcpBridge } from '../../src/agentconnect/acp-bridge.js';
import { AgentConnectHost, type Peer } from '../../src/agentconnect/host.js';
import type { AcEvent, FrontDoorMode } from '../../src/agentconnect/protocol.js';
import { createLogger } from '../../src/log.js';
import { chunk, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { testConfig } from '../helpers/in-process.js';
import { script, tempDirs } from '../helpers/tool-script.js';

const quiet = createLogger({ level: 'error', write: () => undefined });
const tempDir = tempDirs('openai-acp-ac-host-');
let server: FakeOpenAI;
const bridges: AcpBridge[] = [];
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());
afterEach(() => {
  for (const bridge of bridges.splice(0)) bridge.shutdown();
});

async function hostIn(mode: FrontDoorMode, env: Record<string, string> = {}) {
  server.setModels({ object: 'list', data: [{ id: 'test-model', context_length: 8192 }] });
  const { app, catalog } = createOpenAIAgent({ config: testConfig({ OPENAI_BASE_URL: server.baseUrl, ...env }), logger: quiet });
  const bridge = await AcpBridge.open(app, client, mode);
  bridges.push(bridge);
  return new AgentConnectHost({ bridge, catalog, version: '0.0.0-test', baseCwd: tempDir(), logger: quiet, redact: (text) => text });
}

function peer(): Peer & { events: (AcEvent & { sessionId: string })[] } {
  const events: (AcEvent & { sessionId: string })[] = [];
  return { sessions: new Set(), events, push: (sessionId, event) => events.push({ sessionId, ...event }) };
}

async function until<T>(find: () => T | undefined): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('timed out');
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
    const host = await hostIn('read-only');
    const app = peer();
    const creating = host.handle(app, 'acp.sessions.create', { cwd: tempDir() });
    await host.disconnect(app);
    await expect(creating).rejects.toMatchObject({ code: 'AC_ERR_INTERNAL' });
    expect(app.sessions.size).toBe(0);
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
    const { sessionId } = (await host.handle(app, 'acp.sessions.create', { cwd })).result as { sessionId: string };
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
    const { sessionId } = (await host.handle(app, 'acp.sessions.create', { cwd })).result as { sessionId: string };
    await run(host, app, sessionId, 'run it');
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(true);
  });

  it('sends the window meter after create, and applies reasoningEffort or refuses it with the valid levels', async () => {
    const host = await hostIn('read-only');
    const app = peer();
    const { sessionId } = (await host.handle(app, 'acp.sessions.create', { model: 'local/test-model' })).result as { sessionId: string };
    const meter = await until(() => app.events.find((event) => event.type === 'context_usage'));
    expect(meter).toMatchObject({ sessionId, data: { contextUsage: { context_window: 8192, context_tokens: 0 } } });
    await expect(host.handle(app, 'acp.sessions.create', { reasoningEffort: 'ultra' })).rejects.toMatchObject({ code: 'AC_ERR_INVALID_ARGS' });
    // The refused create left nothing held.
    expect(app.sessions.size).toBe(1);
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
    const { sessionId } = (await host.handle(app, 'acp.sessions.create', {})).result as { sessionId: string };
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
    const { sessionId } = (await host.handle(app, 'acp.sessions.create', {})).result as { sessionId: string };
    const events = await run(host, app, sessionId, 'hi');
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: 'error', data: { kind: 'http' } });
    expect(end.data['message']).toMatch(/HTTP 401[\s\S]*Incorrect API key provided/);
    expect(events.some((event) => event.type === 'final')).toBe(false);
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
    const first = [...app.sessions][0]!;
    await host.handle(app, 'acp.sessions.close', { sessionId: first });
    await expect(host.handle(app, 'acp.sessions.create', {})).resolves.toBeDefined();
  });

  it("gives a session to the connection that resumes it, and lets go of a disconnected one's sessions", async () => {
    const host = await hostIn('read-only');
    const one = peer();
    const two = peer();
    server.handle(script([{ text: 'hi' }]));
    const { sessionId } = (await host.handle(one, 'acp.sessions.create', {})).result as { sessionId: string };
    await expect(host.handle(two, 'acp.sessions.send', { sessionId, message: { content: 'x' } })).rejects.toMatchObject({ code: 'AC_ERR_INVALID_ARGS' });
    expect((await host.handle(two, 'acp.sessions.resume', { sessionId })).result).toEqual({ sessionId });
    await expect(host.handle(one, 'acp.sessions.send', { sessionId, message: { content: 'x' } })).rejects.toMatchObject({ code: 'AC_ERR_INVALID_ARGS' });
    const events = await run(host, two, sessionId, 'hello');
    expect(events.at(-1)).toMatchObject({ type: 'final', data: { text: 'hi' } });
    await host.disconnect(two);
    expect(two.sessions.size).toBe(0);
    await expect(host.handle(two, 'acp.sessions.cancel', { sessionId })).rejects.toMatchObject({ code: 'AC_ERR_INVALID_ARGS' });
    await expect(host.handle(one, 'acp.unknown.method', {})).rejects.toMatchObject({ code: 'AC_ERR_UNSUPPORTED' });
  });
});
