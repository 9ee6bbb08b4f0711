/**
 * One ACP connection's side of the agent: what its client advertised at `initialize` (files,
 * terminals, notices, compaction entities, elicitation) and the way to it. Which sessions it holds
 * is known only to each `LiveSession` (`live-session.ts`). Over stdio
 * there is one; `openai-acp serve` makes one per network connection, all over the same sessions,
 * so one client's capabilities are never assumed for another's turns.
 *
 * Source: ACP v1 `initialize` `clientCapabilities` (https://agentclientprotocol.com/protocol/v1/initialization):
 * capabilities are negotiated per connection.
 */
import { RequestError, type AgentContext, type ClientCapabilities } from '@agentclientprotocol/sdk/unstable';
import { clientFeatures, NO_FEATURES, type ClientFeatures } from '../loop/notify.js';
import { toolCapabilities, type ClientToolCapabilities, type UpdateSink } from '../tools/index.js';

/** The {@link UpdateSink} of one session on one connection: `session/update` notifications to `client`. */
export function updateSender(client: AgentContext, sessionId: string): UpdateSink {
  return (updates) => {
    // All queued at once: the SDK writes its messages in call order, each after the one before,
    // and after a failed write the connection is closed and the rest fail too.
    const sent = updates.map((update) => client.notify('session/update', { sessionId, update }));
    return sent.length === 1 ? sent[0]! : Promise.all(sent).then(() => undefined);
  };
}

/** One connection's client. */
export class ClientPeer {
  /** The connection's id (a UUID): how a session names its holders (`live-session.ts`). */
  readonly id: string = globalThis.crypto.randomUUID();
  /** What the client advertised for files and terminals (set by `initialize`). */
  capabilities: ClientToolCapabilities = toolCapabilities(undefined);
  /** What the client advertised of notices, compaction entities and elicitation (set by `initialize`). */
  features: ClientFeatures = NO_FEATURES;
  /**
   * The way to the connection's client (kept from its requests), so the updates of a session it
   * holds reach it whoever's request caused them; absent before its first request.
   */
  client: AgentContext | undefined;

  /**
   * @param maxSessions - most sessions one connection may hold open at once. @defaultValue unlimited
   * @param sharesAgent - other connections use the same agent (`openai-acp serve`): what the agent
   *   holds for all of them, its endpoints, is not this client's to change. @defaultValue false
   */
  constructor(
    readonly maxSessions = Number.POSITIVE_INFINITY,
    readonly sharesAgent = false,
  ) {}

  /** Keeps `client` as the way to this connection's client (the first one given; every request's context reaches the same connection). */
  reachedBy(client: AgentContext): void {
    this.client ??= client;
  }

  /** Takes what the client advertised at `initialize`, and its name (`clientInfo.name`: how it spawns terminals). */
  advertise(capabilities: ClientCapabilities | undefined, clientName?: string): void {
    this.capabilities = toolCapabilities(capabilities, clientName);
    this.features = clientFeatures(capabilities);
  }

  /**
   * Refuses one more session beyond {@link maxSessions}, given the ids of the sessions the
   * connection holds (`AgentState.heldBy`); a session already among them is always let in again (a
   * second `session/load` of it).
   * @throws {RequestError} -32600 naming the limit.
   */
  checkRoom(held: readonly string[], sessionId?: string): void {
    if (sessionId !== undefined && held.includes(sessionId)) return;
    if (held.length < this.maxSessions) return;
    throw RequestError.invalidRequest(
      { maxSessions: this.maxSessions },
      `this connection already holds ${held.length} sessions, the most the server allows; close one (session/close) first`,
    );
  }
}
