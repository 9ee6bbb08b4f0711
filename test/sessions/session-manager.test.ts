import { describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/sessions/session-manager.js';

describe('SessionManager sessions', () => {
  it('creates sessions with unique ids and finds them again', () => {
    const manager = new SessionManager();
    const ids = new Set<string>();
    for (let i = 0; i < 50; i++) ids.add(manager.create('/tmp', 'm').id);
    expect(ids.size).toBe(50);
    expect(manager.size).toBe(50);
    const session = manager.create('/work', 'gpt-x');
    expect(session).toMatchObject({ cwd: '/work', model: 'gpt-x', records: [], options: {} });
    expect(Date.parse(session.createdAt)).not.toBeNaN();
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(manager.get(session.id)).toBe(session);
    expect(manager.get('nope')).toBeUndefined();
  });
});

describe('SessionManager restore and remove', () => {
  it('restore holds a stored session under its own id, replacing an older copy', () => {
    const manager = new SessionManager();
    const state = { id: 'stored-1', cwd: '/w', createdAt: '2026-01-01T00:00:00.000Z', records: [], model: 'm', options: { thought_level: 'high' }, title: 't' };
    const first = manager.restore(state);
    expect(manager.get('stored-1')).toBe(first);
    expect(first).toMatchObject(state);
    const second = manager.restore({ ...state, model: 'n' });
    expect(manager.get('stored-1')).toBe(second);
    expect(second.model).toBe('n');
    expect(manager.size).toBe(1);
  });

  it('remove forgets the session; a second remove reports false', () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    expect(manager.remove(session.id)).toBe(true);
    expect(manager.get(session.id)).toBeUndefined();
    expect(manager.remove(session.id)).toBe(false);
  });
});
