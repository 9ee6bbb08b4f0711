/**
 * The file store: one JSON Lines file per session, written as `session-store.ts` describes
 * (temp + link for the header, one O_APPEND write + fsync per record).
 */
import { openInside } from '../shared/open-inside.js';
import { constants, promises as fsp, readFileSync, unlinkSync } from 'node:fs';
import { createSerializer, createWhole, errorCode, syncDir } from './file-writes.js';
import { join } from 'node:path';
import type { Logger } from '../shared/log.js';
import { bytesOf } from '../openai/json-bytes.js';
import { compareSummaries } from './session-list.js';
import type { SessionRecord, SessionSummary, StoredSession } from './session-records.js';
import { SessionLeases, type LeaseOptions } from './session-lease.js';
import { isBlankSession, parseSessionText, summarizeSessionBytes, toStoredSession, type Warn } from './session-text.js';
import { createWarn, isValidSessionId, serializeHeader, serializeRecord, serializeRecordPieces, SessionStoreError, type SessionStore } from './store-base.js';

/** Numbers the temporary files of this process. */
let tempCounter = 0;
/** Leftover temporary and probe files older than this (ms) are removed at open. */
export const STALE_TEMP_MS = 60 * 60 * 1000;

export class FileSessionStore implements SessionStore {
  readonly persistent = true;
  private readonly serialize = createSerializer();
  private readonly warn: Warn;
  /** Which sessions this process writes (`session-lease.ts`). */
  private readonly leases: SessionLeases;
  /**
   * Sessions this process created with `removeWhenBlank`: one still blank ({@link isBlankSession}) when it is released
   * (or the store closed) is removed, so a session that never kept a turn (a failed first prompt,
   * a client that only opened it) leaves no file behind.
   */
  private readonly removableWhenBlank = new Set<string>();

  constructor(
    readonly dir: string,
    logger: Logger,
    leases: LeaseOptions = {},
  ) {
    this.warn = createWarn(logger);
    this.leases = new SessionLeases(dir, leases);
  }

  private file(sessionId: string): string {
    return join(this.dir, `${sessionId}.jsonl`);
  }

  async create(
    session: { sessionId: string; cwd: string; createdAt: string },
    records: readonly SessionRecord[] = [],
    options: { removeWhenBlank?: boolean } = {},
  ): Promise<void> {
    const { sessionId } = session;
    if (!isValidSessionId(sessionId)) throw new SessionStoreError('invalid-id', String(sessionId), `invalid session id ${JSON.stringify(sessionId)}`);
    const data = [serializeHeader(sessionId, session), ...records.map((record) => serializeRecord(sessionId, record))].join('\n');
    await this.serialize(sessionId, async () => {
      const file = this.file(sessionId);
      // A leading dot keeps temporary files out of listings (ids start with a letter or digit).
      // Unique: per process (pid), per call (counter); created with 'wx' all the same.
      const temp = join(this.dir, `.tmp-${sessionId}-${process.pid}-${++tempCounter}`);
      if (!(await createWhole(file, temp, data))) throw new SessionStoreError('exists', sessionId, `session ${sessionId} already exists`);
      await syncDir(this.dir);
    });
    if (options.removeWhenBlank) this.removableWhenBlank.add(sessionId);
    await this.leases.take(sessionId);
  }

  async append(sessionId: string, record: SessionRecord): Promise<void> {
    if (!isValidSessionId(sessionId)) throw new SessionStoreError('not-found', String(sessionId), `no session ${JSON.stringify(sessionId)}`);
    const data = bytesOf(serializeRecordPieces(sessionId, record, '\n'));
    await this.serialize(sessionId, async () => {
      await this.leases.check(sessionId);
      let handle: fsp.FileHandle;
      try {
        // No O_CREAT: appending to a deleted session must not recreate a headerless file.
        handle = await fsp.open(this.file(sessionId), constants.O_WRONLY | constants.O_APPEND);
      } catch (error) {
        if (errorCode(error) === 'ENOENT') throw new SessionStoreError('not-found', sessionId, `no session ${sessionId}`);
        throw error;
      }
      try {
        // One write call: O_APPEND makes the seek-and-write atomic against other writers.
        const { bytesWritten } = await handle.write(data);
        if (bytesWritten !== data.length) throw new Error(`short write to ${this.file(sessionId)}: ${bytesWritten} of ${data.length} bytes`);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
  }

  /** The directory's real path, resolved once (a session file must really lie in it). */
  private realDir: Promise<string> | undefined;

  /**
   * The file's bytes, or undefined when there is no such file. Opened once and checked to lie in
   * the directory: a session file that is a symlink (or was swapped for one) leading elsewhere is
   * refused (thrown as an error naming it), not read.
   */
  private async read(sessionId: string): Promise<Buffer | undefined> {
    this.realDir ??= fsp.realpath(this.dir).catch(() => this.dir);
    try {
      const { handle } = await openInside(this.file(sessionId), [await this.realDir]);
      try {
        return await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const bytes = isValidSessionId(sessionId) ? await this.read(sessionId) : undefined;
    const parsed = bytes && parseSessionText(bytes.toString('utf8'), this.file(sessionId), this.warn);
    return parsed && toStoredSession(sessionId, parsed);
  }

  async list(): Promise<SessionSummary[]> {
    let names: string[];
    try {
      names = await fsp.readdir(this.dir);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw error;
    }
    const ids = names
      .filter((n) => n.endsWith('.jsonl'))
      .map((n) => n.slice(0, -'.jsonl'.length))
      .filter(isValidSessionId);
    const summaries: SessionSummary[] = [];
    // A few files at a time: hundreds of concurrent reads would only queue and hold descriptors.
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        // One unreadable file (wrong owner, a directory by that name) must not hide the others.
        const bytes = await this.read(id).catch((error: unknown) => {
          this.warn(this.file(id), 0, `skipping an unreadable session file (${error instanceof Error ? error.message : String(error)})`);
          return undefined;
        });
        const summary = bytes && summarizeSessionBytes(id, bytes, this.file(id), this.warn);
        if (summary) summaries.push(summary);
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, ids.length) }, worker));
    return summaries.sort(compareSummaries);
  }

  async delete(sessionId: string): Promise<void> {
    if (!isValidSessionId(sessionId)) return;
    await this.serialize(sessionId, async () => {
      try {
        await this.lease(sessionId);
      } catch (error) {
        if (error instanceof SessionStoreError && error.code === 'not-found') return;
        throw error;
      }
      try {
        await fsp.unlink(this.file(sessionId));
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return;
        throw error;
      } finally {
        await this.leases.release(sessionId);
      }
      await syncDir(this.dir);
    });
  }

  async lease(sessionId: string): Promise<void> {
    const missing = new SessionStoreError('not-found', String(sessionId), `no session ${JSON.stringify(sessionId)}`);
    if (!isValidSessionId(sessionId)) throw missing;
    // No lease for a session that is not there (a lease file must never outlive its session).
    await fsp.access(this.file(sessionId)).catch((error: unknown) => {
      throw errorCode(error) === 'ENOENT' ? missing : error;
    });
    await this.leases.take(sessionId);
  }

  async release(sessionId: string): Promise<void> {
    if (this.removableWhenBlank.delete(sessionId)) {
      const stored = await this.load(sessionId).catch(() => undefined);
      if (stored && isBlankSession(stored)) await this.delete(sessionId).catch(() => undefined);
    }
    return this.leases.release(sessionId);
  }

  close(): void {
    // Synchronous: called on the way out of the process, after the turns settled.
    for (const sessionId of this.removableWhenBlank) {
      try {
        const parsed = parseSessionText(readFileSync(this.file(sessionId), 'utf8'), this.file(sessionId), this.warn);
        if (parsed && isBlankSession(toStoredSession(sessionId, parsed))) unlinkSync(this.file(sessionId));
      } catch {
        // Unreadable or already gone (deleted meanwhile): nothing to decide.
      }
    }
    this.removableWhenBlank.clear();
    this.leases.close();
  }
}
