/**
 * The AgentConnect methods, as the `local` provider, over the ACP agent (`acp-bridge.ts`): hello,
 * providers (their install and login answered with the endpoint's real state, changing nothing:
 * the endpoint is configured where the host runs), models (the default first), the capabilities
 * observed, and sessions (create, send, cancel, resume, close), whose ACP updates become
 * `acp.session.event`s (`event-map.ts`), each pushed after the answer that gave the app its
 * session id (the SDK drops events of a session it does not know yet). One host per front door;
 * each WebSocket is a `Peer` with its own ACP connection into the agent, holding the sessions it
 * created or resumed (`host-sessions.ts`, `peer-links.ts`).
 * Methods that would hand an app this machine answer `AC_ERR_UNSUPPORTED`.
 *
 * Source: AgentConnect v0.2.6 (rayzhudev/agent-connect @ 019337f) `docs/PROTOCOL.md` ("Core
 * Methods", "Provider Install and Login Flow", "Session semantics", "Requested vs Observed"),
 * `schemas/acp-methods.json`, the reference host `packages/host/src/host.ts` (answer shapes:
 * `{sessionId}`, `{accepted: true}`, `{cancelled}`, `{closed: true}`, `{models}`, `{model}`,
 * `{providers}`, `{provider}`, `{installed}`, `{loggedIn}`) and its SDK `packages/sdk/src/index.ts`.
 */
import type { AgentCatalog } from '../acp/agent.js';
import type { Logger } from '../shared/log.js';
import type { ClientFactory } from './acp-bridge.js';
import type { FrontDoorAgent } from './peer-links.js';
import { CatalogAnswers } from './catalog-answers.js';
import { HostSessions, type Handled, type Peer } from './host-sessions.js';
import { AgentConnectError, isMachineMethod, PROVIDER, type FrontDoorMode } from './protocol.js';
import { Observed } from './session-events.js';

/** What the host is built from. */
export interface HostDeps {
  /** The agent served: each WebSocket gets its own connection into it. */
  agent: FrontDoorAgent;
  /** The SDK's client factory (`client` of `@agentclientprotocol/sdk/unstable`), for those connections. */
  client: ClientFactory;
  /** The front door's fixed mode, set on every session. */
  mode: FrontDoorMode;
  catalog: AgentCatalog;
  version: string;
  /** Where sessions without a `cwd` work, and what a relative `cwd` is resolved against. */
  baseCwd: string;
  logger: Logger;
  /** Redacts configured secrets from words sent to an app. */
  redact: (text: string) => string;
}

/** The AgentConnect host of one front door. */
export class AgentConnectHost {
  private readonly catalog: CatalogAnswers;
  private readonly sessions: HostSessions;
  /** Per connection, the capabilities its calls used (`acp.capabilities.observed`). */
  private readonly observed = new WeakMap<Peer, Observed>();

  constructor(private readonly deps: HostDeps) {
    this.catalog = new CatalogAnswers(deps.catalog, deps.version, deps.logger);
    this.sessions = new HostSessions({
      ...deps,
      observed: (peer) => this.observedBy(peer),
      used: (model) => this.catalog.used(model),
      checkModel: (model) => this.catalog.checkModel(model),
    });
  }

  /**
   * Answers one request of `peer`.
   * @throws {AgentConnectError} with the protocol's code for every refusal and failure.
   */
  async handle(peer: Peer, method: string, params: Record<string, unknown>): Promise<Handled> {
    if (method.startsWith('acp.')) this.observedBy(peer).record('agent.connect');
    if (isMachineMethod(method))
      throw new AgentConnectError('AC_ERR_UNSUPPORTED', `${method} is not offered: this host gives apps a model and its agent, not this machine`);
    switch (method) {
      case 'acp.hello':
        return {
          result: {
            hostId: 'openai-acp',
            hostName: 'openai-acp',
            hostVersion: this.deps.version,
            protocolVersion: '0.1',
            mode: 'local',
            capabilities: ['agent.connect', `model.${PROVIDER}`],
            providers: [PROVIDER],
          },
        };
      case 'acp.providers.list':
      case 'acp.providers.status':
      case 'acp.providers.update':
      case 'acp.providers.ensureInstalled':
      case 'acp.providers.login':
      case 'acp.providers.logout':
        return { result: await this.catalog.provider(method, params) };
      case 'acp.capabilities.observed':
        return { result: this.observedBy(peer).answer(params['appId']) };
      case 'acp.models.list':
        return { result: { models: params['provider'] && params['provider'] !== PROVIDER ? [] : await this.catalog.models() } };
      case 'acp.models.recent':
        return { result: { models: params['provider'] && params['provider'] !== PROVIDER ? [] : await this.catalog.recentModels() } };
      case 'acp.models.info':
        return { result: { model: await this.catalog.modelInfo(params['model']) } };
      case 'acp.sessions.create':
        return this.sessions.create(peer, params);
      case 'acp.sessions.resume':
        return this.sessions.resume(peer, params);
      case 'acp.sessions.send':
        return this.sessions.send(peer, params);
      case 'acp.sessions.cancel':
        return this.sessions.cancel(peer, params);
      case 'acp.sessions.close':
        return this.sessions.close(peer, params);
      default:
        throw new AgentConnectError('AC_ERR_UNSUPPORTED', `${method.slice(0, 100)} is not offered by this host`);
    }
  }

  /** The ids of the sessions `peer`'s WebSocket holds. */
  heldBy(peer: Peer): string[] {
    return this.sessions.heldBy(peer);
  }

  /** A WebSocket went away: its running turns are cancelled and its sessions let go (their stored copies stay). */
  disconnect(peer: Peer): Promise<void> {
    return this.sessions.disconnect(peer);
  }

  private observedBy(peer: Peer): Observed {
    let observed = this.observed.get(peer);
    if (!observed) this.observed.set(peer, (observed = new Observed()));
    return observed;
  }
}
