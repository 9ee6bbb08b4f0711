/**
 * `_session/steering` and prompts that wait their turn, through the real agent wiring (in process,
 * a file store in a temp dir, a loopback chat server whose answers the test holds): the
 * `initialize` advertisement, each outcome Claude's ACP agent and codex-acp answer with, bad
 * input, the race with a turn's end, and what a later `session/load` shows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionNotification } from '@agentclientprotocol/sdk/unstable';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/shared/log.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { chunk, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { heldAnswers, roles } from '../helpers/held-answers.js';
import { connectInProcess, type InProcess } from '../helpers/in-process.js';

const quiet = createLogger({ level: 'error', write: () => undefined });
let server: FakeOpenAI;
let dir: string | undefined;
const open: InProcess[] = [];
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());
afterEach(() => {
  for (const conn of open.splice(0)) conn.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function agent(): Promise<InProcess> {
  dir ??= mkdtempSync(join(tmpdir(), 'openai-acp-steer-'));
  const conn = await connectInProcess(
    { OPENAI_BASE_URL: server.baseUrl, OPENAI_ACP_TOOLS: 'off' },
    { store: openSessionStore({ stateDir: dir, env: {}, logger: quiet }) },
  );
  open.push(conn);
  return conn;
}
const text = (t: string) => [{ type: 'text' as const, text: t }];
/** A fresh agent and session on a chat server whose answers the test holds. */
async function heldSession() {
  const held = heldAnswers();
  server.handle(held.handler);
  const conn = await agent();
  return { held, conn, sessionId: await conn.newSession() };
}
type SteeringResponse = { outcome: string; reason?: string; message?: string };
const steer = (conn: InProcess, sessionId: string, t: string | unknown[], meta?: unknown) =>
  conn.agent.request<SteeringResponse>('_session/steering', { sessionId, prompt: typeof t === 'string' ? text(t) : t, ...(meta ? { _meta: meta } : {}) });
const promptRequired = { steering: { idleBehavior: 'promptRequired' } };
/** `session/prompt` with one text block. */
const ask = (conn: InProcess, sessionId: string, t: string): Promise<{ stopReason: string }> =>
  conn.agent.request('session/prompt', { sessionId, prompt: text(t) });
/** The session's replay on load, as `kind: text` strings. */
async function replayed(sessionId: string): Promise<string[]> {
  const later = await agent();
  await later.agent.request('session/load', { sessionId, cwd: process.cwd(), mcpServers: [] });
  return later.notifications
    .filter((n: SessionNotification) => n.sessionId === sessionId && /^(user|agent)_message_chunk$/.test(n.update.sessionUpdate))
    .map((n) => `${n.update.sessionUpdate.split('_')[0]}: ${(n.update as { content: { text: string } }).content.text}`);
}

describe('initialize', () => {
  it("advertises the steering extension where Claude's agent and codex-acp do: the answer's _meta.steering.supported", async () => {
    const conn = await agent();
    const answer = await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(answer._meta).toEqual({ steering: { supported: true } });
  });
});

describe('a message sent while a turn runs', () => {
  it("joins the conversation before the model's next request, answered injected; the turn ends once; load replays it in order", async () => {
    const { held, conn, sessionId } = await heldSession();
    const turn = ask(conn, sessionId, 'write a haiku');
    const first = await held.at(0);
    first.say('Autumn');
    await expect(steer(conn, sessionId, 'about winter, please')).resolves.toEqual({ outcome: 'injected' });
    first.end(' moon');
    const second = await held.at(1);
    expect(roles(second.body)).toEqual(['user: write a haiku', 'assistant: Autumn moon', 'user: about winter, please']);
    second.end('Winter moon');
    expect((await turn).stopReason).toBe('end_turn');
    expect(held.all).toHaveLength(2);
    expect(await replayed(sessionId)).toEqual(['user: write a haiku', 'agent: Autumn moon', 'user: about winter, please', 'agent: Winter moon']);
  });

  it("is never given to another session's turn", async () => {
    const { held, conn, sessionId: a } = await heldSession();
    const b = await conn.newSession();
    const turnA = ask(conn, a, 'task A');
    const turnB = ask(conn, b, 'task B');
    await held.at(1);
    expect(await steer(conn, a, 'only for A')).toEqual({ outcome: 'injected' });
    const ofB = held.all.find((h) => JSON.stringify(h.body).includes('task B'))!;
    ofB.end('B done');
    expect((await turnB).stopReason).toBe('end_turn');
    held.all.find((h) => JSON.stringify(h.body).includes('task A'))!.end('A first');
    (await held.at(2)).end('A again');
    await turnA;
    const sent = held.all.map((h) => JSON.stringify(h.body.messages));
    expect(sent.filter((s) => s.includes('only for A'))).toHaveLength(1);
    expect(sent.filter((s) => s.includes('task B') && s.includes('only for A'))).toEqual([]);
  });

  it('when the turn is cancelled before the model saw it, it goes in front of the next prompt', async () => {
    const { held, conn, sessionId } = await heldSession();
    const turn = ask(conn, sessionId, 'count to ten');
    (await held.at(0)).say('one two');
    expect(await steer(conn, sessionId, 'in French')).toEqual({ outcome: 'injected' });
    await conn.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    const next = ask(conn, sessionId, 'go on');
    (await held.at(1)).end('un deux');
    await next;
    // A turn cancelled before it answered keeps no answer: its prompt and the message both go in front of the next one.
    expect(roles(held.all[1]!.body)).toEqual(['user: count to ten\n\nin French\n\ngo on']);
  });

  it('when the turn fails before the model answered, it is kept: in front of the next prompt, and replayed on load', async () => {
    let release!: () => void;
    const failing = new Promise<void>((resolve) => (release = resolve));
    let requests = 0;
    server.handle(async (_req, res) => {
      if (++requests === 1) {
        await failing;
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'bad request' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'un deux' }, 'stop'));
      res.end('data: [DONE]\n\n');
    });
    const conn = await agent();
    const sessionId = await conn.newSession();
    const turn = ask(conn, sessionId, 'count to ten');
    await waitUntil(() => requests === 1);
    expect(await steer(conn, sessionId, 'in French')).toEqual({ outcome: 'injected' });
    release();
    await expect(turn).rejects.toMatchObject({ code: -32603, data: { kind: 'http', status: 400 } });
    await ask(conn, sessionId, 'go on');
    // The message was answered `injected`: it is not lost with the failed turn.
    expect(roles(server.requests.at(-1)!.body)).toEqual(['user: count to ten\n\nin French\n\ngo on']);
    expect((await replayed(sessionId)).slice(0, 2)).toEqual(['user: count to ten', 'user: in French']);
  });
});

describe('a message sent while no turn runs', () => {
  it('answers promptRequired (noRunningTurn) with the opt-in, and does nothing else', async () => {
    server.handle(heldAnswers().handler);
    const conn = await agent();
    const sessionId = await conn.newSession();
    const before = server.requests.length;
    expect(await steer(conn, sessionId, 'hello?', promptRequired)).toEqual({ outcome: 'promptRequired', reason: 'noRunningTurn' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests.length).toBe(before);
  });

  it("without it, starts a turn of its own (startedNewTurn), streamed as a prompt's and saved as one", async () => {
    const { held, conn, sessionId } = await heldSession();
    expect(await steer(conn, sessionId, 'what time is it?')).toEqual({ outcome: 'startedNewTurn' });
    const request = await held.at(0);
    expect(roles(request.body)).toEqual(['user: what time is it?']);
    request.end('Noon.');
    await waitUntil(() => conn.text(sessionId) === 'Noon.');
    // The next prompt waits for that turn and sees it.
    const next = ask(conn, sessionId, 'thanks');
    (await held.at(1)).end('You are welcome.');
    await next;
    expect(roles(held.all[1]!.body)).toEqual(['user: what time is it?', 'assistant: Noon.', 'user: thanks']);
  });
});

describe('bad input gets a clear answer', () => {
  it('failed with a reason for an unknown session, an empty message and a 10 MB one', async () => {
    server.handle(heldAnswers().handler);
    const conn = await agent();
    const sessionId = await conn.newSession();
    const before = server.requests.length;
    expect(await steer(conn, 'no-such-session', 'hi')).toMatchObject({
      outcome: 'failed',
      reason: 'sessionNotFound',
      message: expect.stringContaining('no-such-session'),
    });
    expect(await steer(conn, sessionId, [])).toMatchObject({ outcome: 'failed', reason: 'emptyPrompt' });
    expect(await steer(conn, sessionId, '  \n ')).toMatchObject({ outcome: 'failed', reason: 'emptyPrompt' });
    const huge = await steer(conn, sessionId, 'x'.repeat(10 * 1024 * 1024));
    expect(huge).toMatchObject({ outcome: 'failed', reason: 'promptTooLarge', message: expect.stringContaining('10,485,760 bytes') });
    expect(server.requests.length).toBe(before);
  });

  it("-32602 for params of the wrong shape, as Claude's agent answers them", async () => {
    const conn = await agent();
    const sessionId = await conn.newSession();
    for (const params of [
      { sessionId },
      { sessionId, prompt: 'hi' },
      { prompt: text('hi') },
      { sessionId, prompt: [{ text: 'no type' }] },
      { sessionId, prompt: text('x'), _meta: { steering: { idleBehavior: 'queue' } } },
      { sessionId, prompt: [{ type: 'image', mimeType: 'text/html', data: 'AAAA' }] },
    ])
      await expect(conn.agent.request('_session/steering', params), JSON.stringify(params)).rejects.toMatchObject({ code: -32602 });
  });

  it('racing the end of a turn: each message is taken by the turn or starts one of its own; none is lost or sent twice', async () => {
    let n = 0;
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      setTimeout(() => {
        res.write(chunk({ content: `reply ${++n}.` }, 'stop'));
        res.end('data: [DONE]\n\n');
      }, 2);
    });
    const conn = await agent();
    const sessionId = await conn.newSession();
    const start = server.requests.length;
    const turn = ask(conn, sessionId, 'start');
    const answers: Promise<SteeringResponse>[] = [];
    const notes = 15;
    for (let i = 0; i < notes; i++) {
      answers.push(steer(conn, sessionId, `note ${i}`));
      // Some while the turn runs, some as it ends, some after it ended.
      await new Promise((resolve) => setTimeout(resolve, i % 4));
      if (i === 9) await turn;
    }
    const outcomes = await Promise.all(answers);
    expect(
      outcomes.every((o) => o.outcome === 'injected' || o.outcome === 'startedNewTurn'),
      JSON.stringify(outcomes),
    ).toBe(true);
    expect(outcomes.some((o) => o.outcome === 'startedNewTurn')).toBe(true);
    // Once every turn started has answered, the next prompt's request holds the whole history.
    await waitUntil(() => server.requests.length - start === n && conn.text(sessionId).split('reply').length - 1 === n, 5000);
    const done = ask(conn, sessionId, 'end');
    await done;
    const history = JSON.stringify(server.requests.at(-1)!.body.messages);
    const count = (text: string, i: number) => text.match(new RegExp(`note ${i}(?!\\d)`, 'g'))?.length ?? 0;
    for (let i = 0; i < notes; i++) expect(count(history, i), `note ${i}`).toBe(1);
    const stored = await (await openSessionStore({ stateDir: dir!, env: {}, logger: quiet })).load(sessionId);
    const saved = JSON.stringify(stored!.records);
    for (let i = 0; i < notes; i++) expect(count(saved, i), `note ${i} saved`).toBe(1);
  });
});

describe('a prompt sent while a turn runs', () => {
  it('waits for the turn to end (not cancelling it), then runs; load replays both in order', async () => {
    const { held, conn, sessionId } = await heldSession();
    const first = ask(conn, sessionId, 'first');
    (await held.at(0)).say('one');
    const second = ask(conn, sessionId, 'second');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(held.all).toHaveLength(1);
    held.all[0]!.end(' done');
    expect((await first).stopReason).toBe('end_turn');
    (await held.at(1)).end('two');
    expect((await second).stopReason).toBe('end_turn');
    expect(roles(held.all[1]!.body)).toEqual(['user: first', 'assistant: one done', 'user: second']);
    expect(await replayed(sessionId)).toEqual(['user: first', 'agent: one done', 'user: second', 'agent: two']);
  });

  it('a cancel reaches the running turn and the prompts waiting behind it', async () => {
    const { held, conn, sessionId } = await heldSession();
    const first = ask(conn, sessionId, 'first');
    await held.at(0);
    const second = ask(conn, sessionId, 'second');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await conn.agent.notify('session/cancel', { sessionId });
    expect((await first).stopReason).toBe('cancelled');
    expect((await second).stopReason).toBe('cancelled');
    expect(held.all).toHaveLength(1);
  });
});

async function waitUntil(check: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
