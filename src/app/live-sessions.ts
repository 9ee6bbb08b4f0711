/**
 * The one registry of live sessions (`live-session.ts`), by id, one per agent: a session in memory
 * gets its {@link LiveSession} on first use; the one check of a connection's authority over a
 * session ({@link LiveSessions.heldBy}); what concerns every live session (their turns at exit).
 */
import type { ClientPeer } from './client-peer.js';
import { LiveSession, sessionNotFound, type SessionCloser } from './live-session.js';
import type { Session, SessionManager } from '../sessions/session-manager.js';

/** The one registry of live sessions, by id; one per agent (`AgentState`). */
export class LiveSessions {
  private readonly byId = new Map<string, LiveSession>();

  /**
   * @param sessions - the sessions in memory and their turns.
   * @param closer - what closing a session releases (`AgentState`).
   */
  constructor(
    private readonly sessions: SessionManager,
    private readonly closer: SessionCloser,
  ) {}

  /**
   * The live session `sessionId`; `undefined` when it is not in memory. A session object that
   * replaced another of the same id (held again from the store) carries on what that one held
   * (`LiveSession.continues`).
   */
  live(sessionId: string): LiveSession | undefined {
    const session = this.sessions.get(sessionId);
    return session && this.of(session);
  }

  /** The {@link LiveSession} of `session`, made on first use. */
  of(session: Session): LiveSession {
    const known = this.byId.get(session.id);
    if (known?.session === session) return known;
    const live = new LiveSession(session, this.closer);
    // Only a session in memory is registered (a turn of a session let go meanwhile gets a detached one).
    if (this.sessions.get(session.id) !== session) return live;
    if (known) live.continues(known);
    this.byId.set(session.id, live);
    return live;
  }

  /** Drops the entry of `session`, let go of (not that of another object of its id held since). */
  forget(session: Session): void {
    if (this.byId.get(session.id)?.session === session) this.byId.delete(session.id);
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
