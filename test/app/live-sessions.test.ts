/**
 * `LiveSessions` (`app/live-sessions.ts`) as the one registry of the sessions in memory: new and
 * restored sessions kept by id, a restored copy carrying on its live session, removal of only the
 * copy kept.
 */
import { describe, expect, it } from 'vitest';
import { ClientPeer } from '../../src/app/client-peer.js';
import { LiveSessions } from '../../src/app/live-sessions.js';

const registry = () => new LiveSessions(async () => false);

describe('LiveSessions, the sessions in memory', () => {
  it('creates sessions with unique ids, each with its live session, and finds them again', () => {
    const sessions = registry();
    const ids = new Set<string>();
    for (let i = 0; i < 50; i++) ids.add(sessions.create('/tmp', 'm').id);
    expect(ids.size).toBe(50);
    expect(sessions.size).toBe(50);
    const session = sessions.create('/work', 'gpt-x');
    expect(session).toMatchObject({ cwd: '/work', model: 'gpt-x', records: [], options: {} });
    expect(Date.parse(session.createdAt)).not.toBeNaN();
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(sessions.get(session.id)).toBe(session);
    expect(sessions.live(session.id)?.session).toBe(session);
    expect(sessions.of(session)).toBe(sessions.live(session.id));
    expect(sessions.get('nope')).toBeUndefined();
    expect(sessions.all().at(-1)).toBe(session);
  });

  it('restore keeps a stored session under its id, replacing the older copy, whose live session it carries on', () => {
    const sessions = registry();
    const state = { id: 'stored-1', cwd: '/w', createdAt: '2026-01-01T00:00:00.000Z', records: [], model: 'm', options: { thought_level: 'high' }, title: 't' };
    const first = sessions.restore(state);
    expect(sessions.get('stored-1')).toBe(first);
    expect(first).toMatchObject(state);
    const holder = new ClientPeer(Number.POSITIVE_INFINITY, true);
    const before = sessions.of(first);
    before.addHolder(holder);
    const second = sessions.restore({ ...state, model: 'n' });
    expect(sessions.get('stored-1')).toBe(second);
    expect(second.model).toBe('n');
    expect(sessions.size).toBe(1);
    const after = sessions.of(second);
    expect(after).not.toBe(before);
    expect(after.line).toBe(before.line);
    expect(after.isHeldBy(holder)).toBe(true);
    // The older copy's turn gets a live session of its own, not the registered one, the same each time.
    expect(sessions.of(first)).not.toBe(after);
    expect(sessions.of(first)).toBe(sessions.of(first));
  });

  it('remove forgets only the copy kept; a second remove, or one of an older copy, reports false', () => {
    const sessions = registry();
    const session = sessions.create('/', 'm');
    const newer = sessions.restore({ ...session, records: [] });
    expect(sessions.remove(session)).toBe(false);
    expect(sessions.get(session.id)).toBe(newer);
    expect(sessions.remove(newer)).toBe(true);
    expect(sessions.get(session.id)).toBeUndefined();
    expect(sessions.live(session.id)).toBeUndefined();
    expect(sessions.remove(newer)).toBe(false);
    expect(sessions.size).toBe(0);
    // A turn of a removed session still gets a live session, detached: the session does not come back.
    expect(sessions.of(newer).session).toBe(newer);
    expect(sessions.live(newer.id)).toBeUndefined();
    expect(sessions.size).toBe(0);
  });
});
