/**
 * The one registry of the sessions in memory, by id, one per agent: each session's data
 * (`sessions/session.ts`) inside its {@link LiveSession} (everything else it has in memory, who
 * holds it, its closing); the one check of a connection's authority over a session
 * ({@link LiveSessions.heldBy}); what concerns every live session (their turns at exit).
 */
import type { ClientPeer } from './client-peer.js';
import { LiveSession, sessionNotFound, type SessionCloser } from './live-session.js';
import { restoredSession } from '../sessions/live-records.js';
import { newSession, type Session, type SessionState } from '../sessions/session.js';

/** The one registry of live sessions, by id; one per agent (`AgentState.sessions`). */
export class LiveSessions {
  private readonly byId = new Map<string, LiveSession>();
  /** The live sessions of copies no longer (or never) kept, one per copy, gone with it. */
  private readonly detached = new WeakMap<Session, LiveSession>();

  /** @param closer - what closing a session releases (`AgentState`). */
  constructor(private readonly closer: SessionCloser) {}

  /** Creates a session with a fresh unique id and keeps it. */
  create(cwd: string, model: string): Session {
    return this.keep(newSession(cwd, model)).session;
  }

  /**
   * Keeps a session restored from the store (`state.records`: its whole history), replacing any
   * copy kept under its id; the new copy's live session carries on what the old one held
   * (`LiveSession.continues`: its turn line above all, since turns of one id never overlap).
   */
  restore(state: SessionState): Session {
    return this.keep(restoredSession(state)).session;
  }

  private keep(session: Session): LiveSession {
    const live = new LiveSession(session, this.closer);
    const known = this.byId.get(session.id);
    if (known) live.continues(known);
    this.byId.set(session.id, live);
    return live;
  }

  /** The session in memory under `sessionId`, or `undefined`. */
  get(sessionId: string): Session | undefined {
    return this.byId.get(sessionId)?.session;
  }

  /** The live session `sessionId`; `undefined` when it is not in memory. */
  live(sessionId: string): LiveSession | undefined {
    return this.byId.get(sessionId);
  }

  /**
   * The {@link LiveSession} of `session`: the registered one while `session` is the copy in memory,
   * else a detached one, the same for every call on that copy (a turn of a session let go, or
   * replaced, meanwhile: what it keeps for the turn is found again), never registered.
   */
  of(session: Session): LiveSession {
    const known = this.byId.get(session.id);
    if (known?.session === session) return known;
    let detached = this.detached.get(session);
    if (!detached) this.detached.set(session, (detached = new LiveSession(session, this.closer)));
    return detached;
  }

  /** Forgets `session` (not another copy of its id kept since); returns whether it was the one kept. */
  remove(session: Session): boolean {
    if (this.byId.get(session.id)?.session !== session) return false;
    this.byId.delete(session.id);
    return true;
  }

  /** Every session in memory, in creation (or first restore) order. */
  all(): Session[] {
    return [...this.byId.values()].map((live) => live.session);
  }

  /** Number of sessions in memory. */
  get size(): number {
    return this.byId.size;
  }

  /**
   * The live session `sessionId` when the connection of `peer` holds it: the one check of a
   * connection's authority over a session (`acp/session-authority.ts` applies it to every method
   * that names a session).
   * @throws {RequestError} -32002 with `{sessionId}` when it is not in memory or not held by that
   *   connection: to a connection, a session another one holds is unknown.
   */
  heldBy(sessionId: string, peer: ClientPeer): LiveSession {
    const live = this.live(sessionId);
    if (!live) throw sessionNotFound(sessionId);
    live.assertHeldBy(peer);
    return live;
  }

  /** The ids of the sessions the connection of `peer` holds. */
  idsHeldBy(peer: ClientPeer): string[] {
    return [...this.byId.values()].filter((live) => live.isHeldBy(peer)).map((live) => live.id);
  }

  /** Whether any session has a turn running or prompts in line. */
  anyRunning(): boolean {
    return [...this.byId.values()].some((live) => live.line.isRunning);
  }

  /** Aborts every running turn and every prompt waiting; resolves when the running turns have settled (never rejects). */
  async cancelAll(): Promise<void> {
    await Promise.all([...this.byId.values()].map((live) => live.line.settle()));
  }
}
