import fc from 'fast-check';
import { binaryUnit } from '../../test/helpers/binary-unit.js';
import { describe, expect, it } from 'vitest';
import { compareSummaries, decodeCursor, encodeCursor, InvalidCursorError, paginateSessions } from '../../src/sessions/session-list.js';
import type { SessionSummary } from '../../src/sessions/session-records.js';

const CWDS = ['/a', '/b', '/a/b'];
/** Few distinct times (many ties), spelled in different ways, plus garbage. */
const updatedAt = fc.oneof(
  fc.integer({ min: 0, max: 6 }).map((m) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString()),
  fc.integer({ min: 0, max: 6 }).map((m) => `2026-01-01T00:0${m}:00Z`),
  fc.constantFrom('', 'not a date', '2026-13-45'),
);
const summary = (sessionId: string) =>
  fc
    .record({ cwd: fc.constantFrom(...CWDS), updatedAt, title: fc.option(fc.string(), { nil: undefined }) })
    .map(({ cwd, updatedAt, title }): SessionSummary => (title === undefined ? { sessionId, cwd, updatedAt } : { sessionId, cwd, updatedAt, title }));
const ids = fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,8}$/), { maxLength: 40 });
const sessions: fc.Arbitrary<SessionSummary[]> = ids.chain((list) => (list.length === 0 ? fc.constant([]) : fc.tuple(...list.map(summary))));
const cwdFilter = fc.constantFrom<string | null | undefined>(undefined, null, ...CWDS, '/nowhere');
const pageSize = fc.integer({ min: 1, max: 12 });

/** Every page, following nextCursor; fails if it does not end. */
function allPages(list: SessionSummary[], cwd: string | null | undefined, size: number) {
  const pages = [];
  let cursor: string | undefined;
  do {
    const page = paginateSessions(list, { cwd, cursor }, size);
    pages.push(page);
    cursor = page.nextCursor;
    expect(pages.length).toBeLessThanOrEqual(list.length + 1);
  } while (cursor !== undefined);
  return pages;
}

describe('paginateSessions (property)', () => {
  it('pages concatenated = the filtered list in order, once each; full pages but the last', () => {
    fc.assert(
      fc.property(sessions, cwdFilter, pageSize, (list, cwd, size) => {
        const pages = allPages(list, cwd, size);
        const expected = list.filter((s) => cwd == null || s.cwd === cwd).sort(compareSummaries);
        const got = pages.flatMap((p) => p.sessions);
        expect(got).toEqual(expected);
        expect(new Set(got.map((s) => s.sessionId)).size).toBe(got.length);
        expect(pages.length).toBe(Math.max(1, Math.ceil(expected.length / size)));
        for (const p of pages.slice(0, -1)) expect(p.sessions).toHaveLength(size);
        for (let i = 1; i < got.length; i++) expect(compareSummaries(got[i - 1]!, got[i]!)).toBeLessThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it('sessions added, updated (to newer) or deleted between pages: the untouched ones appear exactly once, nothing twice', () => {
    const change = fc.record({ afterPage: fc.nat(6), touch: fc.array(fc.nat(), { maxLength: 5 }), added: fc.array(summary('placeholder'), { maxLength: 5 }) });
    fc.assert(
      fc.property(sessions, pageSize, change, (initial, size, { afterPage, touch, added }) => {
        let list = [...initial];
        const touched = new Set<string>();
        const seen: string[] = [];
        let cursor: string | undefined;
        let page = 0;
        do {
          const result = paginateSessions(list, { cursor }, size);
          seen.push(...result.sessions.map((s) => s.sessionId));
          cursor = result.nextCursor;
          if (page++ === afterPage && list.length > 0) {
            // Update (to a newer time, as real updates do) or delete some sessions; add new ones.
            for (const [k, n] of touch.entries()) {
              if (list.length === 0) break;
              const victim = list[n % list.length]!;
              touched.add(victim.sessionId);
              list = list.filter((s) => s !== victim);
              if (k % 2 === 0) list.push({ ...victim, updatedAt: new Date(Date.UTC(2026, 0, 1, 1, n % 9)).toISOString() });
            }
            list.push(...added.map((s, k) => ({ ...s, sessionId: `new-${k}` })));
          }
        } while (cursor !== undefined);
        expect(new Set(seen).size).toBe(seen.length);
        for (const s of initial) if (!touched.has(s.sessionId)) expect(seen).toContain(s.sessionId);
      }),
      { numRuns: 500 },
    );
  });

  it('any cursor string is either the canonical encoding of an entry or an InvalidCursorError', () => {
    const validCursor = fc.record({ updatedAt: fc.string(), sessionId: fc.string() }).map(encodeCursor);
    const mutated = fc.tuple(validCursor, fc.nat(), fc.string({ minLength: 0, maxLength: 3 }), fc.nat(3)).map(([c, at, insert, del]) => {
      const i = at % (c.length + 1);
      return c.slice(0, i) + insert + c.slice(i + del);
    });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.base64String(), fc.string({ unit: binaryUnit }), mutated), (cursor) => {
        let decoded: ReturnType<typeof decodeCursor>;
        try {
          decoded = decodeCursor(cursor);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidCursorError);
          expect(() => paginateSessions([], { cursor })).toThrow(InvalidCursorError);
          return;
        }
        expect(encodeCursor(decoded)).toBe(cursor);
        expect(() => paginateSessions([], { cursor })).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('every nextCursor decodes to the last entry of its page', () => {
    fc.assert(
      fc.property(sessions, pageSize, (list, size) => {
        for (const page of allPages(list, undefined, size)) {
          if (page.nextCursor === undefined) continue;
          const last = page.sessions.at(-1)!;
          expect(decodeCursor(page.nextCursor)).toEqual({ updatedAt: last.updatedAt, sessionId: last.sessionId });
        }
      }),
      { numRuns: 300 },
    );
  });
});
