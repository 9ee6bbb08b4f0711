/**
 * The sessions held in memory, by id: their data (records, model, options). Everything else a live
 * session has in memory (its turn line, tools, model list, holders) is its `LiveSession`'s
 * (`app/live-session.ts`), which the agent keeps beside each.
 */
import type { Session, SessionState } from './session.js';
import { loadRecords } from './live-records.js';

export type { Session, SessionState } from './session.js';
export type { Arrival } from './turn-line.js';

/** Holds every session of the process. */
export class SessionManager {
  private readonly sessions = new Map<string, Session>();

  /** Create a session with a fresh unique id (a UUID). */
  create(cwd: string, model: string): Session {
    // Web Crypto's randomUUID: node:crypto is then loaded at the first session, not at start-up.
    const session: Session = { id: globalThis.crypto.randomUUID(), cwd, createdAt: new Date().toISOString(), records: [], model, options: {} };
    this.sessions.set(session.id, session);
    return session;
  }

  /**
   * Keep a session restored from the store (`state.records`: its whole history), replacing any
   * copy kept under its id (its live session, the turn line included, passes to the new copy:
   * turns of one id never overlap). Only the live part of the history stays in memory (`live-records.ts`).
   */
  restore(state: SessionState): Session {
    const session: Session = { ...state, records: [] };
    loadRecords(session, state.records);
    this.sessions.set(session.id, session);
    return session;
  }

  /** Forget the session (the store keeps it; its turn was settled by its live session). Returns whether it was live. */
  remove(id: string): boolean {
    return this.sessions.delete(id);
  }

  /** The session with this id, or `undefined`. */
  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** Every live session, in creation (or restore) order. */
  all(): Session[] {
    return [...this.sessions.values()];
  }

  /** Number of live sessions. */
  get size(): number {
    return this.sessions.size;
  }
}
