/**
 * Session leases (`session-lease.ts`): held, given back, waited for while a live process holds
 * one, taken over from a process that is gone (owner file stale or missing, pid not running), and
 * checked before each write. Other processes are stood in for by the files they would write.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionLeases } from '../../src/sessions/session-lease.js';
import { makeTempDir, removeTempDirs } from '../helpers/session-store-fixtures.js';

afterEach(removeTempDirs);
const open: SessionLeases[] = [];
afterEach(() => {
  for (const leases of open.splice(0)) leases.close();
});

function leasesIn(dir: string, options = { ttlMs: 1_000, beatMs: 200, waitMs: 400, pollMs: 20 }): SessionLeases {
  const leases = new SessionLeases(dir, options);
  open.push(leases);
  return leases;
}

/** This process's pid namespace, as the leases write it (none off Linux). */
const pidns = (() => {
  try {
    return { pidns: readlinkSync('/proc/self/ns/pid') };
  } catch {
    return {};
  }
})();

/** Writes the files a process named `owner` on `host` with `pid` holding `sessionId` would have written, its owner file touched `ageMs` ago. */
function otherLessee(dir: string, sessionId: string, lessee: { owner: string; host: string; pid: number; pidns?: string }, ageMs = 0): void {
  mkdirSync(join(dir, '.leases'), { recursive: true });
  writeFileSync(join(dir, '.leases', `${sessionId}.lease`), JSON.stringify(lessee));
  const ownerFile = join(dir, '.leases', `${lessee.owner}.owner`);
  writeFileSync(ownerFile, JSON.stringify({ host: lessee.host, pid: lessee.pid }));
  const at = new Date(Date.now() - ageMs);
  utimesSync(ownerFile, at, at);
}

const leaseOf = (dir: string, sessionId: string) => JSON.parse(readFileSync(join(dir, '.leases', `${sessionId}.lease`), 'utf8'));

describe('session leases', () => {
  it('holds a session under its own owner, gives it back, and removes its files at close', async () => {
    const dir = makeTempDir();
    const leases = leasesIn(dir);
    await leases.take('s1');
    await leases.take('s1');
    expect(leaseOf(dir, 's1')).toEqual({ owner: leases.owner, host: hostname(), pid: process.pid, ...pidns });
    expect(existsSync(join(dir, '.leases', `${leases.owner}.owner`))).toBe(true);
    await leases.release('s1');
    expect(existsSync(join(dir, '.leases', 's1.lease'))).toBe(false);
    await leases.take('s2');
    leases.close();
    expect(existsSync(join(dir, '.leases', 's2.lease'))).toBe(false);
    expect(existsSync(join(dir, '.leases', `${leases.owner}.owner`))).toBe(false);
  });

  it('waits for a live process on another host, then refuses naming it; takes over once its owner file goes stale', async () => {
    const dir = makeTempDir();
    otherLessee(dir, 's', { owner: 'other', host: 'replica-b', pid: 4242 });
    const leases = leasesIn(dir);
    const started = Date.now();
    await expect(leases.take('s')).rejects.toMatchObject({
      code: 'busy',
      message: expect.stringContaining('another openai-acp process (host replica-b, pid 4242)'),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    // The other replica died: its owner file is no longer touched.
    otherLessee(dir, 's', { owner: 'other', host: 'replica-b', pid: 4242 }, 5_000);
    await leases.take('s');
    expect(leaseOf(dir, 's').owner).toBe(leases.owner);
  });

  it('takes over at once from a process of this host that is not running, and from one whose owner file is gone', async () => {
    const dir = makeTempDir();
    const exited = spawnSync(process.execPath, ['-e', '0']).pid;
    otherLessee(dir, 'a', { owner: 'dead', host: hostname(), pid: exited!, ...pidns });
    otherLessee(dir, 'b', { owner: 'vanished', host: 'replica-c', pid: 1 });
    rmSync(join(dir, '.leases', 'vanished.owner'));
    const leases = leasesIn(dir);
    const started = Date.now();
    await leases.take('a');
    await leases.take('b');
    // Not after the lease's life (15 s), which a live lessee's lease would need.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect([leaseOf(dir, 'a').owner, leaseOf(dir, 'b').owner]).toEqual([leases.owner, leases.owner]);
  });

  it('waits for a live process of this host name in another pid namespace (a container sharing the name), whatever its pid', async () => {
    const dir = makeTempDir();
    // Its pid is ours and a pid not running here: both mean nothing outside its namespace.
    const exited = spawnSync(process.execPath, ['-e', '0']).pid!;
    otherLessee(dir, 'twin', { owner: 'twin', host: hostname(), pid: process.pid, pidns: 'pid:[1]' });
    otherLessee(dir, 'other', { owner: 'other', host: hostname(), pid: exited, pidns: 'pid:[1]' });
    const leases = leasesIn(dir);
    for (const sessionId of ['twin', 'other']) await expect(leases.take(sessionId)).rejects.toMatchObject({ code: 'busy' });
    expect(leaseOf(dir, 'twin').owner).toBe('twin');
  });

  it('waits while a lease file cannot be read yet (being written), and takes over one left unreadable by a crash', async () => {
    const dir = makeTempDir();
    mkdirSync(join(dir, '.leases'), { recursive: true });
    const file = join(dir, '.leases', 'torn.lease');
    writeFileSync(file, '{"own');
    const leases = leasesIn(dir);
    await expect(leases.take('torn')).rejects.toMatchObject({ code: 'busy' });
    const old = new Date(Date.now() - 5_000);
    utimesSync(file, old, old);
    await leases.take('torn');
    expect(leaseOf(dir, 'torn').owner).toBe(leases.owner);
  });

  it('removes the owner files of processes gone for an hour when it starts holding', async () => {
    const dir = makeTempDir();
    otherLessee(dir, 'x', { owner: 'long-gone', host: 'replica-e', pid: 9 }, 2 * 60 * 60 * 1000);
    otherLessee(dir, 'y', { owner: 'recent', host: 'replica-f', pid: 9 }, 60 * 1000);
    await leasesIn(dir).take('z');
    for (let i = 0; i < 100 && existsSync(join(dir, '.leases', 'long-gone.owner')); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(existsSync(join(dir, '.leases', 'long-gone.owner'))).toBe(false);
    expect(existsSync(join(dir, '.leases', 'recent.owner'))).toBe(true);
  });

  it('checks before a write: a lease taken over meanwhile is refused and let go; an unheld one is taken', async () => {
    const dir = makeTempDir();
    const leases = leasesIn(dir);
    await leases.take('s');
    await leases.check('s');
    otherLessee(dir, 's', { owner: 'thief', host: 'replica-d', pid: 7 });
    await expect(leases.check('s')).rejects.toMatchObject({
      code: 'busy',
      message: expect.stringContaining('was taken over by another openai-acp process (host replica-d)'),
    });
    // No longer held here: giving it back leaves the other's lease alone.
    await leases.release('s');
    expect(leaseOf(dir, 's').owner).toBe('thief');
    await leases.check('fresh');
    expect(leaseOf(dir, 'fresh').owner).toBe(leases.owner);
  });
});
