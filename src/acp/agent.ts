/**
 * The ACP agent: the table of methods it serves, each routed to the module of its group. The
 * state they share is one {@link AgentState}; validation of parameters the SDK's schemas leave
 * open happens in the modules.
 *
 * Sources: ACP v1 methods https://agentclientprotocol.com/protocol/v1/ and the schema shipped in
 * `@agentclientprotocol/sdk` (`schema/v1/schema.json`); what clients send: Zed, acpx 0.19, Open
 * Design (`apps/daemon/src/acp.ts`) and the stdio Bus kernel 2.0.3.
 */
import { agent, type AgentApp } from '@agentclientprotocol/sdk/unstable';
import type { SessionTools } from '../loop/session-tools.js';
import { AGENT_NAME } from '../shared/version.js';
import { agentCatalog, type AgentCatalog } from './agent-catalog.js';
import { AgentState, type AgentOptions } from '../app/agent-state.js';
import { ClientPeer } from '../app/client-peer.js';
import type { LiveSession } from '../app/live-session.js';
import type { LiveSessions } from '../app/live-sessions.js';
import { initialize } from './initialize.js';
import { cancel, cancelParams, prompt } from './prompt-methods.js';
import { PromptRunner } from '../app/prompt-runner.js';
import { authenticate, disableProvider, listProviders, setProvider } from './provider-methods.js';
import { setConfigOption, setMode, setModel, setModelParams } from '../app/session-config.js';
import { closeSession, deleteSession, forkSession, listSessions, loadSession, newSession, releasePeer, resumeSession } from './session-lifecycle.js';
import { parseSteeringParams, Steering, STEERING_METHOD, steeringNotFound } from './steering.js';
import { deleteHeldElsewhere, SessionAuthority } from './session-authority.js';

export type { AgentCatalog, ModelInfo } from './agent-catalog.js';

/** One connection's agent over the shared sessions ({@link OpenAIAgent.connection}). */
export interface AgentConnection {
  app: AgentApp;
  /** The connection as the sessions' holders name it. */
  peer: ClientPeer;
  /** The ids of the sessions this connection holds. */
  held(): string[];
  /** Lets go of what the closed connection held (each session no other connection holds is closed). Never rejects. */
  release(): Promise<void>;
}

/** The agent app plus the handles the CLI needs for shutdown. */
export interface OpenAIAgent {
  /** The agent of one connection (stdio, or the AgentConnect front door's bridge). */
  app: AgentApp;
  /**
   * A new connection's agent over the same sessions (`openai-acp serve`): its own client
   * capabilities, at most `maxSessions` sessions open at once, and no `providers/set` or
   * `providers/disable` (the endpoints serve every connection); `release()` once the connection
   * has closed lets go of the sessions only it held; `peer` is the connection as its sessions'
   * `LiveSession`s name their holders, `held()` the ids of the sessions it holds. @see ClientPeer
   */
  connection(options?: { maxSessions?: number }): AgentConnection;
  /** The sessions in memory, by id (each one's {@link LiveSession} holds the rest). */
  sessions: LiveSessions;
  /** Each session's tool state; `closeAll()` at exit stops every MCP server. */
  tools: SessionTools;
  /** The models and the endpoint's state, for a front door other than ACP (AgentConnect). */
  catalog: AgentCatalog;
}

/**
 * The method table of one connection, whose client is `peer`, over the agent's shared `state`.
 * Every method that names a session passes {@link SessionAuthority}: the connection must hold it.
 */
function connectionApp(state: AgentState, runner: PromptRunner, steering: Steering, peer: ClientPeer): AgentApp {
  const authority = new SessionAuthority(state, peer);
  return (
    agent({ name: AGENT_NAME })
      // Connection (initialize.ts, provider-methods.ts)
      .onRequest('initialize', ({ params, client }) => {
        peer.reachedBy(client);
        return initialize(state, params, peer);
      })
      .onRequest('authenticate', ({ params, client }) => authenticate(state, params, client))

      // Session lifecycle (session-lifecycle.ts); load and resume are how a connection comes to hold a stored session.
      .onRequest('session/new', ({ params, client }) => newSession(state, params, client, peer))
      .onRequest('session/load', ({ params, client }) => loadSession(state, params, client, peer))
      .onRequest('session/resume', ({ params, client }) => resumeSession(state, params, client, peer))
      .onRequest(
        'session/fork',
        authority.held(({ params, client }) => forkSession(state, params, client, peer)),
      )
      .onRequest('session/list', ({ params }) => listSessions(state, params))
      .onRequest(
        'session/close',
        authority.heldIfLive(({ params }, live) => closeSession(state, params, peer, live)),
      )
      .onRequest(
        'session/delete',
        authority.heldIfLive(({ params }, live) => deleteSession(state, params, peer, live), deleteHeldElsewhere),
      )

      // Session configuration (session-config.ts)
      .onRequest(
        'session/set_config_option',
        authority.held(({ params }, live) => setConfigOption(state, params, live, peer)),
      )
      .onRequest(
        'session/set_mode',
        authority.held(({ params }, live) => setMode(state, params, live, peer)),
      )
      .onRequest(
        'session/set_model',
        setModelParams,
        authority.held(({ params }, live) => setModel(state, params, live, peer)),
      )

      // Prompt turns (prompt-methods.ts); Open Design sends session/cancel as a request, answered `{}`.
      .onRequest(
        'session/prompt',
        authority.held(({ params, client, signal }, live) => prompt(state, runner, params, { client, signal, peer, live })),
      )
      // A message sent into the running turn (steering.ts); a session not held is its `failed` outcome.
      .onRequest(
        STEERING_METHOD,
        parseSteeringParams,
        authority.held(({ params, client }) => steering.steer(params, client, peer), steeringNotFound),
      )
      .onNotification(
        'session/cancel',
        (call) =>
          void authority
            .heldIfLive(({ params }, live) => cancel(state, params, live))(call)
            .catch(() => undefined),
      )
      .onRequest(
        'session/cancel',
        cancelParams,
        authority.heldIfLive(({ params }, live) => cancel(state, params, live)),
      )

      // Endpoints chosen by the client (provider-methods.ts)
      .onRequest('providers/list', () => listProviders(state))
      .onRequest('providers/set', ({ params, client }) => setProvider(state, params, client, peer))
      .onRequest('providers/disable', ({ params, client }) => disableProvider(state, params, client, peer))
  );
}

/** Build the ACP agent app. Connect it with `app.connect(stream)`. */
export function createOpenAIAgent(options: AgentOptions): OpenAIAgent {
  const state = new AgentState(options);
  const runner = new PromptRunner(state);
  const steering = new Steering(state, runner);
  const connect = (peer: ClientPeer): AgentConnection => {
    state.peers.add(peer);
    return { app: connectionApp(state, runner, steering, peer), peer, held: () => state.sessions.idsHeldBy(peer), release: () => releasePeer(state, peer) };
  };
  // Each of `connection()`'s clients shares the agent with the others.
  const connection = (limits: { maxSessions?: number } = {}) => connect(new ClientPeer(limits.maxSessions, true));
  return {
    app: connect(new ClientPeer()).app,
    connection,
    sessions: state.sessions,
    tools: state.tools,
    catalog: agentCatalog(state),
  };
}
