/**
 * Each WebSocket's own ACP connection into the agent (`acp-bridge.ts`), made at its first request,
 * and what it holds: the agent's live sessions record the holders of a session by connection
 * (`LiveSession`, by `ClientPeer`), so they are the one record of which WebSocket holds which
 * session, and `LiveSession.isHeldBy` the one check. At most {@link MAX_SESSIONS_PER_CONNECTION}
 * sessions per WebSocket.
 */
import type { AgentConnection, OpenAIAgent } from '../acp/agent.js';
import { AcpBridge, type ClientFactory } from './acp-bridge.js';
import { AgentConnectError, type FrontDoorMode } from './protocol.js';
import type { Peer } from './session-events.js';

/** Most sessions one WebSocket may hold at once. */
const MAX_SESSIONS_PER_CONNECTION = 16;

/** The agent a front door serves: a connection per WebSocket, over its live sessions (`acp/agent.ts`'s `OpenAIAgent`). */
export type FrontDoorAgent = Pick<OpenAIAgent, 'connection' | 'sessions'>;

/** A session in memory as the agent keeps it (its holders). */
type LiveSession = NonNullable<ReturnType<OpenAIAgent['sessions']['live']>>;

/** One WebSocket's ACP connection into the agent. */
export interface Link {
  connection: AgentConnection;
  bridge: AcpBridge;
}

/** The ACP connections of one front door's WebSockets. */
export class PeerLinks {
  /** Each WebSocket's ACP connection, being made or made. */
  private readonly links = new WeakMap<Peer, Promise<Link>>();
  /** Each WebSocket's ACP connection once made. */
  private readonly made = new WeakMap<Peer, Link>();
  /** Sessions being created or resumed per connection, counted against its limit until held. */
  private readonly opening = new WeakMap<Peer, Set<Promise<unknown>>>();
  /** WebSockets gone: no connection is made for them any more. */
  private readonly gone = new WeakSet<Peer>();

  /**
   * @param agent - the agent served.
   * @param client - the SDK's client factory, for each connection.
   * @param mode - the front door's fixed mode, set on every session.
   */
  constructor(
    private readonly agent: FrontDoorAgent,
    private readonly client: ClientFactory,
    private readonly mode: FrontDoorMode,
  ) {}

  /**
   * The ACP connection of `peer`'s WebSocket, made at its first use.
   * @throws {AgentConnectError} what `initialize` threw; AC_ERR_INTERNAL once the WebSocket is gone.
   */
  link(peer: Peer): Promise<Link> {
    if (this.gone.has(peer)) return Promise.reject(new AgentConnectError('AC_ERR_INTERNAL', 'The connection closed'));
    let link = this.links.get(peer);
    if (!link) {
      const connection = this.agent.connection({ maxSessions: MAX_SESSIONS_PER_CONNECTION });
      link = AcpBridge.open(connection.app, this.client, this.mode).then((bridge) => {
        const made = { connection, bridge };
        this.made.set(peer, made);
        return made;
      });
      this.links.set(peer, link);
    }
    return link;
  }

  /** The ACP connection of `peer`'s WebSocket once made; absent before its first request and once it is gone. */
  linked(peer: Peer): Link | undefined {
    return this.made.get(peer);
  }

  /** The live session `sessionId` (in memory), to take it over. */
  live(sessionId: string): LiveSession | undefined {
    return this.agent.sessions.live(sessionId);
  }

  /** Whether `peer`'s WebSocket holds the session: the agent's one record and check (`LiveSession.isHeldBy`). */
  holds(peer: Peer, sessionId: string): boolean {
    const link = this.made.get(peer);
    return link !== undefined && this.agent.sessions.live(sessionId)?.isHeldBy(link.connection.peer) === true;
  }

  /**
   * Runs `open` with a place kept for one more session of `peer`.
   * @throws {AgentConnectError} AC_ERR_BUSY when the connection holds (or is opening) {@link MAX_SESSIONS_PER_CONNECTION}.
   */
  async reserving<T>(peer: Peer, open: () => Promise<T>): Promise<T> {
    let opening = this.opening.get(peer);
    if (!opening) this.opening.set(peer, (opening = new Set()));
    const held = this.made.get(peer)?.connection.held().length ?? 0;
    if (held + opening.size >= MAX_SESSIONS_PER_CONNECTION)
      throw new AgentConnectError('AC_ERR_BUSY', `This connection holds ${MAX_SESSIONS_PER_CONNECTION} sessions, the most allowed; close one first`);
    const opened = open();
    opening.add(opened);
    try {
      return await opened;
    } finally {
      opening.delete(opened);
    }
  }

  /**
   * The ACP connection of a WebSocket going away, once made and once the sessions it was opening
   * are open (so the agent records them before the connection lets go); none is made for it from
   * now on; absent: it never made one. Never rejects.
   */
  async closing(peer: Peer): Promise<Link | undefined> {
    this.gone.add(peer);
    const link = await this.links.get(peer)?.catch(() => undefined);
    await Promise.allSettled([...(this.opening.get(peer) ?? [])]);
    return link;
  }

  /** Whether `peer`'s WebSocket is going or gone ({@link closing} was called). */
  isGone(peer: Peer): boolean {
    return this.gone.has(peer);
  }

  /** Forgets the ACP connection of a WebSocket gone. */
  unlink(peer: Peer): void {
    this.links.delete(peer);
    this.made.delete(peer);
  }
}
