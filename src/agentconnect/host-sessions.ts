/**
 * The sessions of the AgentConnect host (`host.ts`, whose sources hold here too): which WebSocket
 * holds each (created there, or resumed there from another), at most
 * {@link MAX_SESSIONS_PER_CONNECTION} per connection, the one run each may have (`send`,
 * `cancel`), and its ACP updates as `acp.session.event`s (`event-map.ts`), held until the answer
 * naming the session is out (`session-events.ts`). A connection gone lets go of its sessions;
 * their stored copies stay.
 */
import { statSync } from 'node:fs';
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../shared/log.js';
import type { AcpBridge } from './acp-bridge.js';
import { contextUsageEvent, TurnEvents } from './event-map.js';
import { AgentConnectError, checkProvider, cwdOf, messageText, optionalString, pickModel, PROVIDER, sessionIdOf, type AcEvent } from './protocol.js';
import { type Observed, SessionEvents } from './session-events.js';

/** Most sessions one WebSocket may hold at once. */
const MAX_SESSIONS_PER_CONNECTION = 16;
/** What a WebSocket is told of a run in progress when another one resumed the session (the run goes on there). */
const TAKEN_OVER = 'The session was resumed on another connection; the run goes on there';

/** One WebSocket: where its sessions' events go, and which sessions it holds. */
export interface Peer {
  /** Pushes one `acp.session.event` to this WebSocket. */
  push(sessionId: string, event: AcEvent): void;
  readonly sessions: Set<string>;
}

/** A method's answer, and what to start once that answer is sent (a turn's events must follow it). */
export interface Handled {
  result: Record<string, unknown>;
  after?: () => void;
}

/** What the sessions are run with. */
export interface HostSessionsDeps {
  bridge: AcpBridge;
  /** Where sessions without a `cwd` work, and what a relative `cwd` is resolved against. */
  baseCwd: string;
  logger: Logger;
  /** Redacts configured secrets from words sent to an app. */
  redact: (text: string) => string;
  /** What `peer`'s calls used (`acp.capabilities.observed`). */
  observed: (peer: Peer) => Observed;
  /** Notes a model a session took, for `acp.models.recent`. */
  used: (model: string | undefined) => Promise<void>;
}

/** The sessions of one front door, by the WebSocket holding each. */
export class HostSessions {
  private readonly owners = new Map<string, Peer>();
  private readonly turns = new Map<string, { events: TurnEvents; cancel: AbortController }>();
  /** Where each session's events go, held while the answer opening it is on its way. */
  private readonly events = new SessionEvents((sessionId, event) => this.owners.get(sessionId)?.push(sessionId, event));
  /** Sessions being created or resumed per connection, counted against its limit until held. */
  private readonly opening = new WeakMap<Peer, number>();
  /** Connections gone ({@link disconnect}): a session they were still opening is let go once open. */
  private readonly gone = new WeakSet<Peer>();

  constructor(private readonly deps: HostSessionsDeps) {}

  /**
   * `acp.sessions.create`: a new session held by `peer`, with the model and reasoning effort asked.
   * @throws {AgentConnectError} AC_ERR_INVALID_ARGS for a bad provider, model or cwd; AC_ERR_BUSY when the connection is full.
   */
  async create(peer: Peer, params: Record<string, unknown>): Promise<Handled> {
    checkProvider(params['provider']);
    this.deps.observed(peer).record(`model.${PROVIDER}`);
    const model = pickModel(params['model']);
    const system = optionalString(params, 'system');
    const effort = optionalString(params, 'reasoningEffort', 100);
    const cwd = cwdOf(params, this.deps.baseCwd);
    if (!isDirectory(cwd)) throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'cwd is not a directory');
    const { sessionId } = await this.reserving(peer, () => this.deps.bridge.create(cwd, system));
    this.attach(peer, sessionId);
    await this.unlessGone(peer, sessionId);
    try {
      await this.configure(sessionId, model, effort);
    } catch (error) {
      await this.release(peer, sessionId);
      throw error;
    }
    return this.opened(sessionId);
  }

  /**
   * `acp.sessions.resume`: a stored session held by `peer`, taken from the connection that held it.
   * @throws {AgentConnectError} with the bridge's code when the session cannot be resumed; AC_ERR_BUSY when the connection is full.
   */
  async resume(peer: Peer, params: Record<string, unknown>): Promise<Handled> {
    const sessionId = sessionIdOf(params);
    this.deps.observed(peer).record(`model.${PROVIDER}`);
    const model = pickModel(params['model']);
    const effort = optionalString(params, 'reasoningEffort', 100);
    const cwd = cwdOf(params, this.deps.baseCwd);
    // From now on its events wait for this answer (the meter the resume sends included), wherever
    // they would have gone; a failed resume lets them go where they were going.
    this.events.hold(sessionId);
    try {
      if (peer.sessions.has(sessionId)) await this.deps.bridge.resume(sessionId, cwd);
      else await this.reserving(peer, () => this.deps.bridge.resume(sessionId, cwd));
      this.attach(peer, sessionId);
      await this.unlessGone(peer, sessionId);
      await this.configure(sessionId, model, effort);
      return this.opened(sessionId);
    } catch (error) {
      this.events.flush(sessionId);
      throw error;
    }
  }

  /**
   * `acp.sessions.send`: `{accepted: true}`, then the run, its events ending with its final (or error) event.
   * @throws {AgentConnectError} AC_ERR_BUSY while a run is in progress; AC_ERR_INVALID_ARGS for a session `peer` does not hold.
   */
  send(peer: Peer, params: Record<string, unknown>): Handled {
    const sessionId = this.held(peer, params);
    this.deps.observed(peer).record(`model.${PROVIDER}`);
    const text = messageText(params);
    if (this.turns.has(sessionId)) throw new AgentConnectError('AC_ERR_BUSY', 'A run is in progress in this session; cancel it or wait for its final event');
    const turn = new TurnEvents(sessionId);
    const cancel = new AbortController();
    this.turns.set(sessionId, { events: turn, cancel });
    const emit = (events: AcEvent[]) => {
      for (const event of events) this.events.emit(sessionId, event);
    };
    const after = () => {
      this.deps.bridge
        .prompt(sessionId, text, cancel.signal)
        .then((response) => {
          this.turns.delete(sessionId);
          emit(turn.end(response));
        })
        .catch((error: unknown) => {
          this.turns.delete(sessionId);
          this.deps.logger.warn('an AgentConnect run failed', { sessionId, error: (error as Error)?.message ?? String(error) });
          emit([{ type: 'error', data: { message: this.deps.redact((error as Error)?.message ?? 'internal error'), providerSessionId: sessionId } }]);
        });
    };
    return { result: { accepted: true }, after };
  }

  /** `acp.sessions.cancel`: `{cancelled}`, whether a run was stopped. @throws {AgentConnectError} AC_ERR_INVALID_ARGS for a session `peer` does not hold. */
  async cancel(peer: Peer, params: Record<string, unknown>): Promise<Handled> {
    const sessionId = this.held(peer, params);
    const running = this.turns.has(sessionId);
    if (running) await this.stop(sessionId);
    return { result: { cancelled: running } };
  }

  /** `acp.sessions.close`: `{closed: true}`; a session `peer` holds is let go (its stored copy stays). */
  async close(peer: Peer, params: Record<string, unknown>): Promise<Handled> {
    const sessionId = sessionIdOf(params);
    if (this.owners.get(sessionId) === peer) await this.release(peer, sessionId);
    return { result: { closed: true } };
  }

  /** A WebSocket went away: its running turns are cancelled and its sessions let go (their stored copies stay). */
  async disconnect(peer: Peer): Promise<void> {
    this.gone.add(peer);
    await Promise.all([...peer.sessions].map((sessionId) => (this.owners.get(sessionId) === peer ? this.release(peer, sessionId) : undefined)));
  }

  /** The answer `{sessionId}` to create or resume; the session's events held till then follow it. */
  private opened(sessionId: string): Handled {
    return { result: { sessionId }, after: () => this.events.release(sessionId) };
  }

  /** The session id of `params`, held by `peer`. @throws {AgentConnectError} AC_ERR_INVALID_ARGS when this WebSocket does not hold it. */
  private held(peer: Peer, params: Record<string, unknown>): string {
    const sessionId = sessionIdOf(params);
    if (this.owners.get(sessionId) !== peer)
      throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'Unknown session (create or resume it on this connection first)');
    return sessionId;
  }

  /**
   * Runs `open` with a place kept for one more session of `peer`.
   * @throws {AgentConnectError} AC_ERR_BUSY when the connection holds (or is opening) {@link MAX_SESSIONS_PER_CONNECTION}.
   */
  private async reserving<T>(peer: Peer, open: () => Promise<T>): Promise<T> {
    const opening = this.opening.get(peer) ?? 0;
    if (peer.sessions.size + opening >= MAX_SESSIONS_PER_CONNECTION)
      throw new AgentConnectError('AC_ERR_BUSY', `This connection holds ${MAX_SESSIONS_PER_CONNECTION} sessions, the most allowed; close one first`);
    this.opening.set(peer, opening + 1);
    try {
      return await open();
    } finally {
      this.opening.set(peer, (this.opening.get(peer) ?? 1) - 1);
    }
  }

  private async configure(sessionId: string, model: string | undefined, effort: string | undefined): Promise<void> {
    if (model) await this.deps.bridge.setOption(sessionId, 'model', model);
    if (effort) await this.deps.bridge.setOption(sessionId, 'thought_level', effort);
    await this.deps.used(model);
  }

  /** Holds the session for `peer`, its events held for the answer ({@link opened}); another WebSocket's run of it ends there with an error event. */
  private attach(peer: Peer, sessionId: string): void {
    const before = this.owners.get(sessionId);
    if (before && before !== peer && before.sessions.delete(sessionId) && this.turns.has(sessionId))
      before.push(sessionId, { type: 'error', data: { message: TAKEN_OVER, providerSessionId: sessionId } });
    this.owners.set(sessionId, peer);
    peer.sessions.add(sessionId);
    this.events.hold(sessionId);
    this.deps.bridge.listen(sessionId, (update: SessionUpdate) => {
      const turn = this.turns.get(sessionId);
      if (turn) {
        for (const event of turn.events.update(update)) this.events.emit(sessionId, event);
      } else if (update.sessionUpdate === 'usage_update') {
        // The meter after create or resume, outside any run.
        this.events.emit(sessionId, contextUsageEvent(update.used, update.size));
      }
    });
  }

  /**
   * Lets the session go when its connection closed while it was being opened (nobody would ever
   * release it otherwise).
   * @throws {AgentConnectError} AC_ERR_INTERNAL then (the answer has nowhere to go).
   */
  private async unlessGone(peer: Peer, sessionId: string): Promise<void> {
    if (!this.gone.has(peer)) return;
    await this.release(peer, sessionId);
    throw new AgentConnectError('AC_ERR_INTERNAL', 'The connection closed before the session was open');
  }

  private async release(peer: Peer, sessionId: string): Promise<void> {
    peer.sessions.delete(sessionId);
    this.owners.delete(sessionId);
    this.events.drop(sessionId);
    if (this.turns.has(sessionId)) await this.stop(sessionId);
    await this.deps.bridge.close(sessionId);
  }

  /** Stops the session's run: `session/cancel` for a running turn, and the prompt request cancelled for one not started yet. */
  private async stop(sessionId: string): Promise<void> {
    await this.deps.bridge.cancel(sessionId);
    this.turns.get(sessionId)?.cancel.abort();
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
