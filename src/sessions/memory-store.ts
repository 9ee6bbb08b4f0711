/**
 * The memory store (`OPENAI_ACP_STATE_DIR=off`, or no writable directory): the same lines in a
 * Map, parsed the same way. A line is kept as its JSON pieces, so the long texts of a record (a
 * prompt of MBs) are the conversation's own strings, not a second copy.
 */
import type { Logger } from '../shared/log.js';
import { compareSummaries } from './session-list.js';
import type { SessionRecord, SessionSummary, StoredSession } from './session-records.js';
import { parseSessionText, summarizeSessionBytes, toStoredSession, type Warn } from './session-text.js';
import { piecesOf, type JsonPieces } from '../openai/json-bytes.js';
import { createWarn, isValidSessionId, serializeHeader, serializeRecordPieces, SessionStoreError, type SessionStore } from './store-base.js';

export class MemorySessionStore implements SessionStore {
  readonly persistent = false;
  readonly dir = undefined;
  private readonly sessions = new Map<string, JsonPieces[]>();
  private readonly warn: Warn;

  constructor(logger: Logger) {
    this.warn = createWarn(logger);
  }

  async create(session: { sessionId: string; cwd: string; createdAt: string }, records: readonly SessionRecord[] = []): Promise<void> {
    const { sessionId } = session;
    if (!isValidSessionId(sessionId)) throw new SessionStoreError('invalid-id', String(sessionId), `invalid session id ${JSON.stringify(sessionId)}`);
    const header = serializeHeader(sessionId, session);
    if (this.sessions.has(sessionId)) throw new SessionStoreError('exists', sessionId, `session ${sessionId} already exists`);
    const lines = records.map((record) => serializeRecordPieces(sessionId, record));
    this.sessions.set(sessionId, [piecesOf([header]), ...lines]);
  }

  async append(sessionId: string, record: SessionRecord): Promise<void> {
    const lines = isValidSessionId(sessionId) ? this.sessions.get(sessionId) : undefined;
    if (!lines) throw new SessionStoreError('not-found', String(sessionId), `no session ${JSON.stringify(sessionId)}`);
    lines.push(serializeRecordPieces(sessionId, record));
  }

  async load(sessionId: string): Promise<StoredSession | undefined> {
    const lines = isValidSessionId(sessionId) ? this.sessions.get(sessionId) : undefined;
    const parsed = lines && parseSessionText(textOf(lines), `memory:${sessionId}`, this.warn);
    return parsed && toStoredSession(sessionId, parsed);
  }

  async list(): Promise<SessionSummary[]> {
    const summaries = [...this.sessions].map(([id, lines]) => summarizeSessionBytes(id, Buffer.from(textOf(lines), 'utf8'), `memory:${id}`, this.warn)!);
    return summaries.sort(compareSummaries);
  }

  async delete(sessionId: string): Promise<void> {
    this.sessions.delete(sessionId);
  }

  /** One process only: every session is this process's to write. */
  async lease(sessionId: string): Promise<void> {
    if (!isValidSessionId(sessionId) || !this.sessions.has(sessionId))
      throw new SessionStoreError('not-found', String(sessionId), `no session ${JSON.stringify(sessionId)}`);
  }

  async release(): Promise<void> {}

  close(): void {}
}

/** The session's text, as the file store would hold it: the lines joined by `\n`. */
const textOf = (lines: readonly JsonPieces[]): string => lines.map((line) => line.pieces.join('')).join('\n');
