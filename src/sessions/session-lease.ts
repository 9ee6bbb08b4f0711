/**
 * Which process writes each session of a state directory several processes may share (replicas
 * of `openai-acp serve` on one volume): a lease per session, so two processes never both append to
 * one session file. Advisory: only openai-acp processes honour it.
 *
 * On disk, in `<dir>/.leases/`:
 * - `<owner>.owner`, one per process: `{host, pid}`, its mtime touched every {@link LeaseOptions.beatMs}
 *   while the process lives (one file per process, however many leases it has);
 * - `<sessionId>.lease`: `{owner, host, pid, pidns?}` of the process that has the session's lease, created whole
 *   (written to a temporary file, then hard-linked into place: the link fails if a lease exists).
 *
 * A lease is the lessee's until it gives it back ({@link SessionLeases.release}, at exit
 * {@link SessionLeases.close}), or until its lessee is gone: the owner file missing or untouched
 * for {@link LeaseOptions.ttlMs}, or (on the same host, in the same pid namespace: containers
 * that share a host name, `--network host` say, each number their processes from 1) the lessee's
 * pid not running, or running but as another owner (`lease-owner.ts`). A gone lessee's lease is
 * taken over at once; a live lessee's is waited for up to {@link LeaseOptions.waitMs}, then refused.
 * Before each write the lessee checks the lease still names it, so a process that stalled past
 * its lease (and was taken over) stops writing instead of interleaving.
 *
 * Hosts compare the owner file's mtime with their own clock: keep the replicas' clocks within a few
 * seconds of each other (NTP), well under {@link LeaseOptions.ttlMs}.
 */
import { randomUUID } from 'node:crypto';
import { promises as fsp, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { errorCode } from './file-writes.js';
import { LeaseOwner, parseLessee, type Lessee } from './lease-owner.js';
import { SessionStoreError } from './store-base.js';

/** Timing of leases, in ms. */
export interface LeaseOptions {
  /** A lessee whose owner file is untouched this long is gone. @defaultValue 15000 */
  ttlMs?: number;
  /** How often a process touches its owner file. @defaultValue 5000 */
  beatMs?: number;
  /**
   * Longest wait for a lease a live process has before refusing, in ms: long enough for a process
   * that is closing to let go, short enough that a client asking for a session open elsewhere is
   * told so at once rather than after a lease's whole life. @defaultValue 2000
   */
  waitMs?: number;
  /** How often a waiting process looks again. @defaultValue 250 */
  pollMs?: number;
}

/** This process's leases on the sessions of one directory. */
export class SessionLeases {
  /** This process, as its leases name it. */
  readonly owner = randomUUID();
  private readonly dir: string;
  private readonly me: Lessee;
  /** This process's owner file, and the judge of whether another lessee is gone. */
  private readonly owners: LeaseOwner;
  private readonly taken = new Set<string>();
  private readonly timing: Required<LeaseOptions>;

  constructor(stateDir: string, { ttlMs = 15_000, beatMs = 5_000, waitMs = 2_000, pollMs = 250 }: LeaseOptions = {}) {
    this.dir = join(stateDir, '.leases');
    this.timing = { ttlMs, beatMs, waitMs, pollMs };
    this.owners = new LeaseOwner(this.dir, this.owner, this.timing);
    this.me = this.owners.me;
  }

  private leaseFile(sessionId: string): string {
    return join(this.dir, `${sessionId}.lease`);
  }

  /** The lessee a lease file names; `undefined` when there is none; `null` when it cannot be read as one. */
  private async lesseeOf(sessionId: string): Promise<Lessee | undefined | null> {
    try {
      return parseLessee(await fsp.readFile(this.leaseFile(sessionId), 'utf8')) ?? null;
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
  private async takeOver(sessionId: string, stale: Lessee | null): Promise<void> {
    const aside = join(this.dir, `.stale-${this.owner}-${sessionId}`);
    try {
      await fsp.rename(this.leaseFile(sessionId), aside);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return;
      throw error;
    }
    const moved = parseLessee(await fsp.readFile(aside, 'utf8').catch(() => ''));
    if (moved && moved.owner !== stale?.owner) await fsp.link(aside, this.leaseFile(sessionId)).catch(() => undefined);
    await fsp.unlink(aside).catch(() => undefined);
  }

  /**
   * Takes the session's lease for this process, taking over one whose lessee is gone and waiting
   * up to `waitMs` for a live lessee to give it back. Having it already is fine.
   * @throws SessionStoreError `busy` naming the host that has it.
   */
  async take(sessionId: string): Promise<void> {
    if (this.taken.has(sessionId)) return;
    this.owners.start();
    const until = Date.now() + this.timing.waitMs;
    for (;;) {
      if (await this.create(sessionId)) break;
      const lessee = await this.lesseeOf(sessionId);
      if (lessee?.owner === this.owner) break;
      if (lessee === undefined) continue;
      if (lessee === null ? await this.unreadableIsStale(sessionId) : await this.owners.gone(lessee)) {
        await this.takeOver(sessionId, lessee);
        continue;
      }
      if (Date.now() >= until) {
        const who = lessee ? ` (host ${lessee.host}, pid ${lessee.pid})` : '';
        throw new SessionStoreError(
          'busy',
          sessionId,
          `session ${sessionId} is open in another openai-acp process${who} sharing this state directory; close it there, or try again once that process has stopped (${await this.lapse(sessionId)})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, this.timing.pollMs));
    }
    this.taken.add(sessionId);
  }

  /** When the lease of `sessionId` lapses should its lessee stop without letting go: its last beat plus the lease's life. */
  private async lapse(sessionId: string): Promise<string> {
    const beat = await fsp.stat(this.leaseFile(sessionId)).then(
      (stats) => stats.mtimeMs,
      () => Date.now(),
    );
    const inMs = Math.max(0, beat + this.timing.ttlMs - Date.now());
    return `if it stopped without letting go, its lease lapses in ${Math.ceil(inMs / 1000)} s`;
  }

  /**
   * Before a write: the session's lease must still name this process (taking it first when it has
   * none). A lease taken over meanwhile (this process stalled past its time) is let go.
   * @throws SessionStoreError `busy` when another process has it now.
   */
  async check(sessionId: string): Promise<void> {
    if (!this.taken.has(sessionId)) return this.take(sessionId);
    const lessee = await this.lesseeOf(sessionId);
    if (lessee?.owner === this.owner) return;
    this.taken.delete(sessionId);
    if (lessee === undefined) return this.take(sessionId);
    throw new SessionStoreError(
      'busy',
      sessionId,
      `session ${sessionId} was taken over by another openai-acp process (host ${lessee?.host ?? 'unknown'}); nothing more is saved here: load it again`,
    );
  }

  /** Gives the session's lease back (only one this process still has). Never rejects. */
  async release(sessionId: string): Promise<void> {
    if (!this.taken.delete(sessionId)) return;
    if ((await this.lesseeOf(sessionId).catch(() => undefined))?.owner === this.owner) await fsp.unlink(this.leaseFile(sessionId)).catch(() => undefined);
  }

  /** Gives every lease back and removes the owner file, synchronously (at exit). Never throws. */
  close(): void {
    for (const sessionId of this.taken) {
      try {
        if (parseLessee(readFileSync(this.leaseFile(sessionId), 'utf8'))?.owner === this.owner) unlinkSync(this.leaseFile(sessionId));
      } catch {
        // Gone already.
      }
    }
    this.taken.clear();
    this.owners.stop();
  }
}
