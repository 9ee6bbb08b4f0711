/**
 * Where a session's `acp.session.event`s go: to the connection holding the session, but not before
 * the answer that gave the app the session's id (create, resume) has gone out, since AgentConnect's
 * SDK drops the events of a session it does not know yet (`AgentConnectClientImpl`: events of a
 * session not in its `sessionStore` are ignored). Events meanwhile are held, a newer meter
 * replacing a held one, and follow the answer. And what each connection's calls used, for
 * `acp.capabilities.observed`.
 *
 * Source: AgentConnect v0.2.6 (rayzhudev/agent-connect @ 019337f) `packages/sdk/src/index.ts`, and
 * `docs/PROTOCOL.md` "Requested vs Observed" with `CapabilitiesObservedResult` in
 * `schemas/acp-methods.json`.
 */
import type { AcEvent, AcObserved } from './protocol.js';

/**
 * How long after the answer opening a session its held events follow, in ms: an SDK reading
 * several frames in one network read (`ws` in Node) handles them before the app has the session.
 */
const HELD_EVENTS_DELAY_MS = 20;

/** The events of the sessions of one front door, held while their opening answer is on its way. */
export class SessionEvents {
  private readonly held = new Map<string, AcEvent[]>();

  /** @param push - sends an event to the connection holding the session now (none: dropped). */
  constructor(private readonly push: (sessionId: string, event: AcEvent) => void) {}

  /** Holds the session's events from now on, until {@link release}. */
  hold(sessionId: string): void {
    if (!this.held.has(sessionId)) this.held.set(sessionId, []);
  }

  /** The answer opening the session went out: its held events follow, a moment later. */
  release(sessionId: string): void {
    setTimeout(() => this.flush(sessionId), HELD_EVENTS_DELAY_MS);
  }

  /** Sends the held events now and stops holding (a failed open lets them go where they were going). */
  flush(sessionId: string): void {
    const events = this.held.get(sessionId) ?? [];
    this.held.delete(sessionId);
    for (const event of events) this.push(sessionId, event);
  }

  /** The session is let go: what was held is dropped. */
  drop(sessionId: string): void {
    this.held.delete(sessionId);
  }

  /** Sends `event`, or holds it while the session's opening answer is on its way. */
  emit(sessionId: string, event: AcEvent): void {
    const held = this.held.get(sessionId);
    if (!held) {
      this.push(sessionId, event);
      return;
    }
    const meter = event.type === 'context_usage' ? held.findIndex((earlier) => earlier.type === 'context_usage') : -1;
    if (meter >= 0) held.splice(meter, 1);
    held.push(event);
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
