/**
 * The sessions of the AgentConnect host (`host.ts`, whose sources hold here too). Each WebSocket
 * has its own ACP connection into the agent (`peer-links.ts`), whose live sessions record which
 * WebSocket holds which session (created there, or resumed there and taken from another:
 * `LiveSession.takeOver`). Their runs (`session-runs.ts`: `send`, `cancel`), and the ACP updates outside a run as
 * `acp.session.event`s, held until the answer naming the session has been read
 * (`session-events.ts`). A connection gone lets go of its sessions (their stored copies stay) and
 * stops the runs it sent.
 */
import { statSync } from 'node:fs';
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../shared/log.js';
import type { AcpBridge, ClientFactory } from './acp-bridge.js';
import { type FrontDoorAgent, PeerLinks } from './peer-links.js';
import type { FrontDoorMode } from './protocol.js';
import { contextUsageEvent } from './event-map.js';
import { AgentConnectError, checkProvider, cwdOf, messageText, optionalString, pickModel, PROVIDER, sessionIdOf } from './protocol.js';
import { type Observed, type Peer, SessionEvents } from './session-events.js';
import { SessionRuns } from './session-runs.js';

export type { Peer } from './session-events.js';

/** A method's answer, and what to start once that answer is sent (a turn's events must follow it). */
export interface Handled {
  result: Record<string, unknown>;
  after?: () => void;
}

/** What the sessions are run with. */
export interface HostSessionsDeps {
  agent: FrontDoorAgent;
  /** The SDK's client factory, for each WebSocket's ACP connection. */
  client: ClientFactory;
  /** The front door's fixed mode, set on every session. */
  mode: FrontDoorMode;
  /** Where sessions without a `cwd` work, and what a relative `cwd` is resolved against. */
  baseCwd: string;
  logger: Logger;
  /** Redacts configured secrets from words sent to an app. */
  redact: (text: string) => string;
  /** What `peer`'s calls used (`acp.capabilities.observed`). */
  observed: (peer: Peer) => Observed;
  /** Notes a model a session took, for `acp.models.recent`. */
  used: (model: string | undefined) => Promise<void>;
  /** Checks a model id an app asked for. @throws {AgentConnectError} AC_ERR_INVALID_ARGS for one the endpoints do not list, naming those they do. */
  checkModel: (model: string) => Promise<void>;
}

/** The sessions of one front door; which WebSocket holds each, the agent's live sessions know. */
export class HostSessions {
  /** Each session's events, held while the answer opening it is on its way. */
  private readonly events = new SessionEvents();
  private readonly runs: SessionRuns;
  private readonly links: PeerLinks;

  constructor(private readonly deps: HostSessionsDeps) {
    this.links = new PeerLinks(deps.agent, deps.client, deps.mode);
    this.runs = new SessionRuns({
      ...deps,
      bridgeOf: (peer) => this.links.linked(peer)?.bridge,
      emit: (peer, sessionId, event) => this.events.emit(peer, sessionId, event),
    });
  }

  /**
   * `acp.sessions.create`: a new session held by `peer`, with the model and reasoning effort asked.
   * @throws {AgentConnectError} AC_ERR_INVALID_ARGS for a bad provider, cwd or model (one the endpoints do not list: named with those they do); AC_ERR_BUSY when the connection is full.
   */
  async create(peer: Peer, params: Record<string, unknown>): Promise<Handled> {
    checkProvider(params['provider']);
    this.deps.observed(peer).record(`model.${PROVIDER}`);
    const model = pickModel(params['model']);
    const system = optionalString(params, 'system');
    const effort = optionalString(params, 'reasoningEffort', 100);
    const cwd = cwdOf(params, this.deps.baseCwd);
    if (!isDirectory(cwd)) throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'cwd is not a directory');
    if (model) await this.deps.checkModel(model);
    const { bridge } = await this.links.link(peer);
    const { sessionId } = await this.links.reserving(peer, () => bridge.create(cwd, system));
    this.attach(peer, sessionId);
    await this.unlessGone(peer, sessionId);
    try {
      await this.configure(bridge, sessionId, { model, effort });
    } catch (error) {
      await this.release(peer, sessionId);
      throw error;
    }
    return this.opened(peer, sessionId);
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
    if (model) await this.deps.checkModel(model);
    const link = await this.links.link(peer);
    // From now on its events to this connection wait for this answer (the meter the resume sends
    // included); a failed resume drops them (the app does not have the session).
    this.events.hold(peer, sessionId);
    const held = this.links.holds(peer, sessionId);
    try {
      if (held) await link.bridge.resume(sessionId, cwd);
      else await this.links.reserving(peer, () => link.bridge.resume(sessionId, cwd));
      // Another WebSocket held it: it holds it no more; the events of a run that one sent still go
      // there, to its final (session-runs.ts).
      this.links.live(sessionId)?.takeOver(link.connection.peer);
      this.attach(peer, sessionId);
      await this.unlessGone(peer, sessionId);
      await this.configure(link.bridge, sessionId, { model, effort });
      return this.opened(peer, sessionId);
    } catch (error) {
      if (this.events.openingFor(sessionId) === peer) this.events.drop(sessionId);
      // A session this connection did not hold before is not left held by it (as a failed create).
      if (!held && this.links.holds(peer, sessionId)) await this.release(peer, sessionId);
      throw error;
    }
  }

  /**
   * `acp.sessions.send`: `{accepted: true}`, then the run, its events ending with its final (or
   * error) event; after a cancel, the run waits for the cancelled one's end.
   * @throws {AgentConnectError} AC_ERR_BUSY while a run is in progress; AC_ERR_INVALID_ARGS for a session `peer` does not hold.
   */
  send(peer: Peer, params: Record<string, unknown>): Handled {
    const sessionId = this.held(peer, params);
    this.deps.observed(peer).record(`model.${PROVIDER}`);
    const start = this.runs.add(peer, sessionId, messageText(params));
    const after = () => {
      // The app names the session: it has read the answer that opened it.
      this.events.release(sessionId);
      start();
    };
    return { result: { accepted: true }, after };
  }

  /**
   * `acp.sessions.cancel`: `{cancelled}`, whether a run was stopped, answered once it has ended
   * (its `final` sent) or after `CANCEL_WAIT_MS`. A connection whose session was taken over may
   * still cancel the run it sent.
   * @throws {AgentConnectError} AC_ERR_INVALID_ARGS for a session `peer` neither holds nor runs.
   */
  async cancel(peer: Peer, params: Record<string, unknown>): Promise<Handled> {
    const sessionId = sessionIdOf(params);
    if (!this.runs.hasRunOf(peer, sessionId)) this.held(peer, params);
    return { result: { cancelled: await this.runs.cancel(sessionId) } };
  }

  /** `acp.sessions.close`: `{closed: true}`; a session `peer` holds is let go (its stored copy stays). */
  async close(peer: Peer, params: Record<string, unknown>): Promise<Handled> {
    const sessionId = sessionIdOf(params);
    if (this.links.holds(peer, sessionId)) await this.release(peer, sessionId);
    return { result: { closed: true } };
  }

  /** The ids of the sessions `peer`'s WebSocket holds, as the agent's live sessions record them. */
  heldBy(peer: Peer): string[] {
    return this.links.linked(peer)?.connection.held() ?? [];
  }

  /** A WebSocket went away: the runs it sent are cancelled, its sessions let go (their stored copies stay) and its ACP connection closed. */
  async disconnect(peer: Peer): Promise<void> {
    const link = await this.links.closing(peer);
    if (!link) return;
    await Promise.all([
      ...link.connection.held().map((sessionId) => this.stop(sessionId)),
      ...this.runs.sessionsRunBy(peer).map((sessionId) => this.runs.cancel(sessionId)),
    ]);
    // Lets go of the sessions no other connection holds, once (as `session/close` of each would).
    await link.connection.release();
    this.links.unlink(peer);
    link.bridge.shutdown();
  }

  /** The answer `{sessionId}` to create or resume; the session's events held till then follow once the app has read it. */
  private opened(peer: Peer, sessionId: string): Handled {
    return { result: { sessionId }, after: () => peer.whenRead(() => this.events.release(sessionId)) };
  }

  /** The session id of `params`, held by `peer`. @throws {AgentConnectError} AC_ERR_INVALID_ARGS when this WebSocket does not hold it. */
  private held(peer: Peer, params: Record<string, unknown>): string {
    const sessionId = sessionIdOf(params);
    if (!this.links.holds(peer, sessionId))
      throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'Unknown session (create or resume it on this connection first)');
    return sessionId;
  }

  private async configure(bridge: AcpBridge, sessionId: string, { model, effort }: { model: string | undefined; effort: string | undefined }): Promise<void> {
    if (model) await bridge.setOption(sessionId, 'model', model);
    if (effort) await bridge.setOption(sessionId, 'thought_level', effort);
    await this.deps.used(model);
  }

  /**
   * Sends the session's updates on `peer`'s ACP connection to it, its events held for the answer
   * ({@link opened}): a run's to the run (`session-runs.ts`: only the run's own connection tells
   * it), the meter outside a run to `peer` while it holds the session.
   */
  private attach(peer: Peer, sessionId: string): void {
    this.events.hold(peer, sessionId);
    this.links.linked(peer)?.bridge.listen(sessionId, (update: SessionUpdate) => {
      if (this.runs.update(sessionId, update, peer) || update.sessionUpdate !== 'usage_update') return;
      if (this.links.holds(peer, sessionId)) this.events.emit(peer, sessionId, contextUsageEvent(update.used, update.size));
    });
  }

  /**
   * Lets the session go when its connection closed while it was being opened (nobody would ever
   * release it otherwise).
   * @throws {AgentConnectError} AC_ERR_INTERNAL then (the answer has nowhere to go).
   */
  private async unlessGone(peer: Peer, sessionId: string): Promise<void> {
    if (!this.links.isGone(peer)) return;
    await this.release(peer, sessionId);
    throw new AgentConnectError('AC_ERR_INTERNAL', 'The connection closed before the session was open');
  }

  /** `peer`'s WebSocket lets go of the session: its runs stopped, then `session/close` on its ACP connection (the session closes when no one else holds it). */
  private async release(peer: Peer, sessionId: string): Promise<void> {
    await this.stop(sessionId);
    await this.links.linked(peer)?.bridge.close(sessionId);
  }

  /** The session's events held for an app dropped and its runs stopped. */
  private async stop(sessionId: string): Promise<void> {
    this.events.drop(sessionId);
    await this.runs.cancel(sessionId);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
