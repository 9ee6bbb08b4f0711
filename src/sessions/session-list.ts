/**
 * Paging `session/list`: filter by cwd, order newest first, and cut pages with an opaque keyset
 * cursor, so sessions created or updated between two page requests neither duplicate nor skip
 * the entries the client has not seen yet.
 *
 * Source: ACP `ListSessionsRequest` / `ListSessionsResponse` (`{cwd?, cursor?}` →
 * `{sessions, nextCursor?}`; the cursor is an opaque token from an earlier `nextCursor`, and an
 * absent `nextCursor` means there are no more results), stabilised in March 2026:
 * https://agentclientprotocol.com/announcements/session-list-stabilized .
 */
import type { SessionSummary } from './session-records.js';

/** Sessions per page when the caller does not say. */
const DEFAULT_PAGE_SIZE = 50;

/** The part of a summary that orders it (and that a cursor remembers). */
export type SessionSortKey = Pick<SessionSummary, 'updatedAt' | 'sessionId'>;

/**
 * Thrown by {@link paginateSessions} (and {@link decodeCursor}) for a cursor this module did not
 * produce: not base64url, not canonical, not the expected JSON. Maps to JSON-RPC -32602
 * (invalid params).
 */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
  /** The cursor as received. */
  readonly cursor: unknown;
  constructor(cursor: unknown) {
    super('invalid session/list cursor: pass the nextCursor of an earlier session/list response, or none');
    this.cursor = cursor;
  }
}

/** Milliseconds since the epoch of an ISO 8601 time; unparsable times sort as the oldest. */
function timeOf(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

/**
 * The `session/list` order: newest `updatedAt` first (compared as times, so `…00Z` and `…00.000Z`
 * are the same instant; unparsable times last), then `updatedAt` text descending (so different
 * strings never tie), then `sessionId` ascending. A total order on distinct (updatedAt, sessionId)
 * pairs; negative when `a` comes first.
 */
export function compareSummaries(a: SessionSortKey, b: SessionSortKey): number {
  const ta = timeOf(a.updatedAt);
  const tb = timeOf(b.updatedAt);
  if (ta !== tb) return ta > tb ? -1 : 1;
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt ? -1 : 1;
  if (a.sessionId !== b.sessionId) return a.sessionId < b.sessionId ? -1 : 1;
  return 0;
}

/**
 * The opaque cursor naming `entry`: base64url of `{"u": updatedAt, "s": sessionId}`.
 * @internal half of a round trip (fast-check properties) with decodeCursor.
 */
export function encodeCursor(entry: SessionSortKey): string {
  return Buffer.from(JSON.stringify({ u: entry.updatedAt, s: entry.sessionId }), 'utf8').toString('base64url');
}

/**
 * The entry a cursor of {@link encodeCursor} names. Strict: only the exact bytes `encodeCursor`
 * writes are accepted (no padding, no stray characters, valid UTF-8, the same JSON text).
 * @throws InvalidCursorError for anything else.
 * @internal half of a round trip (fast-check properties) with encodeCursor.
 */
export function decodeCursor(cursor: unknown): SessionSortKey {
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw new InvalidCursorError(cursor);
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.toString('base64url') !== cursor) throw new InvalidCursorError(cursor);
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) throw new InvalidCursorError(cursor);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidCursorError(cursor);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCursorError(cursor);
  const { u, s } = value as Record<string, unknown>;
  // Exactly what encodeCursor writes: no extra keys, no whitespace, no other key order.
  if (typeof u !== 'string' || typeof s !== 'string' || JSON.stringify({ u, s }) !== text) throw new InvalidCursorError(cursor);
  return { updatedAt: u, sessionId: s };
}

/** A `session/list` request's paging parameters; `null` and absent mean the same. */
export interface SessionListRequest {
  /** Only sessions whose cwd is exactly this string. */
  cwd?: string | null;
  /** A `nextCursor` from an earlier page; absent for the first page. */
  cursor?: string | null;
}

/** One page of `session/list`. */
export interface SessionPage {
  /** At most `pageSize` sessions, in {@link compareSummaries} order. */
  sessions: SessionSummary[];
  /** Cursor of the next page; absent on the last page. */
  nextCursor?: string;
}

/**
 * One page of `all` (any order; session ids expected unique): the sessions whose cwd equals
 * `request.cwd` when given, ordered by {@link compareSummaries}, starting just after the entry
 * the cursor names (keyset paging: the named entry need not exist any more). Concatenating every
 * page of an unchanged list yields the whole filtered list once.
 * @param pageSize sessions per page, a positive integer; default {@link DEFAULT_PAGE_SIZE}.
 * @throws InvalidCursorError when `request.cursor` is not one this module produced.
 * @throws RangeError when `pageSize` is not a positive integer.
 */
export function paginateSessions(all: readonly SessionSummary[], request: SessionListRequest, pageSize = DEFAULT_PAGE_SIZE): SessionPage {
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
  const after = request.cursor === undefined || request.cursor === null ? undefined : decodeCursor(request.cursor);
  const cwd = request.cwd;
  const matching = all.filter((s) => cwd === undefined || cwd === null || s.cwd === cwd).sort(compareSummaries);
  let start = 0;
  if (after) {
    start = matching.findIndex((s) => compareSummaries(s, after) > 0);
    if (start === -1) start = matching.length;
  }
  const sessions = matching.slice(start, start + pageSize);
  const last = sessions[sessions.length - 1];
  return start + pageSize < matching.length && last ? { sessions, nextCursor: encodeCursor(last) } : { sessions };
}
