import { describe, expect, it } from 'vitest';
import { compareSummaries, decodeCursor, encodeCursor, InvalidCursorError, paginateSessions } from '../../src/sessions/session-list.js';
import type { SessionSummary } from '../../src/sessions/session-records.js';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
const s = (sessionId: string, minute: number, cwd = '/a'): SessionSummary => ({ sessionId, cwd, updatedAt: at(minute) });

describe('paginateSessions', () => {
  const all = [s('c', 1), s('a', 5, '/b'), s('b', 5), s('d', 9), s('e', 3, '/b')];

  it('orders newest first, ties by sessionId, in pages with a cursor until the last page', () => {
    const first = paginateSessions(all, {}, 2);
    expect(first.sessions.map((x) => x.sessionId)).toEqual(['d', 'a']);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = paginateSessions(all, { cursor: first.nextCursor }, 2);
    expect(second.sessions.map((x) => x.sessionId)).toEqual(['b', 'e']);
    const third = paginateSessions(all, { cursor: second.nextCursor }, 2);
    expect(third).toEqual({ sessions: [s('c', 1)] });
    expect('nextCursor' in third).toBe(false);
  });

  it('has no nextCursor when the last page is exactly full, and returns an empty page for an empty list', () => {
    expect(paginateSessions(all, {}, 5)).toEqual({ sessions: expect.any(Array) });
    expect(paginateSessions(all, {}, 5).sessions).toHaveLength(5);
    expect(paginateSessions([], {})).toEqual({ sessions: [] });
  });

  it('filters by exact cwd; null means no filter', () => {
    expect(paginateSessions(all, { cwd: '/b' }).sessions.map((x) => x.sessionId)).toEqual(['a', 'e']);
    expect(paginateSessions(all, { cwd: '/b/' }).sessions).toEqual([]);
    expect(paginateSessions(all, { cwd: null, cursor: null }).sessions).toHaveLength(5);
  });

  it('defaults to pages of 50', () => {
    const many = Array.from({ length: 120 }, (_, i) => s(`s${String(i).padStart(3, '0')}`, i));
    const first = paginateSessions(many, {});
    expect(first.sessions).toHaveLength(50);
    expect(first.sessions[0]!.sessionId).toBe('s119');
  });

  it('neither duplicates nor skips when sessions are added or updated between pages', () => {
    const first = paginateSessions(all, {}, 2); // d, a
    // A new session, and `c` updated: both now newer than everything, so before the cursor.
    const later = [...all.filter((x) => x.sessionId !== 'c'), s('new', 20), s('c', 21)];
    const rest = paginateSessions(later, { cursor: first.nextCursor }, 10);
    expect(rest.sessions.map((x) => x.sessionId)).toEqual(['b', 'e']);
  });

  it('continues after the cursor entry even when that entry was deleted', () => {
    const first = paginateSessions(all, {}, 2); // d, a
    const rest = paginateSessions(
      all.filter((x) => x.sessionId !== 'a'),
      { cursor: first.nextCursor },
      10,
    );
    expect(rest.sessions.map((x) => x.sessionId)).toEqual(['b', 'e', 'c']);
  });

  it.each([
    '',
    'abc',
    '!!!',
    'e30',
    encodeCursor({ updatedAt: at(1), sessionId: 'x' }) + '=',
    Buffer.from('{"u":1,"s":"x"}').toString('base64url'),
    Buffer.from('{"u":"a","s":"b","x":1}').toString('base64url'),
    Buffer.from('[1]').toString('base64url'),
    Buffer.from([0xff, 0xfe]).toString('base64url'),
  ])('rejects the cursor %j with InvalidCursorError', (cursor) => {
    expect(() => paginateSessions(all, { cursor })).toThrow(InvalidCursorError);
  });

  it('rejects a page size that is not a positive integer', () => {
    for (const size of [0, -1, 1.5, Number.NaN]) expect(() => paginateSessions(all, {}, size)).toThrow(RangeError);
  });
});

describe('cursor and order', () => {
  it('round-trips any entry, unicode included', () => {
    const entry = { updatedAt: '2026-01-01T00:00:00.000Z', sessionId: 'é"\\😀' };
    expect(decodeCursor(encodeCursor(entry))).toEqual(entry);
    expect(encodeCursor(entry)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('compares instants, not spellings, and sorts unparsable times last', () => {
    const a = { sessionId: 'a', updatedAt: '2026-01-01T00:00:00Z' };
    const b = { sessionId: 'b', updatedAt: '2026-01-01T00:00:00.000Z' };
    const c = { sessionId: 'c', updatedAt: '2025-12-31T23:59:59.999Z' };
    const bad = { sessionId: '0', updatedAt: 'yesterday' };
    expect([bad, c, b, a].sort(compareSummaries).map((x) => x.sessionId)).toEqual(['a', 'b', 'c', '0']);
    expect(compareSummaries(a, { ...a })).toBe(0);
  });
});
