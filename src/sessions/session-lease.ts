/**
 * Which process writes each session of a state directory several processes may share (replicas
 * of `openai-acp serve` on one volume): a lease per session, so two processes never both append to
 * one session file. Advisory: only openai-acp processes honour it.
 *
 * On disk, in `<dir>/.leases/`:
 * - `<owner>.owner`, one per process: `{host, pid}`, its mtime touched every {@link LeaseOptions.beatMs}
 *   while the process lives (one file per process, however many sessions it holds);
 * - `<sessionId>.lease`: `{owner, host, pid, pidns?}` of the process holding the session, created whole
 *   (written to a temporary file, then hard-linked into place: the link fails if a lease exists).
 *
 * A lease is the holder's until it gives it back ({@link SessionLeases.release}, at exit
 * {@link SessionLeases.close}), or until its holder is gone: the owner file missing or untouched
 * for {@link LeaseOptions.ttlMs}, or (on the same host, in the same pid namespace: containers
 * that share a host name, `--network host` say, each number their processes from 1) the holder's
 * pid not running, or running but as another owner. A gone holder's lease is taken
 * over at once; a live holder's is waited for up to {@link LeaseOptions.waitMs}, then refused.
 * Before each write the holder checks the lease still names it, so a process that stalled past
 * its lease (and was taken over) stops writing instead of interleaving.
 *
 * Hosts compare the owner file's mtime with their own clock: keep the replicas' clocks within a few
 * seconds of each other (NTP), well under {@link LeaseOptions.ttlMs}.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, promises as fsp, readFileSync, readlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { SessionStoreError } from './store-base.js';

/** Timing of leases, in ms. */
export interface LeaseOptions {
  /** A holder whose owner file is untouched this long is gone. @defaultValue 15000 */
  ttlMs?: number;
  /** How often a process touches its owner file. @defaultValue 5000 */
  beatMs?: number;
  /** Longest wait for a lease a live process holds before refusing. @defaultValue ttlMs + beatMs */
  waitMs?: number;
  /** How often a waiting process looks again. @defaultValue 250 */
  pollMs?: number;
}

/** Who holds a lease, as written in it. */
interface Holder {
  owner: string;
  host: string;
  pid: number;
  /** The holder's pid namespace (Linux `/proc/self/ns/pid`, e.g. `pid:[4026531836]`); absent where there is none to read. */
  pidns?: string;
}

/** This process's pid namespace, or `undefined` where it cannot be read (not Linux). */
function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

/** An owner file untouched this long (ms) belongs to a process long gone: removed when a process starts holding sessions. */
const LEFT_OWNER_MS = 60 * 60 * 1000;

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    const ok = typeof value.owner === 'string' && typeof value.host === 'string' && typeof value.pid === 'number';
    return ok && (value.pidns === undefined || typeof value.pidns === 'string') ? (value as Holder) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether process `pid` runs on this host (EPERM: it runs, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/** This process's leases on the sessions of one directory. */
export class SessionLeases {
  /** This process, as its leases name it. */
  readonly owner = randomUUID();
  private readonly dir: string;
  private readonly me: Holder;
  private readonly held = new Set<string>();
  private readonly timing: Required<LeaseOptions>;
  private beat: NodeJS.Timeout | undefined;

  constructor(stateDir: string, { ttlMs = 15_000, beatMs = 5_000, waitMs = ttlMs + beatMs, pollMs = 250 }: LeaseOptions = {}) {
    this.dir = join(stateDir, '.leases');
    const pidns = pidNamespace();
    this.me = { owner: this.owner, host: hostname(), pid: process.pid, ...(pidns ? { pidns } : {}) };
    this.timing = { ttlMs, beatMs, waitMs, pollMs };
  }

  private leaseFile(sessionId: string): string {
    return join(this.dir, `${sessionId}.lease`);
  }

  private ownerFile(owner: string): string {
    return join(this.dir, `${owner}.owner`);
  }

  /** Writes this process's owner file and starts touching it (once, at the first lease). */
  private startBeating(): void {
    if (this.beat) return;
    const file = this.ownerFile(this.owner);
    const write = () => writeFileSync(file, JSON.stringify({ host: this.me.host, pid: this.me.pid }), { mode: 0o600 });
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    write();
    void this.removeLeftOwners();
    this.beat = setInterval(() => {
      const now = new Date();
      try {
        utimesSync(file, now, now);
      } catch {
        // Removed under us: written again, so our leases do not look abandoned (a directory gone
        // or read-only is said by the next write of a session).
        try {
          write();
        } catch {}
      }
    }, this.timing.beatMs);
    this.beat.unref();
  }

  /** Removes the owner files of processes gone for an hour or more (killed: nothing else removes them). Never rejects. */
  private async removeLeftOwners(): Promise<void> {
    const names = await fsp.readdir(this.dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith('.owner'))) {
      const file = join(this.dir, name);
      const stat = await fsp.stat(file).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > LEFT_OWNER_MS) await fsp.unlink(file).catch(() => undefined);
    }
  }

  /** Whether the holder of a lease is gone (its lease may be taken over). */
  private async gone(holder: Holder): Promise<boolean> {
    // Its pid means a process here only in this pid namespace of this host.
    const here = holder.host === this.me.host && holder.pidns === this.me.pidns;
    if (here && (!running(holder.pid) || holder.pid === this.me.pid)) return true;
    try {
      const { mtimeMs } = await fsp.stat(this.ownerFile(holder.owner));
      return Date.now() - mtimeMs > this.timing.ttlMs;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return true;
      throw error;
    }
  }

  /** The holder a lease file names; `undefined` when there is none; `null` when it cannot be read as one. */
  private async holderOf(sessionId: string): Promise<Holder | undefined | null> {
    try {
      return parseHolder(await fsp.readFile(this.leaseFile(sessionId), 'utf8')) ?? null;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  /**
   * Creates the lease file naming this process; false when one exists. Made whole by a hard link;
   * where links are unsupported (some network and FAT file systems) created exclusively and then
   * written, so it may be seen empty for a moment ({@link unreadableIsStale} allows for that).
   */
  private async create(sessionId: string): Promise<boolean> {
    const temp = join(this.dir, `.tmp-${this.owner}-${sessionId}`);
    const text = JSON.stringify(this.me);
    await fsp.writeFile(temp, text, { mode: 0o600 });
    try {
      await fsp.link(temp, this.leaseFile(sessionId));
      return true;
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false;
      try {
        await fsp.writeFile(this.leaseFile(sessionId), text, { flag: 'wx', mode: 0o600 });
        return true;
      } catch (fallback) {
        if (errorCode(fallback) === 'EEXIST') return false;
        throw fallback;
      }
    } finally {
      await fsp.unlink(temp).catch(() => undefined);
    }
  }

  /** Whether a lease file that does not read as one is left from a crash (older than `ttlMs`), not one being written. */
  private async unreadableIsStale(sessionId: string): Promise<boolean> {
    try {
      return Date.now() - (await fsp.stat(this.leaseFile(sessionId))).mtimeMs > this.timing.ttlMs;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return false;
      throw error;
    }
  }

  /**
   * Moves aside the lease of `stale` (judged gone); a lease of anyone else found moved instead (a
   * racer's, just created) is put back.
   */
  private async takeOver(sessionId: string, stale: Holder | null): Promise<void> {
    const aside = join(this.dir, `.stale-${this.owner}-${sessionId}`);
    try {
      await fsp.rename(this.leaseFile(sessionId), aside);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return;
      throw error;
    }
    const moved = parseHolder(await fsp.readFile(aside, 'utf8').catch(() => ''));
    if (moved && moved.owner !== stale?.owner) await fsp.link(aside, this.leaseFile(sessionId)).catch(() => undefined);
    await fsp.unlink(aside).catch(() => undefined);
  }

  /**
   * Takes the session's lease for this process, taking over one whose holder is gone and waiting
   * up to `waitMs` for a live holder to give it back. Holding it already is fine.
   * @throws SessionStoreError `busy` naming the host that holds it.
   */
  async hold(sessionId: string): Promise<void> {
    if (this.held.has(sessionId)) return;
    this.startBeating();
    const until = Date.now() + this.timing.waitMs;
    for (;;) {
      if (await this.create(sessionId)) break;
      const holder = await this.holderOf(sessionId);
      if (holder?.owner === this.owner) break;
      if (holder === undefined) continue;
      if (holder === null ? await this.unreadableIsStale(sessionId) : await this.gone(holder)) {
        await this.takeOver(sessionId, holder);
        continue;
      }
      if (Date.now() >= until) {
        const who = holder ? ` (host ${holder.host}, pid ${holder.pid})` : '';
        throw new SessionStoreError(
          'busy',
          sessionId,
          `session ${sessionId} is open in another openai-acp process${who} sharing this state directory; close it there, or try again once that process has stopped`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, this.timing.pollMs));
    }
    this.held.add(sessionId);
  }

  /**
   * Before a write: the session's lease must still name this process (taking it first when not
   * held). A lease taken over meanwhile (this process stalled past its time) is let go.
   * @throws SessionStoreError `busy` when another process holds it now.
   */
  async check(sessionId: string): Promise<void> {
    if (!this.held.has(sessionId)) return this.hold(sessionId);
    const holder = await this.holderOf(sessionId);
    if (holder?.owner === this.owner) return;
    this.held.delete(sessionId);
    if (holder === undefined) return this.hold(sessionId);
    throw new SessionStoreError(
      'busy',
      sessionId,
      `session ${sessionId} was taken over by another openai-acp process (host ${holder?.host ?? 'unknown'}); nothing more is saved here: load it again`,
    );
  }

  /** Gives the session's lease back (only one this process still holds). Never rejects. */
  async release(sessionId: string): Promise<void> {
    if (!this.held.delete(sessionId)) return;
    if ((await this.holderOf(sessionId).catch(() => undefined))?.owner === this.owner) await fsp.unlink(this.leaseFile(sessionId)).catch(() => undefined);
  }

  /** Gives every lease back and removes the owner file, synchronously (at exit). Never throws. */
  close(): void {
    if (this.beat) clearInterval(this.beat);
    this.beat = undefined;
    for (const sessionId of this.held) {
      try {
        if (parseHolder(readFileSync(this.leaseFile(sessionId), 'utf8'))?.owner === this.owner) unlinkSync(this.leaseFile(sessionId));
      } catch {
        // Gone already.
      }
    }
    this.held.clear();
    try {
      unlinkSync(this.ownerFile(this.owner));
    } catch {
      // Never written, or gone.
    }
  }
}
