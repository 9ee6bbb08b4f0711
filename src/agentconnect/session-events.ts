/**
 * Where a session's `acp.session.event`s go: to a connection, but never before the answer that gave
 * it the session's id (create, resume) has been read there, since AgentConnect's SDK drops the
 * events of a session it does not know yet (`AgentConnectClientImpl`: events of a session not in
 * its `sessionStore` are ignored; the session is stored in the continuation of the `await` of the
 * answer, and `ws` in Node hands every frame of one network read to the SDK before that runs).
 * Events meanwhile are held, a newer meter replacing a held one, and follow once the connection
 * has read the answer: its pong to a ping sent after the answer ({@link Peer.whenRead}), or the
 * app's next request naming the session, whichever comes first. And what each connection's calls
 * used, for `acp.capabilities.observed`.
 *
 * Source: AgentConnect v0.2.6 (rayzhudev/agent-connect @ 019337f) `packages/sdk/src/index.ts`, and
 * `docs/PROTOCOL.md` "Requested vs Observed" with `CapabilitiesObservedResult` in
 * `schemas/acp-methods.json`; RFC 6455 §5.5.2–5.5.3 (an endpoint answers a ping with a pong, as
 * soon as is practical: after the frames before it).
 */
import type { AcEvent, AcObserved } from './protocol.js';

/**
 * One WebSocket: where its sessions' events go. Which sessions it holds, the agent's live sessions
 * record (its own ACP connection's `ClientPeer`, `host-sessions.ts`).
 */
export interface Peer {
  /** Pushes one `acp.session.event` to this WebSocket. */
  push(sessionId: string, event: AcEvent): void;
  /**
   * Calls `then` once the app has read every message written to it so far (the front door pings
   * and waits for the pong; never called when the connection closes first).
   */
  whenRead(then: () => void): void;
}

/** The events of the sessions of one front door, held while the answer opening a session is on its way. */
export class SessionEvents {
  /** Per session, the connection whose events of it are held, and those events. */
  private readonly held = new Map<string, { peer: Peer; events: AcEvent[] }>();

  /** Holds the session's events to `peer` from now on, until {@link release}. */
  hold(peer: Peer, sessionId: string): void {
    const held = this.held.get(sessionId);
    if (held?.peer === peer) return;
    if (held) this.release(sessionId);
    this.held.set(sessionId, { peer, events: [] });
  }

  /** The connection whose events of the session are held (one opening it, a resume included), if any. */
  openingFor(sessionId: string): Peer | undefined {
    return this.held.get(sessionId)?.peer;
  }

  /** The answer opening the session has been read: the held events go now, and nothing is held any more. */
  release(sessionId: string): void {
    const held = this.held.get(sessionId);
    this.held.delete(sessionId);
    for (const event of held?.events ?? []) held!.peer.push(sessionId, event);
  }

  /** The session is let go: what was held is dropped. */
  drop(sessionId: string): void {
    this.held.delete(sessionId);
  }

  /** Sends `event` of `sessionId` to `peer`, or holds it while the answer opening the session there has not been read. */
  emit(peer: Peer, sessionId: string, event: AcEvent): void {
    const held = this.held.get(sessionId);
    if (held?.peer !== peer) {
      peer.push(sessionId, event);
      return;
    }
    const meter = event.type === 'context_usage' ? held.events.findIndex((earlier) => earlier.type === 'context_usage') : -1;
    if (meter >= 0) held.events.splice(meter, 1);
    held.events.push(event);
  }
}

/** The capabilities one connection's calls used (`agent.connect`, `model.local`), for `acp.capabilities.observed`. */
export class Observed {
  private readonly names = new Set<string>();
  private at: string | undefined;

  /** Notes that a call used `capability`. */
  record(capability: string): void {
    if (this.names.has(capability)) return;
    this.names.add(capability);
    this.at = new Date().toISOString();
  }

  /** The answer: this host reads no manifest, so nothing is requested; `appId` as the app gave it. */
  answer(appId: unknown): AcObserved {
    return {
      appId: typeof appId === 'string' && appId.trim() !== '' ? appId.trim().slice(0, 200) : 'agentconnect-app',
      requested: [],
      observed: [...this.names].sort(),
      updatedAt: this.at ?? new Date().toISOString(),
    };
  }
}
