/**
 * `openai-acp agentconnect` driven by AgentConnect's own SDK (v0.2.6, vendored unchanged in
 * `test/fixtures/agentconnect/sdk/`, with `ws` as its WebSocket, as a Node app runs it), each
 * event read as the SDK hands it to an app (`session.on(type, …)`): what the reference host
 * (`packages/host/src/host.ts` at the same commit) does, the front door does too.
 */
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AgentConnect, type AgentConnectClient, type AgentConnectSession, type SessionEvent } from '../fixtures/agentconnect/sdk/index.js';
import { chunk, fakeServerPool, startFakeOpenAI, type ChatHandler, type FakeOpenAI } from '../helpers/fake-openai.js';
import { frontDoorPool } from '../helpers/agentconnect-client.js';

const servers = fakeServerPool();
const { door: startDoor } = frontDoorPool();
const MODELS = { object: 'list', data: [{ id: 'test-model', context_length: 32768 }, { id: 'other-model' }] };

/**
 * One front door (and its model server, listing {@link MODELS}) for the cases that need no
 * settings of their own and leave the model list as it was: each case sets the model's answer and
 * connects its own apps, which make their own sessions. A process start costs ~0.3 s of CPU; every
 * behaviour here is still shown by a real spawn.
 */
let shared: { server: FakeOpenAI; url: string } | undefined;
afterAll(() => shared?.server.close());

async function sharedDoor(handler: ChatHandler): Promise<string> {
  if (shared === undefined) {
    const server = await startFakeOpenAI(handler);
    server.setModels(MODELS);
    shared = { server, url: (await startDoor(server.baseUrl, [], { OPENAI_ACP_STATE_DIR: 'off' }, true)).url };
  }
  shared.server.handle(handler);
  shared.server.requests.length = 0;
  return shared.url;
}

/** An SDK client of `url`, as a Node app connects (`webSocket` given: Node 20 has no global WebSocket). */
async function sdk(url: string): Promise<AgentConnectClient> {
  return AgentConnect.connect({ host: url, preferInjected: false, webSocket: WebSocket as never });
}

/** Every event the SDK hands the app for `session`, in order (listeners on each type the SDK knows). */
function recordEvents(session: AgentConnectSession): SessionEvent[] {
  const events: SessionEvent[] = [];
  for (const type of ['delta', 'final', 'usage', 'context_usage', 'error', 'thinking', 'tool_call', 'message'] as const)
    session.on(type, (event) => events.push(event));
  return events;
}

/** Resolves with the first recorded event matching `test`; rejects after `ms` (a generous bound, not a timing target). */
async function eventually(events: SessionEvent[], test: (event: SessionEvent) => boolean, ms = 15_000): Promise<SessionEvent> {
  const until = Date.now() + ms;
  for (;;) {
    const found = events.find(test);
    if (found) return found;
    if (Date.now() > until) throw new Error(`no such event; got ${JSON.stringify(events.map((event) => event.type))}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Keeps this thread busy for `ms`, as a Node app doing work: frames arriving meanwhile are read in one go afterwards. */
function busyFor(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy
  }
}

describe('openai-acp agentconnect with the AgentConnect SDK', () => {
  it('hands a busy app the meter after create: the events follow once the app has read the answer, not on a timer', async () => {
    const server = await servers();
    server.setModels(MODELS);
    const client = await sdk((await startDoor(server.baseUrl, [], { OPENAI_ACP_STATE_DIR: 'off' })).url);
    // Warm: the endpoint is known, so the create below needs nothing from this (soon busy) thread.
    recordEvents(await client.sessions.create({ model: 'default' }));
    for (let round = 0; round < 3; round++) {
      const creating = client.sessions.create({ model: 'default' });
      await new Promise((resolve) => setImmediate(resolve));
      // The answer and anything sent after it wait in the socket and are read together.
      busyFor(400);
      const events = recordEvents(await creating);
      const meter = await eventually(events, (event) => event.type === 'context_usage');
      expect(meter).toMatchObject({ contextUsage: { context_window: 32768, context_tokens: 0 } });
    }
    client.close();
  });

  it("gives a failed run's error event the failure only: 3,000 tokens streamed, then the stream broke off", async () => {
    const pieces = Array.from({ length: 3000 }, (_, i) => `d${i} `);
    const client = await sdk(
      await sharedDoor((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(pieces.map((piece) => chunk({ content: piece })).join(''));
        setTimeout(() => res.destroy(), 50);
      }),
    );
    const session = await client.sessions.create({ model: 'default' });
    const events = recordEvents(session);
    await session.send('Count');
    const error = (await eventually(events, (event) => event.type === 'error')) as Extract<SessionEvent, { type: 'error' }>;
    expect(error.message).not.toContain('d0 d1');
    expect(error.message.length).toBeLessThan(600);
    expect(error.message).toMatch(/broke off|closed|ended/i);
    // The answer streamed is the model's, without the failure's words, and no final follows the error.
    const streamed = events.flatMap((event) => (event.type === 'delta' ? [event.text] : [])).join('');
    expect(streamed).toBe(pieces.join(''));
    expect(events.some((event) => event.type === 'final')).toBe(false);
    client.close();
  });

  it('completes thinking when the answer text starts, before the first delta', async () => {
    const client = await sdk(
      await sharedDoor((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ reasoning_content: 'Weigh it.' }));
        res.write(chunk({ content: 'Forty' }));
        res.write(chunk({ content: '-two.' }, 'stop', { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 }));
        res.end('data: [DONE]\n\n');
      }),
    );
    const session = await client.sessions.create({ model: 'default' });
    const events = recordEvents(session);
    await session.send('What is it?');
    await eventually(events, (event) => event.type === 'final');
    const order = events
      .filter((event) => event.type === 'thinking' || event.type === 'delta' || event.type === 'final')
      .map((event) => (event.type === 'thinking' ? `thinking ${event.phase}` : event.type))
      // The text may come in one delta or two.
      .filter((type, index, all) => type !== 'delta' || all[index - 1] !== 'delta');
    expect(order).toEqual(['thinking start', 'thinking delta', 'thinking completed', 'delta', 'final']);
    client.close();
  });

  it('answers a cancel once the run has ended (final cancelled first), so a send right after is accepted', async () => {
    let requests = 0;
    const client = await sdk(
      await sharedDoor((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (++requests === 1) return void res.write(chunk({ content: 'Once upon' }));
        res.write(chunk({ content: 'Again.' }, 'stop'));
        res.end('data: [DONE]\n\n');
      }),
    );
    const session = await client.sessions.create({ model: 'default' });
    const events = recordEvents(session);
    await session.send('A long story');
    await eventually(events, (event) => event.type === 'delta');
    await session.cancel();
    // The SDK's cancel resolved: the run's final is already here.
    expect(events.filter((event) => event.type === 'final')).toEqual([expect.objectContaining({ cancelled: true, text: 'Once upon' })]);
    await session.send('Again');
    const final = await eventually(events, (event) => event.type === 'final' && event.cancelled !== true);
    expect(final).toMatchObject({ text: 'Again.' });
    client.close();
  });

  it("sends the run's final to the app that sent it when another app resumes the session meanwhile", async () => {
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const url = await sharedDoor(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'Part one' }));
      await finished;
      res.write(chunk({ content: ' and two.' }, 'stop'));
      res.end('data: [DONE]\n\n');
    });
    const first = await sdk(url);
    const session = await first.sessions.create({ model: 'default' });
    const firstEvents = recordEvents(session);
    await session.send('Tell it');
    await eventually(firstEvents, (event) => event.type === 'delta');
    const second = await sdk(url);
    const taken = await second.sessions.resume(session.id);
    const secondEvents = recordEvents(taken);
    finish();
    expect(await eventually(firstEvents, (event) => event.type === 'final')).toMatchObject({ text: 'Part one and two.' });
    expect(secondEvents.filter((event) => event.type === 'delta' || event.type === 'final')).toEqual([]);
    // The first app's session is the second's now.
    await expect(session.send('Mine?')).rejects.toThrow(/AC_ERR_INVALID_ARGS/);
    first.close();
    second.close();
  });

  it('follows the endpoint in provider status (force asks again), and refuses an unlisted model at create with the list', async () => {
    const server = await servers();
    server.setModels(MODELS);
    const client = await sdk((await startDoor(server.baseUrl, [], { OPENAI_ACP_STATE_DIR: 'off' })).url);
    expect(await client.providers.status('local')).toMatchObject({ installed: true, loggedIn: true });
    // The server goes down: asked again, the provider is logged out; back up, logged in.
    server.setModels({ error: { message: 'down' } }, 503);
    expect(await client.providers.status('local', { force: true })).toMatchObject({ loggedIn: false });
    server.setModels(MODELS);
    expect(await client.providers.status('local', { force: true })).toMatchObject({ loggedIn: true });

    await expect(client.sessions.create({ model: 'local:nope' })).rejects.toThrow(
      'AC_ERR_INVALID_ARGS: Unknown model "nope": this host offers test-model, other-model',
    );
    await expect(client.sessions.create({ model: 'local:other-model' })).resolves.toBeDefined();
    client.close();
  });

  it('words a time limit as it was set: OPENAI_TIMEOUT_MS=1500 is "1.5 s"', async () => {
    const server = await servers((_req, res) => {
      // Headers, then nothing.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
    });
    server.setModels(MODELS);
    const client = await sdk((await startDoor(server.baseUrl, [], { OPENAI_ACP_STATE_DIR: 'off', OPENAI_TIMEOUT_MS: '1500' })).url);
    const session = await client.sessions.create({ model: 'default' });
    const events = recordEvents(session);
    await session.send('Hello?');
    const error = (await eventually(events, (event) => event.type === 'error')) as Extract<SessionEvent, { type: 'error' }>;
    expect(error.message).toContain('for 1.5 s');
    expect(error.message).not.toMatch(/for 2 s/);
    client.close();
  });
});
