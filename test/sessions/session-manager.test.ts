import { describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/sessions/session-manager.js';

/** A promise with its resolve function outside. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Work that runs until its signal aborts, then settles with 'cancelled' after `settleMs`. */
function untilAborted(log: string[], name: string, settleMs = 20) {
  return (signal: AbortSignal) =>
    new Promise<string>((resolve) => {
      log.push(`${name} start`);
      signal.addEventListener('abort', () =>
        setTimeout(() => {
          log.push(`${name} end`);
          resolve('cancelled');
        }, settleMs),
      );
    });
}

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

describe('SessionManager turns', () => {
  it('returns what the work returns, and rethrows what it throws', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    await expect(manager.runTurn(session, async () => 42)).resolves.toBe(42);
    await expect(manager.runTurn(session, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(manager.runTurn(session, async (signal) => signal.aborted)).resolves.toBe(false);
  });

  it('a second prompt waits for the first turn to end, unaborted, and then runs', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    const log: string[] = [];
    const release = deferred();
    let firstSignal: AbortSignal | undefined;
    const first = manager.runTurn(session, async (signal) => {
      firstSignal = signal;
      log.push('first start');
      await release.promise;
      log.push('first end');
      return 'one';
    });
    const second = manager.runTurn(session, async (signal) => {
      log.push('second start');
      expect(signal.aborted).toBe(false);
      return 'two';
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(firstSignal?.aborted).toBe(false);
    expect(log).toEqual(['first start']);
    release.resolve();
    await expect(first).resolves.toBe('one');
    await expect(second).resolves.toBe('two');
    expect(log).toEqual(['first start', 'first end', 'second start']);
  });

  it('waits even for a predecessor that fails', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    const log: string[] = [];
    const first = manager.runTurn(session, () => new Promise((_, reject) => setTimeout(() => (log.push('first failed'), reject(new Error('x'))), 10)));
    const second = manager.runTurn(session, async () => log.push('second'));
    await expect(first).rejects.toThrow('x');
    await second;
    expect(log).toEqual(['first failed', 'second']);
  });

  it('prompts run in the order they arrived, not the order their turns were asked for', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    const log: string[] = [];
    const running = deferred();
    const first = manager.runTurn(session, async () => {
      log.push('first');
      await running.promise;
    });
    const a = manager.arrive(session.id);
    const b = manager.arrive(session.id);
    // b's turn is asked for before a's: it still waits for a.
    const later = manager.runTurn(session, async () => log.push('b'), b);
    const earlier = manager.runTurn(session, async () => log.push('a'), a);
    running.resolve();
    await first;
    await earlier;
    // The caller that placed a prompt ends it: only then does the next one start.
    expect(log).toEqual(['first', 'a']);
    a.done();
    await later;
    b.done();
    expect(log).toEqual(['first', 'a', 'b']);
  });

  it('a cancel reaches the running turn and every prompt waiting, not one arriving after it', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    const log: string[] = [];
    const first = manager.runTurn(session, untilAborted(log, 'first'));
    const waiting = manager.runTurn(session, async (signal) => signal.aborted);
    expect(manager.cancel(session.id)).toBe(true);
    const after = manager.runTurn(session, async (signal) => signal.aborted);
    await expect(first).resolves.toBe('cancelled');
    await expect(waiting).resolves.toBe(true);
    await expect(after).resolves.toBe(false);
  });

  it('a turn cancelled while waiting for its predecessor still runs, with an aborted signal', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    const log: string[] = [];
    const first = manager.runTurn(session, untilAborted(log, 'first'));
    const second = manager.runTurn(session, async (signal) => signal.aborted);
    expect(manager.cancel(session.id)).toBe(true);
    await first;
    await expect(second).resolves.toBe(true);
  });

  it('a cancel between the arrival of a prompt and its turn reaches the turn, and only that prompt', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    const arrived = manager.arrive(session.id);
    expect(manager.cancel(session.id)).toBe(true);
    await expect(manager.runTurn(session, async (signal) => signal.aborted, arrived)).resolves.toBe(true);
    arrived.done();
    // Once done, the prompt is gone: nothing to cancel, and the next prompt starts unaborted.
    expect(manager.cancel(session.id)).toBe(false);
    const next = manager.arrive(session.id);
    await expect(manager.runTurn(session, async (signal) => signal.aborted, next)).resolves.toBe(false);
    next.done();
  });

  it('the steering inbox is the first prompt in line; done closes it and hands the line on', async () => {
    const manager = new SessionManager();
    expect(manager.inboxOf('s')).toBeUndefined();
    const a = manager.arrive('s');
    const b = manager.arrive('s');
    expect(manager.inboxOf('s')).toBe(a.inbox);
    let bReady = false;
    void b.ready.then(() => (bReady = true));
    await new Promise((r) => setTimeout(r, 0));
    expect(bReady).toBe(false);
    a.done();
    a.done();
    expect(a.inbox.isClosed).toBe(true);
    expect(manager.inboxOf('s')).toBe(b.inbox);
    await b.ready;
    b.done();
    expect(manager.inboxOf('s')).toBeUndefined();
  });

  it('cancelAll reaches prompts still arriving', async () => {
    const manager = new SessionManager();
    const arrived = manager.arrive('s');
    await manager.cancelAll();
    expect(arrived.signal.aborted).toBe(true);
    arrived.done();
  });

  it('an arriving prompt follows its outer signal', () => {
    const manager = new SessionManager();
    const outer = new AbortController();
    const arrived = manager.arrive('s', outer.signal);
    outer.abort(new Error('request cancelled'));
    expect(arrived.signal.aborted).toBe(true);
    arrived.done();
  });

  it('cancel with no turn running returns false and does not poison the next turn', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    expect(manager.cancel(session.id)).toBe(false);
    expect(manager.cancel('unknown')).toBe(false);
    await expect(manager.runTurn(session, async (signal) => signal.aborted)).resolves.toBe(false);
    // After a finished turn there is nothing to cancel either.
    expect(manager.cancel(session.id)).toBe(false);
    await expect(manager.runTurn(session, async (signal) => signal.aborted)).resolves.toBe(false);
  });

  it('cancel aborts the running turn and only that session', async () => {
    const manager = new SessionManager();
    const a = manager.create('/', 'm');
    const b = manager.create('/', 'm');
    const log: string[] = [];
    let bSignal: AbortSignal | undefined;
    const running = manager.runTurn(a, untilAborted(log, 'a', 0));
    const started = deferred();
    const other = manager.runTurn(b, (signal) => {
      bSignal = signal;
      started.resolve();
      return untilAborted(log, 'b', 0)(signal);
    });
    await started.promise;
    expect(manager.cancel(a.id)).toBe(true);
    await expect(running).resolves.toBe('cancelled');
    expect(bSignal?.aborted).toBe(false);
    expect(manager.cancel(b.id)).toBe(true);
    await other;
  });

  it('the older turn finishing hands the lock to the newer one, which a cancel then reaches', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    const log: string[] = [];
    const first = manager.runTurn(session, async () => 'done');
    let secondSignal: AbortSignal | undefined;
    const second = manager.runTurn(session, (signal) => {
      secondSignal = signal;
      return untilAborted(log, 'second', 0)(signal);
    });
    await first;
    await new Promise((r) => setTimeout(r, 5));
    expect(manager.isRunning(session.id)).toBe(true);
    expect(secondSignal?.aborted).toBe(false);
    expect(manager.cancel(session.id)).toBe(true);
    await expect(second).resolves.toBe('cancelled');
    expect(manager.isRunning(session.id)).toBe(false);
  });

  it('cancelAll aborts every running turn and resolves once all have settled', async () => {
    const manager = new SessionManager();
    const log: string[] = [];
    const turns = [0, 1, 2].map((i) => manager.runTurn(manager.create('/', 'm'), untilAborted(log, `t${i}`, 10 * (i + 1))));
    await manager.cancelAll();
    expect(log.filter((l) => l.endsWith('end')).sort()).toEqual(['t0 end', 't1 end', 't2 end']);
    await expect(Promise.all(turns)).resolves.toEqual(['cancelled', 'cancelled', 'cancelled']);
    await expect(manager.cancelAll()).resolves.toBeUndefined();
  });

  it('cancelledSettled waits for a cancelled turn to settle, and not for a running one', async () => {
    const manager = new SessionManager();
    const log: string[] = [];
    const session = manager.create('/', 'm');
    const outer = new AbortController();
    void manager.runTurn(session, untilAborted(log, 't', 30), outer.signal);
    // Running, not cancelled: no wait.
    await manager.cancelledSettled(session.id);
    expect(log).toEqual(['t start']);
    outer.abort(new Error('client gone'));
    await manager.cancelledSettled(session.id);
    expect(log).toEqual(['t start', 't end']);
    await expect(manager.cancelledSettled('no-such-session')).resolves.toBeUndefined();
  });

  it('an outer signal aborts the turn with its reason', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    const outer = new AbortController();
    const reason = new Error('client gone');
    const seen = manager.runTurn(session, (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason))), outer.signal);
    outer.abort(reason);
    await expect(seen).resolves.toBe(reason);
  });

  it('an already-aborted outer signal gives the work an aborted signal', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    const reason = new Error('early');
    await expect(manager.runTurn(session, async (signal) => [signal.aborted, signal.reason], AbortSignal.abort(reason))).resolves.toEqual([true, reason]);
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

  it('remove cancels the running turn and forgets the session; a second remove reports false', async () => {
    const manager = new SessionManager();
    const session = manager.create('/', 'm');
    const log: string[] = [];
    const turn = manager.runTurn(session, untilAborted(log, 'turn'));
    expect(manager.remove(session.id)).toBe(true);
    expect(await turn).toBe('cancelled');
    expect(log).toEqual(['turn start', 'turn end']);
    expect(manager.get(session.id)).toBeUndefined();
    expect(manager.remove(session.id)).toBe(false);
  });
});
