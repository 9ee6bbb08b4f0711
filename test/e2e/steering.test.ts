/**
 * Steering a running turn (`_session/steering`) and prompts that wait their turn, end to end: the
 * built CLI spawned, the ACP SDK's own client app on its stdio (as Claude's and codex's ACP
 * clients call the extension: `request("_session/steering", …)`), a loopback chat server whose
 * answers the test holds, and a second process loading the saved session.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client, ndJsonStream, type ClientConnection, type SessionNotification } from '@agentclientprotocol/sdk/unstable';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { heldAnswers, roles } from '../helpers/held-answers.js';
import { CLI, waitFor } from '../helpers/spawn-agent.js';
import { cleanEnv, tempHome } from '../helpers/temp-home.js';

let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());

interface Agent {
  child: ChildProcess;
  connection: ClientConnection;
  notifications: SessionNotification[];
  /** What the session was shown, as `user: …` and `agent: …` lines (chunks of one message joined). */
  shown(sessionId: string): string[];
  stop(): Promise<number | null>;
}
const running: Agent[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((agent) => agent.stop()));
});

/** The built CLI with the SDK's client on its stdio, initialized. */
async function start(home: string): Promise<Agent> {
  const child = spawn(process.execPath, [CLI], {
    env: cleanEnv(home, { OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_TOOLS: 'off', OPENAI_MAX_RETRIES: '0' }),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const notifications: SessionNotification[] = [];
  const connection = client()
    .onNotification('session/update', ({ params }) => {
      notifications.push(params);
    })
    .connect(ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  const init = await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  expect(init._meta?.['steering']).toEqual({ supported: true });
  const agent: Agent = {
    child,
    connection,
    notifications,
    shown: (sessionId) => {
      const lines: string[] = [];
      let last: string | undefined;
      for (const n of notifications) {
        if (n.sessionId !== sessionId || !/^(user|agent)_message_chunk$/.test(n.update.sessionUpdate)) continue;
        const update = n.update as { sessionUpdate: string; messageId?: string; content: { text: string } };
        const who = update.sessionUpdate.startsWith('user') ? 'user' : 'agent';
        const key = `${who}:${update.messageId}`;
        if (key === last) lines[lines.length - 1] += update.content.text;
        else lines.push(`${who}: ${update.content.text}`);
        last = key;
      }
      return lines;
    },
    stop: async () => {
      child.stdin!.end();
      const code = await exited;
      connection.close();
      return code;
    },
  };
  running.push(agent);
  return agent;
}

const text = (t: string) => [{ type: 'text' as const, text: t }];
/** `session/prompt` with one text block. */
const ask = (agent: Agent, sessionId: string, t: string): Promise<{ stopReason: string }> =>
  agent.connection.agent.request('session/prompt', { sessionId, prompt: text(t) });
type SteeringResponse = { outcome: string; reason?: string; message?: string };

describe('steering and waiting prompts against the built CLI', () => {
  it('a steering message joins the running turn, a prompt sent meanwhile waits and runs after it, and a new process replays all of it in order', async () => {
    const held = heldAnswers();
    server.handle(held.handler);
    const home = tempHome();
    const agent = await start(home);
    const { sessionId } = await agent.connection.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    const first = ask(agent, sessionId, 'Name three rivers.');
    (await held.at(0)).say('Nile, Amazon');
    const steered = await agent.connection.agent.request<SteeringResponse>('_session/steering', {
      sessionId,
      prompt: text('Only European ones.'),
      _meta: { steering: { idleBehavior: 'promptRequired' } },
    });
    expect(steered).toEqual({ outcome: 'injected' });
    const queued = ask(agent, sessionId, 'And three lakes?');
    held.all[0]!.end(', Yangtze');
    const second = await held.at(1);
    expect(roles(second.body)).toEqual(['user: Name three rivers.', 'assistant: Nile, Amazon, Yangtze', 'user: Only European ones.']);
    // The queued prompt has not reached the model yet: it waits for this turn.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(held.all).toHaveLength(2);
    second.end('Rhine, Danube, Loire');
    expect((await first).stopReason).toBe('end_turn');
    const third = await held.at(2);
    expect(roles(third.body).slice(-2)).toEqual(['assistant: Rhine, Danube, Loire', 'user: And three lakes?']);
    third.end('Geneva, Como, Ohrid');
    expect((await queued).stopReason).toBe('end_turn');

    // No turn runs now: with the opt-in the client keeps the message; without it a turn starts.
    expect(
      await agent.connection.agent.request<SteeringResponse>('_session/steering', {
        sessionId,
        prompt: text('Thanks!'),
        _meta: { steering: { idleBehavior: 'promptRequired' } },
      }),
    ).toEqual({ outcome: 'promptRequired', reason: 'noRunningTurn' });
    expect(await agent.connection.agent.request<SteeringResponse>('_session/steering', { sessionId, prompt: text('One more river?') })).toEqual({
      outcome: 'startedNewTurn',
    });
    (await held.at(3)).end('Thames');
    await waitFor(() => agent.shown(sessionId).at(-1) === 'agent: Thames', 5000, 'the started turn');
    expect(await agent.connection.agent.request<SteeringResponse>('_session/steering', { sessionId: 'not-a-session', prompt: text('hi') })).toMatchObject({
      outcome: 'failed',
      reason: 'sessionNotFound',
    });
    expect(await agent.stop()).toBe(0);

    const later = await start(home);
    await later.connection.agent.request('session/load', { sessionId, cwd: process.cwd(), mcpServers: [] });
    expect(later.shown(sessionId)).toEqual([
      'user: Name three rivers.',
      'agent: Nile, Amazon, Yangtze',
      'user: Only European ones.',
      'agent: Rhine, Danube, Loire',
      'user: And three lakes?',
      'agent: Geneva, Como, Ohrid',
      'user: One more river?',
      'agent: Thames',
    ]);
  });
});
