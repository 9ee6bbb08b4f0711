/**
 * `LiveSession` and `LiveSessions` (`app/live-session.ts`): the one record of who holds a session,
 * the one check of a connection's authority over it (`heldBy`), and what reaches its holders.
 */
import type { AgentContext, SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { ClientPeer } from '../../src/app/client-peer.js';
import { promptUpdates } from '../../src/app/live-session.js';
import { LiveSessions } from '../../src/app/live-sessions.js';

/** A client that records the `session/update`s sent to it. */
function recording() {
  const sent: { sessionId: string; update: SessionUpdate }[] = [];
  const client = { notify: async (_method: string, params: { sessionId: string; update: SessionUpdate }) => void sent.push(params) } as unknown as AgentContext;
  return { client, sent };
}

function registry() {
  const closed: string[] = [];
  const live = new LiveSessions(async (session) => {
    if (!live.remove(session)) return false;
    closed.push(session.id);
    return true;
  });
  return { sessions: live, live, closed };
}

function peerWith(client?: AgentContext, notices = false): ClientPeer {
  const peer = new ClientPeer(Number.POSITIVE_INFINITY, true);
  if (client) peer.reachedBy(client);
  if (notices) peer.advertise({ session: { notices: {} } } as never);
  return peer;
}

describe('LiveSessions.heldBy, the one check', () => {
  it('gives the session to a holder and -32002 {sessionId} to anyone else, for an unknown id too', () => {
    const { sessions, live } = registry();
    const session = sessions.create('/w', 'm');
    const owner = peerWith();
    const stranger = peerWith();
    live.of(session).addHolder(owner);
    expect(live.heldBy(session.id, owner).session).toBe(session);
    expect(() => live.heldBy(session.id, stranger)).toThrow(expect.objectContaining({ code: -32002, data: { sessionId: session.id } }));
    expect(() => live.heldBy('no-such-id', owner)).toThrow(expect.objectContaining({ code: -32002, data: { sessionId: 'no-such-id' } }));
    expect(live.idsHeldBy(owner)).toEqual([session.id]);
    expect(live.idsHeldBy(stranger)).toEqual([]);
  });

  it('keeps the holders when the session is held again from the store, and forgets them on close', async () => {
    const { sessions, live } = registry();
    const session = sessions.create('/w', 'm');
    const owner = peerWith();
    live.of(session).addHolder(owner);
    const again = sessions.restore({ ...session, records: [] });
    expect(live.of(again).isHeldBy(owner)).toBe(true);
    expect(await live.of(again).close()).toBe(true);
    expect(() => live.heldBy(session.id, owner)).toThrow(expect.objectContaining({ code: -32002 }));
    expect(live.idsHeldBy(owner)).toEqual([]);
  });
});

describe('what reaches the holders', () => {
  it("tells every holder but the one excepted; a notice only to a holder that advertised notices; a turn's sink reaches all", async () => {
    const { sessions, live } = registry();
    const session = sessions.create('/w', 'm');
    const a = recording();
    const b = recording();
    const c = recording();
    const prompting = peerWith(a.client);
    const plain = peerWith(b.client);
    const noticing = peerWith(c.client, true);
    const entry = live.of(session);
    for (const peer of [prompting, plain, noticing]) entry.addHolder(peer);
    const notice = { sessionUpdate: 'notice', severity: 'info', title: 't' } as unknown as SessionUpdate;
    await entry.tell([...promptUpdates([{ type: 'text', text: 'hi' }]), notice], prompting);
    expect(a.sent).toEqual([]);
    expect(b.sent.map((n) => n.update.sessionUpdate)).toEqual(['user_message_chunk']);
    expect(c.sent.map((n) => n.update.sessionUpdate)).toEqual(['user_message_chunk', 'notice']);
    await entry.turnSink(a.client, prompting)([{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } }]);
    await new Promise((resolve) => setImmediate(resolve));
    for (const r of [a, b, c]) expect(r.sent.at(-1)).toMatchObject({ sessionId: session.id, update: { sessionUpdate: 'agent_message_chunk' } });
  });

  it("knows whose prompt runs the turn, until that turn's end", () => {
    const { sessions, live } = registry();
    const entry = live.of(sessions.create('/w', 'm'));
    const one = peerWith();
    const two = peerWith();
    const ended = entry.runFor(one);
    expect(entry.runningElsewhere(two)).toBe(true);
    expect(entry.runningElsewhere(one)).toBe(false);
    ended();
    expect(entry.runningElsewhere(two)).toBe(false);
  });
});

describe('what a live session owns, and its closing', () => {
  it('close settles the running turn, stops the MCP servers and drops the model list and commands, then lets the registry forget it', async () => {
    const { sessions, live, closed } = registry();
    const session = sessions.create('/w', 'm');
    const entry = live.of(session);
    entry.addHolder(peerWith());
    let mcpClosed = 0;
    entry.tools = { roots: { cwd: '/w', extra: [] }, mcpList: '[]', mcp: { close: async () => void mcpClosed++ } as never };
    entry.models = [{ id: 'm' }];
    entry.commands = { fingerprint: '', commands: new Map(), advertised: '' };
    const turn = entry.line.run((signal) => new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('cancelled'))));
    expect(live.anyRunning()).toBe(true);
    expect(await entry.close()).toBe(true);
    expect(await turn).toBe('cancelled');
    expect(mcpClosed).toBe(1);
    expect([entry.tools, entry.models, entry.commands, entry.holderCount]).toEqual([undefined, undefined, undefined, 0]);
    expect(closed).toEqual([session.id]);
    expect(live.live(session.id)).toBeUndefined();
    expect(live.anyRunning()).toBe(false);
  });

  it('a load while the MCP servers stop holds the session afresh: the closing forgets only its own object, once', async () => {
    const { sessions, live, closed } = registry();
    const session = sessions.create('/w', 'm');
    const entry = live.of(session);
    let stopped: () => void = () => undefined;
    const mcp = { close: () => new Promise<void>((resolve) => (stopped = resolve)) };
    entry.tools = { roots: { cwd: '/w', extra: [] }, mcpList: '[]', mcp: mcp as never };
    const closing = entry.close();
    expect(entry.close()).toBe(closing);
    // The session is forgotten before its servers have stopped; a load then holds it afresh.
    await new Promise((resolve) => setImmediate(resolve));
    expect(live.live(session.id)).toBeUndefined();
    const again = live.of(sessions.restore({ ...session, records: [] }));
    expect(again.tools).toBeUndefined();
    stopped();
    expect(await closing).toBe(true);
    expect(closed).toEqual([session.id]);
    expect(live.live(session.id)).toBe(again);
    // Closing the old object again lets go of nothing of the new one.
    expect(await entry.close()).toBe(true);
    expect(live.live(session.id)).toBe(again);
  });

  it('a session held again from the store keeps its turn line, tools, model list and commands, and starts its notices afresh', () => {
    const { sessions, live } = registry();
    const session = sessions.create('/w', 'm');
    const before = live.of(session);
    before.tools = { roots: { cwd: '/w', extra: [] }, mcpList: '[]' };
    before.models = [{ id: 'm' }];
    before.told.add('small-window');
    const arrived = before.line.arrive();
    const after = live.of(sessions.restore({ ...session, records: [] }));
    expect(after).not.toBe(before);
    expect(after.line).toBe(before.line);
    expect(after.line.inbox).toBe(arrived.inbox);
    expect([after.tools, after.models]).toEqual([before.tools, before.models]);
    expect(after.told.size).toBe(0);
    arrived.done();
  });

  it('cancelAll aborts the turns of every session and resolves once they have settled', async () => {
    const { sessions, live } = registry();
    const turns = [0, 1, 2].map(() =>
      live
        .of(sessions.create('/w', 'm'))
        .line.run((signal) => new Promise<boolean>((resolve) => signal.addEventListener('abort', () => setTimeout(() => resolve(true), 5)))),
    );
    expect(live.anyRunning()).toBe(true);
    await live.cancelAll();
    await expect(Promise.all(turns)).resolves.toEqual([true, true, true]);
    expect(live.anyRunning()).toBe(false);
  });
});
