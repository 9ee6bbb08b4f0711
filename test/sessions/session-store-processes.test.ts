/**
 * The session store shared by several processes, and killed with SIGKILL: the store runs in
 * child processes (a driver bundled here with esbuild, since Node 20 cannot run .ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSessionStore, type SessionStore } from '../../src/sessions/session-store.js';
import type { TurnRecord } from '../../src/sessions/session-records.js';
import { captureLogger, driverText, isoAt, makeTempDir, removeTempDirs, type DriverOptions } from '../helpers/session-store-fixtures.js';

let driver: string;

beforeAll(() => {
  driver = join(makeTempDir('openai-acp-driver-'), 'driver.mjs');
  buildSync({
    entryPoints: [fileURLToPath(new URL('../helpers/session-store-driver.ts', import.meta.url))],
    outfile: driver,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
});

afterAll(removeTempDirs);

interface Driver {
  child: ChildProcessWithoutNullStreams;
  /** Number of appends the child reported resolved. */
  acked(): number;
  /** Resolves once the child reported `n` resolved appends. */
  waitForAcks(n: number): Promise<void>;
  /** Starts the appends. */
  go(): void;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function startDriver(options: DriverOptions): Driver {
  const child = spawn(process.execPath, [driver, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let acked = 0;
  let stderr = '';
  let buffer = '';
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) {
      if (line === 'ready') markReady();
      const match = /^ack (\d+)$/.exec(line);
      if (match) {
        expect(Number(match[1])).toBe(acked); // acks arrive in order, one per append
        acked++;
      }
    }
    for (const waiter of waiters.filter((w) => acked >= w.n)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    child,
    acked: () => acked,
    waitForAcks: (n) => (acked >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    go: () => child.stdin.write('go\n'),
    ready: Promise.race([ready, exited.then((e) => Promise.reject(new Error(`driver exited early: ${e.stderr}`)))]),
    exited,
  };
}

/** The i of each record written by `tag`, in file order. */
function indicesOf(records: TurnRecord[], tag: string): number[] {
  return records.filter((r) => r.assistant.startsWith(`${tag}:`)).map((r) => Number(r.assistant.split(':')[1]));
}

/** Checks every record is exactly what its writer wrote. */
function expectIntact(records: TurnRecord[], sizes: DriverOptions['sizes']): void {
  for (const record of records) {
    const [tag, i] = record.assistant.split(':');
    expect(record.assistant).toBe(driverText(tag!, Number(i), sizes));
    expect(record.prompt).toEqual([{ type: 'text', text: `${tag} ${i}` }]);
    expect(record.reasoning).toBe(`${tag}-reasoning-${i}`);
  }
}

async function openStore(dir: string) {
  const logger = captureLogger();
  const store: SessionStore = await openSessionStore({ stateDir: dir, env: {}, logger });
  return { store, logger };
}

describe('session store across processes', () => {
  it('two processes appending 300 records each to one session: one writes while the other waits, all 600 load intact, none torn', async () => {
    const dir = join(makeTempDir(), 'sessions');
    const { store, logger } = await openStore(dir);
    await store.create({ sessionId: 'shared', cwd: '/p', createdAt: isoAt(0) });
    // This process lets the session go; the two writers contend for it.
    await store.release('shared');

    // Each waits for the other as long as it writes (the default wait, for a client asking, is 2 s).
    const writers = ['A', 'B'].map((tag) => startDriver({ dir, sessionId: 'shared', tag, count: 300, sizes: 'mixed', waitMs: 120_000 }));
    await Promise.all(writers.map((w) => w.ready));
    for (const w of writers) w.go();
    // While they write, this process reads: every load sees whole records only.
    let readsDuringWrites = 0;
    while (writers.some((w) => w.acked() < 300) && readsDuringWrites < 50) {
      const loaded = await store.load('shared');
      expectIntact(loaded!.records as TurnRecord[], 'mixed');
      readsDuringWrites++;
    }
    const exits = await Promise.all(writers.map((w) => w.exited));
    expect(exits.map((e) => e.code)).toEqual([0, 0]);

    const loaded = await store.load('shared');
    const records = loaded!.records as TurnRecord[];
    expect(records).toHaveLength(600);
    expectIntact(records, 'mixed');
    const all = Array.from({ length: 300 }, (_, i) => i);
    expect(indicesOf(records, 'A')).toEqual(all);
    expect(indicesOf(records, 'B')).toEqual(all);
    // One writer at a time: all of one, then all of the other (the lease, never two writers at once).
    const tags = records.map((r) => r.assistant.split(':')[0]);
    expect(tags.slice(0, 300).every((tag) => tag === tags[0]) && tags.slice(300).every((tag) => tag === tags[300])).toBe(true);
    expect(tags[0]).not.toBe(tags[300]);
    // No line of the file was torn: header + 600 lines, each valid.
    const lines = readFileSync(join(dir, 'shared.jsonl'), 'utf8').split('\n');
    expect(lines).toHaveLength(601);
    expect(lines.every((line) => line.startsWith('{') && line.endsWith('}'))).toBe(true);
    expect(logger.warnings().filter((w) => !/torn or corrupt last/.test(w.msg))).toEqual([]);
  });

  it('a writer killed with SIGKILL at any moment loses no acknowledged record and leaves the session loadable', async () => {
    const dir = join(makeTempDir(), 'sessions');
    const { store } = await openStore(dir);
    await store.create({ sessionId: 'killed', cwd: '/p', createdAt: isoAt(0) });
    await store.release('killed');
    const acknowledged = new Map<string, number>();

    for (const [round, killAfter] of [3, 11, 1, 24].entries()) {
      const tag = `R${round}`;
      const writer = startDriver({ dir, sessionId: 'killed', tag, count: 100_000, sizes: 'large' });
      await writer.ready;
      writer.go();
      await writer.waitForAcks(killAfter);
      writer.child.kill('SIGKILL');
      const exit = await writer.exited;
      expect(exit.signal).toBe('SIGKILL');
      acknowledged.set(tag, writer.acked());

      const { store: fresh } = await openStore(dir);
      const records = (await fresh.load('killed'))!.records as TurnRecord[];
      expectIntact(records, 'large');
      for (const [t, n] of acknowledged) {
        const indices = indicesOf(records, t);
        // Every acknowledged record, in order; at most the one in flight besides.
        expect(indices.slice(0, n)).toEqual(Array.from({ length: n }, (_, i) => i));
        expect(indices.length === n || (indices.length === n + 1 && indices[n] === n)).toBe(true);
      }
    }

    // The session still takes appends after all that (the killed writer's lease taken over at once: its pid is gone), and they load back.
    await store.append('killed', { type: 'clear', at: isoAt(99) });
    const final = await store.load('killed');
    expect(final!.records.at(-1)).toEqual({ type: 'clear', at: isoAt(99) });
    expect(final!.updatedAt).toBe(isoAt(99));
  });

  it('a second process asked to write a session a live process holds waits, then refuses with a clear error; the file stays whole', async () => {
    const dir = join(makeTempDir(), 'sessions');
    const { store } = await openStore(dir);
    await store.create({ sessionId: 'held', cwd: '/p', createdAt: isoAt(0) });
    await store.append('held', { type: 'clear', at: isoAt(1) });
    const writer = startDriver({ dir, sessionId: 'held', tag: 'X', count: 5, sizes: 'mixed', waitMs: 300 });
    await writer.ready;
    const started = Date.now();
    writer.go();
    const exit = await writer.exited;
    expect(exit.code).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(writer.acked()).toBe(0);
    const loaded = await store.load('held');
    expect(loaded!.records).toEqual([{ type: 'clear', at: isoAt(1) }]);
    // This process still writes it; once it lets go, the other may.
    await store.append('held', { type: 'clear', at: isoAt(2) });
    await store.release('held');
    const next = startDriver({ dir, sessionId: 'held', tag: 'Y', count: 2, sizes: 'mixed', waitMs: 300 });
    await next.ready;
    next.go();
    expect((await next.exited).code).toBe(0);
    expect((await store.load('held'))!.records).toHaveLength(4);
  });
});
