import { describe, expect, it } from 'vitest';
import { TurnLine } from '../../src/sessions/turn-line.js';

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

describe('TurnLine', () => {
  it('returns what the work returns, and rethrows what it throws', async () => {
    const line = new TurnLine();
    await expect(line.run(async () => 42)).resolves.toBe(42);
    await expect(line.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(line.run(async (signal) => signal.aborted)).resolves.toBe(false);
  });

  it('a second prompt waits for the first turn to end, unaborted, and then runs', async () => {
    const line = new TurnLine();
    const log: string[] = [];
    const release = deferred();
    let firstSignal: AbortSignal | undefined;
    const first = line.run(async (signal) => {
      firstSignal = signal;
      log.push('first start');
      await release.promise;
      log.push('first end');
      return 'one';
    });
    const second = line.run(async (signal) => {
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
    const line = new TurnLine();
    const log: string[] = [];
    const first = line.run(() => new Promise((_, reject) => setTimeout(() => (log.push('first failed'), reject(new Error('x'))), 10)));
    const second = line.run(async () => log.push('second'));
    await expect(first).rejects.toThrow('x');
    await second;
    expect(log).toEqual(['first failed', 'second']);
  });

  it('prompts run in the order they arrived, not the order their turns were asked for', async () => {
    const line = new TurnLine();
    const log: string[] = [];
    const running = deferred();
    const first = line.run(async () => {
      log.push('first');
      await running.promise;
    });
    const a = line.arrive();
    const b = line.arrive();
    // b's turn is asked for before a's: it still waits for a.
    const later = line.run(async () => log.push('b'), b);
    const earlier = line.run(async () => log.push('a'), a);
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
    const line = new TurnLine();
    const log: string[] = [];
    const first = line.run(untilAborted(log, 'first'));
    const waiting = line.run(async (signal) => signal.aborted);
    expect(line.cancel()).toBe(true);
    const after = line.run(async (signal) => signal.aborted);
    await expect(first).resolves.toBe('cancelled');
    await expect(waiting).resolves.toBe(true);
    await expect(after).resolves.toBe(false);
  });

  it('a turn cancelled while waiting for its predecessor still runs, with an aborted signal', async () => {
    const line = new TurnLine();
    const log: string[] = [];
    const first = line.run(untilAborted(log, 'first'));
    const second = line.run(async (signal) => signal.aborted);
    expect(line.cancel()).toBe(true);
    await first;
    await expect(second).resolves.toBe(true);
  });

  it('a cancel between the arrival of a prompt and its turn reaches the turn, and only that prompt', async () => {
    const line = new TurnLine();
    const arrived = line.arrive();
    expect(line.cancel()).toBe(true);
    await expect(line.run(async (signal) => signal.aborted, arrived)).resolves.toBe(true);
    arrived.done();
    // Once done, the prompt is gone: nothing to cancel, and the next prompt starts unaborted.
    expect(line.cancel()).toBe(false);
    const next = line.arrive();
    await expect(line.run(async (signal) => signal.aborted, next)).resolves.toBe(false);
    next.done();
  });

  it('the steering inbox is the first prompt in line; done closes it and hands the line on', async () => {
    const line = new TurnLine();
    expect(line.inbox).toBeUndefined();
    const a = line.arrive();
    const b = line.arrive();
    expect(line.inbox).toBe(a.inbox);
    let bReady = false;
    void b.ready.then(() => (bReady = true));
    await new Promise((r) => setTimeout(r, 0));
    expect(bReady).toBe(false);
    a.done();
    a.done();
    expect(a.inbox.isClosed).toBe(true);
    expect(line.inbox).toBe(b.inbox);
    await b.ready;
    b.done();
    expect(line.inbox).toBeUndefined();
  });

  it('settle reaches prompts still arriving', async () => {
    const line = new TurnLine();
    const arrived = line.arrive();
    await line.settle();
    expect(arrived.signal.aborted).toBe(true);
    arrived.done();
  });

  it('an arriving prompt follows its outer signal', () => {
    const line = new TurnLine();
    const outer = new AbortController();
    const arrived = line.arrive(outer.signal);
    outer.abort(new Error('request cancelled'));
    expect(arrived.signal.aborted).toBe(true);
    arrived.done();
  });

  it('cancel with no turn running returns false and does not poison the next turn', async () => {
    const line = new TurnLine();
    expect(line.cancel()).toBe(false);
    await expect(line.run(async (signal) => signal.aborted)).resolves.toBe(false);
    // After a finished turn there is nothing to cancel either.
    expect(line.cancel()).toBe(false);
    await expect(line.run(async (signal) => signal.aborted)).resolves.toBe(false);
  });

  it('cancel aborts the running turn and only that line', async () => {
    const a = new TurnLine();
    const b = new TurnLine();
    const log: string[] = [];
    let bSignal: AbortSignal | undefined;
    const running = a.run(untilAborted(log, 'a', 0));
    const started = deferred();
    const other = b.run((signal) => {
      bSignal = signal;
      started.resolve();
      return untilAborted(log, 'b', 0)(signal);
    });
    await started.promise;
    expect(a.cancel()).toBe(true);
    await expect(running).resolves.toBe('cancelled');
    expect(bSignal?.aborted).toBe(false);
    expect(b.cancel()).toBe(true);
    await other;
  });

  it('the older turn finishing hands the lock to the newer one, which a cancel then reaches', async () => {
    const line = new TurnLine();
    const log: string[] = [];
    const first = line.run(async () => 'done');
    let secondSignal: AbortSignal | undefined;
    const second = line.run((signal) => {
      secondSignal = signal;
      return untilAborted(log, 'second', 0)(signal);
    });
    await first;
    await new Promise((r) => setTimeout(r, 5));
    expect(line.isRunning).toBe(true);
    expect(secondSignal?.aborted).toBe(false);
    expect(line.cancel()).toBe(true);
    await expect(second).resolves.toBe('cancelled');
    expect(line.isRunning).toBe(false);
  });

  it('settle aborts the running turn and the one waiting, and resolves once the running one has settled', async () => {
    const line = new TurnLine();
    const log: string[] = [];
    const running = line.run(untilAborted(log, 't0', 10));
    const waiting = line.run(async (signal) => signal.aborted);
    await line.settle();
    expect(log).toEqual(['t0 start', 't0 end']);
    await expect(running).resolves.toBe('cancelled');
    await expect(waiting).resolves.toBe(true);
    await expect(line.settle()).resolves.toBeUndefined();
  });

  it('cancelledSettled waits for a cancelled turn to settle, and not for a running one', async () => {
    const line = new TurnLine();
    const log: string[] = [];
    const outer = new AbortController();
    void line.run(untilAborted(log, 't', 30), outer.signal);
    // Running, not cancelled: no wait.
    await line.cancelledSettled();
    expect(log).toEqual(['t start']);
    outer.abort(new Error('client gone'));
    await line.cancelledSettled();
    expect(log).toEqual(['t start', 't end']);
    await expect(new TurnLine().cancelledSettled()).resolves.toBeUndefined();
  });

  it('an outer signal aborts the turn with its reason', async () => {
    const line = new TurnLine();
    const outer = new AbortController();
    const reason = new Error('client gone');
    const seen = line.run((signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason))), outer.signal);
    outer.abort(reason);
    await expect(seen).resolves.toBe(reason);
  });

  it('an already-aborted outer signal gives the work an aborted signal', async () => {
    const line = new TurnLine();
    const reason = new Error('early');
    await expect(line.run(async (signal) => [signal.aborted, signal.reason], AbortSignal.abort(reason))).resolves.toEqual([true, reason]);
  });
});
