/**
 * One live session: everything it has in memory beside its records (its turn line, its tools and
 * MCP servers, its model list, its user commands, the steering message being handled, the notices
 * told, the context kept for the next prompt, its cost meter, a reading of its records under way,
 * why its running turn could not be saved), who holds it (the connections that opened it and have not closed it)
 * and its closing, one call. The agent keeps one per session in memory, in one registry
 * (`live-sessions.ts`, `AgentState.sessions`).
 *
 * Holders: ACP v1 lets a client open a session (`session/new`, `session/load`, `session/resume`,
 * `session/fork`) and let go of it (`session/close`, RFD https://agentclientprotocol.com/rfds/session-close);
 * `openai-acp serve` has several connections over the same sessions.
 */
import { RequestError, type AgentContext, type ContentBlock, type SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { ModelInfo } from '../endpoints/model-catalog.js';
import type { CostMeter } from '../loop/cost-meter.js';
import type { SessionToolState } from '../loop/session-tools.js';
import type { Session } from '../sessions/session.js';
import type { SessionStoreError } from '../sessions/session-store.js';
import { TurnLine } from '../sessions/turn-line.js';
import type { UpdateSink } from '../tools/index.js';
import { updateSender, type ClientPeer } from './client-peer.js';
import type { ModelList } from './model-picker.js';
import type { CommandList, HeldCommands } from './user-commands.js';

/** `-32002` with `{sessionId}`: the session is not known (or not held by the asking connection). */
export function sessionNotFound(sessionId: string): RequestError {
  return new RequestError(-32002, `Session not found: ${sessionId}`, { sessionId });
}

/**
 * A prompt as its session's other holders see it when its turn starts: one `user_message_chunk` a
 * block, as a replay shows a user's turn (`acp/replay.ts`). Pure.
 */
export function promptUpdates(prompt: readonly ContentBlock[]): SessionUpdate[] {
  return prompt.map((content) => ({ sessionUpdate: 'user_message_chunk', content }));
}

/**
 * What closing a session lets go of outside its own state: the session forgotten by the agent and
 * its lease given back, only while `session` is still the one the agent holds under its id (one
 * loaded again meanwhile is another object, and stays). Forgets before its first `await`.
 * Resolves whether it was held.
 */
export type SessionCloser = (session: Session) => Promise<boolean>;

/** One session held in memory, its holders and its closing. */
export class LiveSession implements ModelList, CommandList {
  /** The connections that hold the session, by {@link ClientPeer.id}: the one record of who holds it. */
  private readonly holders = new Map<string, ClientPeer>();
  /** The id of the connection whose prompt runs the session's turn now; absent: no turn runs. */
  private turnPeer: string | undefined;
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
  /** Its prompts in line and its running turn, one at a time. */
  line = new TurnLine();
  /** Its workspace roots and MCP servers (`AgentState.openTools`); absent: not opened yet. */
  tools: SessionToolState | undefined;
  /** The models its picker offers (`model-picker.ts`); absent: not attached yet. */
  models: ModelInfo[] | undefined;
  /** Its user commands as last read (`user-commands.ts`); absent: not read yet. */
  commands: HeldCommands | undefined;
  /** The steering message being handled (`acp/steering.ts`: the next one waits for it); absent: none. */
  steering: Promise<unknown> | undefined;

  /** The closing under way ({@link close}); absent: open. */
  private closing: Promise<boolean> | undefined;

  /** @param closer - forgets the session in the agent and gives back its lease (`AgentState`). */
  constructor(
    readonly session: Session,
    private readonly closer: SessionCloser,
  ) {}

  /**
   * Takes over from `earlier`, the same session's object before it was held again from the store:
   * its holders, its turn line (turns of one id never overlap), its tools, model list, user
   * commands and steering chain; what it told and kept starts afresh.
   */
  continues(earlier: LiveSession): void {
    // Turns of one id never overlap, even across a close; what a closing session holds is its own to let go of.
    this.line = earlier.line;
    if (earlier.closing) return;
    for (const [id, peer] of earlier.holders) this.holders.set(id, peer);
    this.turnPeer ??= earlier.turnPeer;
    this.tools = earlier.tools;
    this.models = earlier.models;
    this.commands = earlier.commands;
    this.steering = earlier.steering;
  }

  /** The session's id. */
  get id(): string {
    return this.session.id;
  }

  /** Records that the connection of `peer` holds the session. */
  addHolder(peer: ClientPeer): void {
    this.holders.set(peer.id, peer);
  }

  /** Records that the connection of `peer` let go of the session; returns whether it held it. */
  removeHolder(peer: ClientPeer): boolean {
    return this.holders.delete(peer.id);
  }

  /**
   * Makes the connection of `peer` the session's only holder (AgentConnect's resume takes a session
   * from the connection that held it, `agentconnect/host-sessions.ts`).
   */
  takeOver(peer: ClientPeer): void {
    this.holders.clear();
    this.holders.set(peer.id, peer);
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
   * Marks the session's turn as run by the prompt of `peer`'s connection (whose client answers its
   * permission requests) until the returned function is called.
   */
  runFor(peer: ClientPeer): () => void {
    this.turnPeer = peer.id;
    return () => {
      if (this.turnPeer === peer.id) this.turnPeer = undefined;
    };
  }

  /** Whether a turn runs for a prompt of a connection other than `peer`'s. */
  runningElsewhere(peer: ClientPeer): boolean {
    return this.turnPeer !== undefined && this.turnPeer !== peer.id;
  }

  /**
   * The {@link UpdateSink} of a turn run for the prompt of `peer`'s connection, whose client is
   * `client`: its updates go to `client` and, as they go, to every other holder.
   */
  turnSink(client: AgentContext, peer: ClientPeer): UpdateSink {
    const direct = updateSender(client, this.id);
    return (updates) => {
      // Most sessions have one holder: the turn's own connection, told by `direct`.
      if (this.holders.size > 1) void this.tell(updates, peer);
      return direct(updates);
    };
  }

  /** The ways to the clients of the session's holders (those that sent a request yet). */
  clients(): AgentContext[] {
    return [...this.holders.values()].flatMap((holder) => (holder.client ? [holder.client] : []));
  }

  /**
   * Sends `updates` as `session/update`s to every holder but `except` (the connection a turn or an
   * answer already tells): what one holder does, every other holder sees. A `notice` goes only to a
   * connection that advertised notices. Never rejects: a holder gone misses them.
   */
  tell(updates: readonly SessionUpdate[], except?: ClientPeer): Promise<void> {
    const sent: Promise<void>[] = [];
    for (const holder of this.holders.values()) {
      if (holder === except || !holder.client) continue;
      const fit = holder.features.notices ? updates : updates.filter((update) => update.sessionUpdate !== 'notice');
      if (fit.length > 0) sent.push(updateSender(holder.client, this.id)([...fit]).catch(() => undefined));
    }
    return Promise.all(sent).then(() => undefined);
  }

  /**
   * Lets go of everything the session holds: its holders forgotten, its turn stopped and settled
   * (saved), its model list and commands dropped, the session forgotten by the agent and its lease
   * given back (`closer`), then its MCP servers stopped (up to seconds: the session is gone by then,
   * so a load meanwhile holds it afresh). Once: a second call gets the first's answer. Resolves
   * whether it was held.
   */
  close(): Promise<boolean> {
    this.closing ??= (async () => {
      this.holders.clear();
      await this.line.settle();
      const tools = this.tools;
      this.tools = undefined;
      this.models = undefined;
      this.commands = undefined;
      const held = this.closer(this.session);
      await tools?.mcp?.close();
      return held;
    })();
    return this.closing;
  }
}
