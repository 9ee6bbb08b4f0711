/**
 * Authority per connection: a session is held by the connections that created, loaded, resumed
 * or forked it (its `LiveSession`'s holders), and every method that names a session goes through
 * {@link SessionAuthority}, one per connection, in the method table (`agent.ts`). To a connection
 * that does not hold it, a session another connection holds is unknown: -32002 with
 * `{sessionId}` (ACP's "resource not found"), as for a session that does not exist. Over stdio
 * there is one connection, holding every session it opened, so nothing changes there.
 *
 * Source: ACP v1 session setup https://agentclientprotocol.com/protocol/session-setup (a session
 * is used after `session/new` or `session/load` on the connection) and the error codes of the
 * schema (`-32002` resource not found).
 */
import { RequestError, type AgentContext } from '@agentclientprotocol/sdk/unstable';
import type { AgentState } from '../app/agent-state.js';
import type { ClientPeer } from '../app/client-peer.js';
import type { LiveSession } from '../app/live-session.js';

/** What a method handler gets from the SDK: its params (with the session's id) and the way to the client. */
interface SessionCall {
  params: { sessionId: string };
  client: AgentContext;
}

/** The one check of which session a connection may use, as wrappers of the method table's handlers. */
export class SessionAuthority {
  constructor(
    private readonly state: AgentState,
    private readonly peer: ClientPeer,
  ) {}

  /**
   * A handler that runs only for a session in memory that this connection holds, and gets its
   * {@link LiveSession}. `refused` answers instead of the error where a method answers a refusal
   * itself (`_session/steering`'s `failed` outcome).
   * @throws {RequestError} -32002 with `{sessionId}` (from the wrapped handler) when the session is
   *   not in memory or this connection does not hold it, unless `refused` is given.
   */
  held<C extends SessionCall, R>(handler: (call: C, live: LiveSession) => R | Promise<R>, refused?: (sessionId: string) => R): (call: C) => Promise<R> {
    return async (call) => {
      this.peer.reachedBy(call.client);
      let live: LiveSession;
      try {
        live = this.state.sessions.heldBy(call.params.sessionId, this.peer);
      } catch (error) {
        if (refused) return refused(call.params.sessionId);
        throw error;
      }
      return handler(call, live);
    };
  }

  /**
   * A handler for a method that also takes a session not in memory (`session/close`,
   * `session/delete`, `session/cancel`: the stored copy, or nothing, is theirs to answer): it gets
   * the {@link LiveSession} when the session is in memory and held by this connection, `undefined`
   * when it is not in memory. `refused` answers (or throws) instead of the error for a session in
   * memory this connection does not hold.
   * @throws {RequestError} -32002 with `{sessionId}` when the session is in memory and this
   *   connection does not hold it, unless `refused` is given.
   */
  heldIfLive<C extends SessionCall, R>(
    handler: (call: C, live: LiveSession | undefined) => R | Promise<R>,
    refused?: (sessionId: string) => R,
  ): (call: C) => Promise<R> {
    return async (call) => {
      this.peer.reachedBy(call.client);
      const live = this.state.sessions.live(call.params.sessionId);
      if (!live) return handler(call, undefined);
      if (refused && !live.isHeldBy(this.peer)) return refused(call.params.sessionId);
      live.assertHeldBy(this.peer);
      return handler(call, live);
    };
  }
}

/**
 * The refusal of `session/delete` from a connection that does not hold a session another one
 * holds: the session is in use there, and `-32002` would read as done (the SDK's clients take it
 * as success for delete).
 * @throws {RequestError} -32600 with `{sessionId, reason: "held"}`, always.
 */
export function deleteHeldElsewhere(sessionId: string): never {
  throw RequestError.invalidRequest(
    { sessionId, reason: 'held' },
    `Session ${sessionId} is open on another connection; load it here (session/load) before deleting it`,
  );
}
