/**
 * One live session: everything it has in memory beside its records (the notices told, the context
 * kept for the next prompt, its cost meter, a reading of its records under way, why its running
 * turn could not be saved), who holds it (the connections that opened it and have not closed it)
 * and its closing, one call. The agent keeps one per session in memory, in one registry
 * (`AgentState.live`).
 *
 * Holders: ACP v1 lets a client open a session (`session/new`, `session/load`, `session/resume`,
 * `session/fork`) and let go of it (`session/close`, RFD https://agentclientprotocol.com/rfds/session-close);
 * `openai-acp serve` has several connections over the same sessions.
 */
import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { CostMeter } from '../loop/cost-meter.js';
import type { Session, SessionManager } from '../sessions/session-manager.js';
import type { SessionStoreError } from '../sessions/session-store.js';
import type { ClientPeer } from './client-peer.js';

/** `-32002` with `{sessionId}`: the session is not known (or not held by the asking connection). */
export function sessionNotFound(sessionId: string): RequestError {
  return new RequestError(-32002, `Session not found: ${sessionId}`, { sessionId });
}

/** What closing a session lets go of, outside the session itself (the agent's per-session services). */
export type SessionCloser = (sessionId: string) => Promise<boolean>;

/** One session held in memory, its holders and its closing. */
export class LiveSession {
  /** The ids of the connections ({@link ClientPeer.id}) that hold the session. */
  private readonly holders = new Set<string>();
  /** The `once` keys of the notices already told (`loop/notify.ts`). */
  readonly told = new Set<string>();
  /** Context blocks sent with a command that takes no arguments, for the next prompt; absent: none. */
  kept: ContentBlock[] | undefined;
  /** Why a record of the running turn could not be saved: another process took the session over; absent: none. */
  takenOver: SessionStoreError | undefined;
  /** The cumulative cost, as providers report it; made on first use (`ModelSender.meter`). */
  cost: CostMeter | undefined;
  /** The records being read again after they left memory, so two prompts read once; absent: none. */
  reloading: Promise<void> | undefined;

  /** @param closer - stops the session's turn and tools and forgets it (`AgentState`); resolves whether it was held. */
  constructor(
    readonly session: Session,
    private readonly closer: SessionCloser,
  ) {}

  /** Takes the holders of `earlier`, the same session's object before it was held again from the store. */
  holdersOf(earlier: LiveSession): void {
    for (const id of earlier.holders) this.holders.add(id);
  }

  /** The session's id. */
  get id(): string {
    return this.session.id;
  }

  /** Records that the connection of `peer` holds the session (and the connection that it does). */
  addHolder(peer: ClientPeer): void {
    this.holders.add(peer.id);
    peer.sessions.add(this.id);
  }

  /** Records that the connection of `peer` let go of the session; returns whether it held it. */
  removeHolder(peer: ClientPeer): boolean {
    peer.sessions.delete(this.id);
    return this.holders.delete(peer.id);
  }

  /** Whether the connection of `peer` holds the session. */
  isHeldBy(peer: ClientPeer): boolean {
    return this.holders.has(peer.id);
  }

  /** Whether any connection other than `peer`'s holds the session. */
  heldElsewhere(peer: ClientPeer): boolean {
    return this.holders.size > (this.holders.has(peer.id) ? 1 : 0);
  }

  /** How many connections hold the session. */
  get holderCount(): number {
    return this.holders.size;
  }

  /**
   * Refuses a connection that does not hold the session: to it the session is unknown.
   * @throws {RequestError} -32002 with `{sessionId}`.
   */
  assertHeldBy(peer: ClientPeer): void {
    if (!this.isHeldBy(peer)) throw sessionNotFound(this.id);
  }

  /**
   * Lets go of everything the session holds: its turn stopped and settled (saved), its model
   * lists, commands and tools, its lease; its holders forgotten. Resolves whether it was held.
   */
  close(): Promise<boolean> {
    this.holders.clear();
    return this.closer(this.id);
  }
}

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
   * replaced another of the same id (held again from the store) starts afresh, its holders kept.
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
    if (known) live.holdersOf(known);
    this.byId.set(session.id, live);
    return live;
  }

  /** Drops the entry of a session let go of. */
  forget(sessionId: string): void {
    this.byId.delete(sessionId);
  }
}
