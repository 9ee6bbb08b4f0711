/**
 * The durable session store: one JSON Lines file per session, `<dir>/<sessionId>.jsonl` (mode
 * 0600, in a directory made with mode 0700). Line 1 is a header
 * `{"type":"session","version":1,"sessionId","cwd","createdAt"}`; every later line is one
 * {@link SessionRecord}, written with `type` and `at` as its first keys. Each write puts its line
 * break BEFORE its record (`\n{…}`), so the file does not end with one, and a record cut short by
 * a writer killed mid-write can never swallow the next record: that starts on a line of its own.
 *
 * Durability and sharing, by construction:
 * - a session file appears whole: the header goes to a temporary file, is fsynced, then
 *   hard-linked (where links are unsupported: renamed) into place, and the directory is fsynced;
 * - an append is ONE `write` of one whole line to a file opened with `O_APPEND`, then `fsync`,
 *   so writers in several processes never interleave inside a record, and a resolved append
 *   survives SIGKILL (and power loss, as far as the filesystem honours fsync);
 * - `load` and `list` always read the files (no cache), so they see other processes' appends; a
 *   line that is torn, not JSON, or not a valid record is skipped with one `logger.warn` naming
 *   the file and the line number (once per store and line, however often it is read);
 * - `list` reads each file but parses only its header, the lines containing `"type":"meta"`, and
 *   its last valid record (about 15 ms for 120 sessions × 20 turns, 13 MB, on a warm cache).
 *
 * `OPENAI_ACP_STATE_DIR=off`, or a directory that cannot be made or written, gives an in-memory
 * store that behaves the same and forgets everything at exit.
 */
import { chmodSync, closeSync, constants, mkdirSync, openSync, promises as fsp, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../log.js';
import { compareSummaries } from './session-list.js';
import {
  parseRecord,
  parseSessionText,
  summarizeSessionBytes,
  toStoredSession,
  type SessionHeader,
  type SessionRecord,
  type SessionSummary,
  type StoredSession,
  type Warn,
} from './session-records.js';

// The record types and parser moved to session-records.ts; re-exported so importers keep working.
export { parseRecord } from './session-records.js';
export type { ClearRecord, CompactRecord, MetaRecord, SessionRecord, SessionSummary, StoredSession, TurnRecord } from './session-records.js';

/** Where sessions live. Every method rejects only on I/O failure or the errors it names. */
export interface SessionStore {
  /** True when sessions survive a restart (files), false for the memory store. */
  readonly persistent: boolean;
  /** The directory, or undefined for the memory store. */
  readonly dir: string | undefined;
  /**
   * Records a new session durably.
   * @throws SessionStoreError `invalid-id` for an id outside {@link SESSION_ID_PATTERN}, `exists`
   *   when the session already exists, `invalid-record` when cwd or createdAt is not a string.
   */
  create(session: { sessionId: string; cwd: string; createdAt: string }): Promise<void>;
  /**
   * Appends one record; resolves once it is on disk. Appends from one store to one session keep
   * their call order.
   * @throws SessionStoreError `not-found` (unknown or invalid id), `invalid-record` (a record
   *   that would not load back, e.g. a missing field or a value JSON cannot hold).
   */
  append(sessionId: string, record: SessionRecord): Promise<void>;
  /** The session as now on disk, or undefined (unknown or invalid id, unreadable header). */
  load(sessionId: string): Promise<StoredSession | undefined>;
  /** Every session, newest `updatedAt` first (ties broken by sessionId). */
  list(): Promise<SessionSummary[]>;
  /** Removes the session; an unknown id succeeds. */
  delete(sessionId: string): Promise<void>;
}

/** Session ids accepted from clients; anything else is "not found". */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
/** Longest title {@link titleFromPrompt} returns, in characters (code points), "…" included. */
export const TITLE_MAX_CHARS = 80;

/** True when `id` is a session id this store accepts (so it can never leave the directory). */
export function isValidSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID_PATTERN.test(id);
}

/** Why a store call was refused. */
export type SessionStoreErrorCode = 'invalid-id' | 'not-found' | 'exists' | 'invalid-record';

/** A store call refused for a reason of the caller's making (I/O failures reject with Node's own errors). */
export class SessionStoreError extends Error {
  override readonly name = 'SessionStoreError';
  constructor(
    readonly code: SessionStoreErrorCode,
    readonly sessionId: string,
    message: string,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Records: serialisation (types, validation and parsing live in session-records.ts).

/** The line (no `\n`) for `record`, `type` and `at` first. @throws SessionStoreError `invalid-record`. */
function serializeRecord(sessionId: string, record: SessionRecord): string {
  let line: string | undefined;
  try {
    const { type, at, ...rest } = record;
    line = JSON.stringify({ type, at, ...rest }) as string | undefined;
  } catch {
    // A BigInt or a cycle: not storable.
  }
  if (line === undefined || !parseRecord(JSON.parse(line))) {
    throw new SessionStoreError('invalid-record', sessionId, `not a valid ${String(record?.type)} record for session ${sessionId}`);
  }
  return line;
}

function serializeHeader(sessionId: string, session: SessionHeader): string {
  if (typeof session.cwd !== 'string' || typeof session.createdAt !== 'string') {
    throw new SessionStoreError('invalid-record', sessionId, `session ${sessionId} needs a string cwd and createdAt`);
  }
  return JSON.stringify({ type: 'session', version: 1, sessionId, cwd: session.cwd, createdAt: session.createdAt });
}

/** Runs `work` after every earlier call for the same key has settled. */
function createSerializer() {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const run = (tails.get(key) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => tails.get(key) === tail && tails.delete(key));
    return run;
  };
}

/** Logs each (file, line) problem once per store, so listing again does not repeat it. */
function createWarn(logger: Logger): Warn {
  const seen = new Set<string>();
  return (file, line, msg) => {
    const key = `${file}:${line}:${msg}`;
    if (seen.has(key)) return;
    if (seen.size > 10_000) seen.clear();
    seen.add(key);
    logger.warn(msg, { file, line });
  };
}

// ---------------------------------------------------------------------------------------------
// The file store.

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;
/** Numbers the temporary files of this process. */
let tempCounter = 0;
/** Leftover temporary and probe files older than this (ms) are removed at open. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/** fsync a directory, so a name just added or removed survives power loss (unsupported on some platforms). */
async function syncDir(dir: string): Promise<void> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(dir, constants.O_RDONLY);
    await handle.sync();
  } catch (error) {
    if (!['EISDIR', 'EINVAL', 'EPERM', 'ENOTSUP', 'EBADF'].includes(errorCode(error) ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

/** Creates `file` (must not exist) with mode 0600 holding `data`, fsynced. */
async function writeNewFile(file: string, data: string): Promise<void> {
  const handle = await fsp.open(file, 'wx', 0o600);
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

class FileSessionStore implements SessionStore {
  readonly persistent = true;
  private readonly serialize = createSerializer();
  private readonly warn: Warn;

  constructor(
    readonly dir: string,
    logger: Logger,
  ) {
    this.warn = createWarn(logger);
  }

  private file(sessionId: string): string {
    return join(this.dir, `${sessionId}.jsonl`);
  }

  async create(session: { sessionId: string; cwd: string; createdAt: string }): Promise<void> {
    const { sessionId } = session;
    if (!isValidSessionId(sessionId)) throw new SessionStoreError('invalid-id', String(sessionId), `invalid session id ${JSON.stringify(sessionId)}`);
    const data = serializeHeader(sessionId, session);
    await this.serialize(sessionId, async () => {
      const file = this.file(sessionId);
      // A leading dot keeps temporary files out of listings (ids start with a letter or digit).
      // Unique: per process (pid), per call (counter); created with 'wx' all the same.
      const temp = join(this.dir, `.tmp-${sessionId}-${process.pid}-${++tempCounter}`);
      await writeNewFile(temp, data);
      try {
        try {
          await fsp.link(temp, file);
        } catch (error) {
          if (errorCode(error) === 'EEXIST') throw new SessionStoreError('exists', sessionId, `session ${sessionId} already exists`);
          // No hard links here (some network and FAT filesystems): check, then rename.
          if (await fsp.access(file).then(() => true, () => false)) throw new SessionStoreError('exists', sessionId, `session ${sessionId} already exists`);
          await fsp.rename(temp, file);
        }
      } finally {
        await fsp.unlink(temp).catch(() => undefined);
      }
      await syncDir(this.dir);
    });
  }

  async append(sessionId: string, record: SessionRecord): Promise<void> {
    if (!isValidSessionId(sessionId)) throw new SessionStoreError('not-found', String(sessionId), `no session ${JSON.stringify(sessionId)}`);
    const data = Buffer.from(`\n${serializeRecord(sessionId, record)}`, 'utf8');
    await this.serialize(sessionId, async () => {
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

  /** The file's bytes, or undefined when there is no such file. */
  private async read(sessionId: string): Promise<Buffer | undefined> {
    try {
      return await fsp.readFile(this.file(sessionId));
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
    const ids = names.filter((n) => n.endsWith('.jsonl')).map((n) => n.slice(0, -'.jsonl'.length)).filter(isValidSessionId);
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
        await fsp.unlink(this.file(sessionId));
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return;
        throw error;
      }
      await syncDir(this.dir);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The memory store: the same lines in a Map, parsed the same way.

class MemorySessionStore implements SessionStore {
  readonly persistent = false;
  readonly dir = undefined;
  private readonly sessions = new Map<string, string[]>();
  private readonly warn: Warn;

  constructor(logger: Logger) {
    this.warn = createWarn(logger);
  }

  async create(session: { sessionId: string; cwd: string; createdAt: string }): Promise<void> {
    const { sessionId } = session;
    if (!isValidSessionId(sessionId)) throw new SessionStoreError('invalid-id', String(sessionId), `invalid session id ${JSON.stringify(sessionId)}`);
    const header = serializeHeader(sessionId, session);
    if (this.sessions.has(sessionId)) throw new SessionStoreError('exists', sessionId, `session ${sessionId} already exists`);
    this.sessions.set(sessionId, [header]);
  }

  async append(sessionId: string, record: SessionRecord): Promise<void> {
    const lines = isValidSessionId(sessionId) ? this.sessions.get(sessionId) : undefined;
    if (!lines) throw new SessionStoreError('not-found', String(sessionId), `no session ${JSON.stringify(sessionId)}`);
    lines.push(serializeRecord(sessionId, record));
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const lines = isValidSessionId(sessionId) ? this.sessions.get(sessionId) : undefined;
    const parsed = lines && parseSessionText(lines.join('\n'), `memory:${sessionId}`, this.warn);
    return parsed && toStoredSession(sessionId, parsed);
  }

  async list(): Promise<SessionSummary[]> {
    const summaries = [...this.sessions].map(([id, lines]) => summarizeSessionBytes(id, Buffer.from(lines.join('\n'), 'utf8'), `memory:${id}`, this.warn)!);
    return summaries.sort(compareSummaries);
  }

  async delete(sessionId: string): Promise<void> {
    this.sessions.delete(sessionId);
  }
}

// ---------------------------------------------------------------------------------------------
// Opening.

function homeOf(env: NodeJS.ProcessEnv): string {
  const home = env.HOME?.trim();
  return home ? home : homedir();
}

/**
 * The default session directory: `$XDG_STATE_HOME/openai-acp/sessions`, or
 * `$HOME/.local/state/openai-acp/sessions` when XDG_STATE_HOME is unset, empty or relative
 * (relative values are invalid per the XDG Base Directory spec,
 * https://specifications.freedesktop.org/basedir-spec/latest/). HOME falls back to `os.homedir()`.
 */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_STATE_HOME?.trim();
  const base = xdg && isAbsolute(xdg) ? xdg : join(homeOf(env), '.local', 'state');
  return join(base, 'openai-acp', 'sessions');
}

/** Makes `dir` (0700 when this call creates it) and proves it writable by creating and removing a probe file. */
async function prepareDir(dir: string): Promise<void> {
  // Synchronous on purpose: `initialize` waits for this answer (whether sessions persist), and
  // four quick system calls cost less than four trips through the thread pool (~3 ms at start).
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined) chmodSync(dir, 0o700);
  const probe = join(dir, `.probe-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`);
  // Only proves the directory writable: no fsync (it would delay every start on slow disks).
  closeSync(openSync(probe, 'wx', 0o600));
  unlinkSync(probe);
  // Best effort, after start-up: temporary files left by a process killed while creating a session.
  setImmediate(() => void removeStaleTemps(dir));
}

/** Removes temporary and probe files older than {@link STALE_TEMP_MS} from `dir`. Never rejects. */
async function removeStaleTemps(dir: string): Promise<void> {
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith('.tmp-') || n.startsWith('.probe-'))) {
    const path = join(dir, name);
    const stat = await fsp.stat(path).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > STALE_TEMP_MS) await fsp.unlink(path).catch(() => undefined);
  }
}

/**
 * Opens the session store.
 * - `stateDir` (the raw `OPENAI_ACP_STATE_DIR`, trimmed): unset or empty → {@link defaultStateDir};
 *   `off` in any case → the memory store; `~` or `~/…` → under HOME; relative → from the process cwd.
 * - The directory is created recursively (mode 0700 for what this creates) and probed by creating
 *   and removing a file; if that fails, the memory store is returned.
 * Either way to the memory store logs ONE `logger.warn` saying why and that sessions will not
 * survive a restart. Never rejects.
 */
export async function openSessionStore(options: { stateDir?: string | undefined; env: NodeJS.ProcessEnv; logger: Logger }): Promise<SessionStore> {
  const { env, logger } = options;
  const raw = options.stateDir?.trim() ?? '';
  if (raw.toLowerCase() === 'off') {
    logger.warn('session persistence is off (OPENAI_ACP_STATE_DIR=off): sessions are kept in memory and will not survive a restart');
    return new MemorySessionStore(logger);
  }
  let dir: string;
  if (raw === '') dir = defaultStateDir(env);
  else if (raw === '~' || raw.startsWith('~/')) dir = join(homeOf(env), raw.slice(1));
  else dir = resolve(raw);
  try {
    await prepareDir(dir);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn(
      `cannot use ${dir} for sessions (${reason}): sessions are kept in memory and will not survive a restart; set OPENAI_ACP_STATE_DIR to a writable directory, or to "off" to silence this`,
      { dir },
    );
    return new MemorySessionStore(logger);
  }
  return new FileSessionStore(dir, logger);
}

/**
 * A title from a prompt: the text of its text blocks (joined by spaces), whitespace collapsed,
 * trimmed; at most {@link TITLE_MAX_CHARS} code points, cut at a word boundary when one falls in
 * the second half (else mid-word) and ended with "…". Undefined when there is no text.
 */
export function titleFromPrompt(prompt: readonly ContentBlock[]): string | undefined {
  let text = '';
  for (const block of prompt) {
    if (block.type !== 'text' || typeof block.text !== 'string') continue;
    text = `${text} ${block.text}`.replace(/\s+/g, ' ').trim();
    // Enough to decide the cut; the rest of a long prompt does not matter.
    if (text.length > TITLE_MAX_CHARS * 2 + 2) break;
  }
  if (text === '') return undefined;
  const chars = Array.from(text);
  if (chars.length <= TITLE_MAX_CHARS) return text;
  const head = chars.slice(0, TITLE_MAX_CHARS - 1).join('');
  const space = head.lastIndexOf(' ');
  const atBoundary = chars[TITLE_MAX_CHARS - 1] === ' ';
  const cut = atBoundary ? head : space >= head.length / 2 ? head.slice(0, space) : head;
  return `${cut.trimEnd()}…`;
}
