/**
 * What both session stores share: the {@link SessionStore} interface, session id rules, the
 * error type, and the serialisation of header and records (the file format is described in
 * `session-store.ts`).
 */
import { storablePrompt } from './storable.js';
import { jsonPieces, piecesOf, type JsonPieces } from '../openai/json-bytes.js';
import type { Logger } from '../shared/log.js';
import type { SessionRecord, SessionSummary, StoredSession } from './session-records.js';
import { parseRecord } from './parse-record.js';
import type { SessionHeader, Warn } from './session-text.js';

/** Where sessions live. Every method rejects only on I/O failure or the errors it names. */
export interface SessionStore {
  /** True when sessions survive a restart (files), false for the memory store. */
  readonly persistent: boolean;
  /** The directory, or undefined for the memory store. */
  readonly dir: string | undefined;
  /**
   * Records a new session durably, with `records` after its header when given (a fork): the
   * session appears whole, records and all, or not at all; this process has its lease ({@link lease}).
   * @throws SessionStoreError `invalid-id` for an id outside {@link SESSION_ID_PATTERN}, `exists`
   *   when the session already exists, `invalid-record` when cwd or createdAt is not a string or
   *   a record would not load back.
   * With `options.removeWhenBlank` (a `session/new`), the session is removed when this process
   * lets go of it ({@link release}, {@link close}) still holding nothing (`isBlankSession`: no
   * turn, title, model or option), so a session without a kept turn leaves nothing behind.
   * @defaultValue `options.removeWhenBlank` false
   */
  create(
    session: { sessionId: string; cwd: string; createdAt: string },
    records?: readonly SessionRecord[],
    options?: { removeWhenBlank?: boolean },
  ): Promise<void>;
  /**
   * Appends one record; resolves once it is on disk. Appends from one store to one session keep
   * their call order. Its lease is taken first when this process has none ({@link lease}).
   * @throws SessionStoreError `not-found` (unknown or invalid id), `invalid-record` (a record
   *   that would not load back, e.g. a missing field or a value JSON cannot hold), `busy` (another
   *   process writes the session now).
   */
  append(sessionId: string, record: SessionRecord): Promise<void>;
  /** The session as now on disk, or undefined (unknown or invalid id, unreadable header). */
  load(sessionId: string): Promise<StoredSession | undefined>;
  /** Every session, newest `updatedAt` first (ties broken by sessionId). */
  list(): Promise<SessionSummary[]>;
  /** Removes the session (waiting for its lease, as {@link lease}); an unknown id succeeds. */
  delete(sessionId: string): Promise<void>;
  /**
   * Makes this process the session's one writer (the file store's lease, `session-lease.ts`;
   * nothing to do in memory): taken over from a process that is gone, waited for while another
   * live one has it. Having it already is fine.
   * @throws SessionStoreError `not-found` (no such session), `busy` (another process has its lease).
   */
  lease(sessionId: string): Promise<void>;
  /** Lets another process write the session, or removes it (`removeWhenBlank` of {@link create}). Never rejects. */
  release(sessionId: string): Promise<void>;
  /** Gives back every lease this process has, synchronously (at exit), removing those {@link release} would. Never throws. */
  close(): void;
}

/** Session ids accepted from clients; anything else is "not found". */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** True when `id` is a session id this store accepts (so it can never leave the directory). */
export function isValidSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID_PATTERN.test(id);
}

/** Why a store call was refused. */
export type SessionStoreErrorCode = 'invalid-id' | 'not-found' | 'exists' | 'invalid-record' | 'busy';

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

/** Longest record line checked by parsing it back, in UTF-16 code units. */
const ROUND_TRIP_MAX_CHARS = 1024 * 1024;

/**
 * The line (no `\n`) for `record`, `type` and `at` first. A turn whose prompt blocks cannot be
 * written (too deep, a cycle) is written without those parts ({@link storablePrompt}).
 * @throws SessionStoreError `invalid-record`.
 */
export function serializeRecord(sessionId: string, record: SessionRecord): string {
  let line: string | undefined;
  try {
    const { type, at, ...rest } = record;
    line = JSON.stringify({ type, at, ...rest }) as string | undefined;
  } catch {
    // A BigInt or a cycle: not storable, unless only the prompt blocks were at fault.
    if (record.type === 'turn' && Array.isArray(record.prompt)) {
      try {
        const { type, at, ...rest } = record;
        line = JSON.stringify({ type, at, ...rest, prompt: storablePrompt(record.prompt) }) as string | undefined;
      } catch {
        // Something else is not storable either.
      }
    }
  }
  // What is written must read back as a record. A long line (a prompt of MBs) is checked as the
  // object instead of parsed again: the same shape, without another copy of its text.
  if (line === undefined || !parseRecord(line.length > ROUND_TRIP_MAX_CHARS ? record : JSON.parse(line))) {
    throw new SessionStoreError('invalid-record', sessionId, `not a valid ${String(record?.type)} record for session ${sessionId}`);
  }
  return line;
}

/**
 * The record's line (after `prefix`) as {@link JsonPieces}: the same text as
 * {@link serializeRecord}, but a long record (a prompt of MBs) keeps its long strings uncopied, so
 * it is encoded straight into the bytes written, or held in memory without a second copy.
 * @param prefix - `\n` for a line appended to a file. @defaultValue ''
 * @throws SessionStoreError `invalid-record`.
 */
export function serializeRecordPieces(sessionId: string, record: SessionRecord, prefix = ''): JsonPieces {
  try {
    const { type, at, ...rest } = record;
    const json = jsonPieces({ type, at, ...rest }, prefix);
    // What is written must read back as a record (checked as in serializeRecord).
    const readsBack = json.byteLength > ROUND_TRIP_MAX_CHARS ? parseRecord(record) : parseRecord(JSON.parse(json.pieces.join('').slice(prefix.length)));
    if (readsBack) return json;
  } catch {
    // Not storable as it is: serializeRecord tries without the parts at fault, or says why not.
  }
  return piecesOf([`${prefix}${serializeRecord(sessionId, record)}`]);
}

/** The header line (no `\n`). */
export function serializeHeader(sessionId: string, session: SessionHeader): string {
  if (typeof session.cwd !== 'string' || typeof session.createdAt !== 'string') {
    throw new SessionStoreError('invalid-record', sessionId, `session ${sessionId} needs a string cwd and createdAt`);
  }
  return JSON.stringify({ type: 'session', version: 1, sessionId, cwd: session.cwd, createdAt: session.createdAt });
}

/** Logs each (file, line) problem once per store, so listing again does not repeat it. */
export function createWarn(logger: Logger): Warn {
  const seen = new Set<string>();
  return (file, line, msg, level = 'warn') => {
    const key = `${file}:${line}:${msg}`;
    if (seen.has(key)) return;
    if (seen.size > 10_000) seen.clear();
    seen.add(key);
    logger[level](msg, { file, line });
  };
}
