/**
 * The processes behind session leases (`session-lease.ts`): who a lease names ({@link Lessee}),
 * this process's owner file in `<dir>/.leases/` (written at its first lease, its mtime touched
 * every `beatMs` while it lives), and whether another lessee is gone: its owner file missing or
 * untouched for `ttlMs`, or, on the same host in the same pid namespace, its pid not running or
 * our own. Containers that share a host name (`--network host`) each number their processes from
 * 1, so a pid means a process here only within one pid namespace.
 */
import { mkdirSync, promises as fsp, readlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { errorCode } from './file-writes.js';

/** Who has a lease (its lessee), as written in it. */
export interface Lessee {
  owner: string;
  host: string;
  pid: number;
  /** The lessee's pid namespace (Linux `/proc/self/ns/pid`, e.g. `pid:[4026531836]`); absent where there is none to read. */
  pidns?: string;
}

/** An owner file untouched this long (ms) belongs to a process long gone: removed when a process takes its first lease. */
const LEFT_OWNER_MS = 60 * 60 * 1000;

/** The lessee a lease file's text names, or `undefined` when it does not read as one. */
export function parseLessee(text: string): Lessee | undefined {
  try {
    const value = JSON.parse(text) as Partial<Lessee>;
    const ok = typeof value.owner === 'string' && typeof value.host === 'string' && typeof value.pid === 'number';
    return ok && (value.pidns === undefined || typeof value.pidns === 'string') ? (value as Lessee) : undefined;
  } catch {
    return undefined;
  }
}

/** This process's pid namespace, or `undefined` where it cannot be read (not Linux). */
function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
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

/** This process's owner file in one leases directory, and the judge of other lessees. */
export class LeaseOwner {
  /** This process, as its leases name it. */
  readonly me: Lessee;
  private beat: NodeJS.Timeout | undefined;

  /**
   * @param dir - the leases directory (`<state dir>/.leases`).
   * @param owner - this process's owner id.
   * @param timing - `ttlMs`: a lessee whose owner file is untouched this long is gone; `beatMs`: how often ours is touched (ms).
   */
  constructor(
    private readonly dir: string,
    owner: string,
    private readonly timing: { ttlMs: number; beatMs: number },
  ) {
    const pidns = pidNamespace();
    this.me = { owner, host: hostname(), pid: process.pid, ...(pidns ? { pidns } : {}) };
  }

  private ownerFile(owner: string): string {
    return join(this.dir, `${owner}.owner`);
  }

  /**
   * Writes this process's owner file and starts touching it (once; later calls do nothing).
   * @throws the file system's error when the directory or the file cannot be written.
   */
  start(): void {
    if (this.beat) return;
    const file = this.ownerFile(this.me.owner);
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

  /** Stops touching the owner file and removes it, synchronously (at exit). Never throws. */
  stop(): void {
    if (this.beat) clearInterval(this.beat);
    this.beat = undefined;
    try {
      unlinkSync(this.ownerFile(this.me.owner));
    } catch {
      // Never written, or gone.
    }
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

  /**
   * Whether the lessee of a lease is gone (its lease may be taken over).
   * @throws the file system's error reading its owner file, but for its absence.
   */
  async gone(lessee: Lessee): Promise<boolean> {
    // Its pid means a process here only in this pid namespace of this host.
    const here = lessee.host === this.me.host && lessee.pidns === this.me.pidns;
    if (here && (!running(lessee.pid) || lessee.pid === this.me.pid)) return true;
    try {
      const { mtimeMs } = await fsp.stat(this.ownerFile(lessee.owner));
      return Date.now() - mtimeMs > this.timing.ttlMs;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return true;
      throw error;
    }
  }
}
