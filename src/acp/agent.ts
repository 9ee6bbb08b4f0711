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
import type { SessionManager } from '../sessions/session-manager.js';
import type { SessionTools } from '../loop/session-tools.js';
import { AGENT_NAME } from '../shared/version.js';
import { agentCatalog, type AgentCatalog } from './agent-catalog.js';
import { AgentState, type AgentOptions } from '../app/agent-state.js';
import { ClientPeer } from '../app/client-peer.js';
import { initialize } from './initialize.js';
import { cancel, cancelParams, prompt } from './prompt-methods.js';
import { PromptRunner } from '../app/prompt-runner.js';
import { authenticate, disableProvider, listProviders, setProvider } from './provider-methods.js';
import { setConfigOption, setMode, setModel, setModelParams } from '../app/session-config.js';
import { closeSession, deleteSession, forkSession, listSessions, loadSession, newSession, releasePeer, resumeSession } from './session-lifecycle.js';
import { parseSteeringParams, Steering, STEERING_METHOD } from './steering.js';

export type { AgentCatalog, ModelInfo } from './agent-catalog.js';

/** The agent app plus the handles the CLI needs for shutdown. */
export interface OpenAIAgent {
  /** The agent of one connection (stdio, or the AgentConnect front door's bridge). */
  app: AgentApp;
  /**
   * A new connection's agent over the same sessions (`openai-acp serve`): its own client
   * capabilities, at most `maxSessions` sessions open at once, and no `providers/set` or
   * `providers/disable` (the endpoints serve every connection); `release()` once the connection
   * has closed lets go of the sessions only it held. @see ClientPeer
   */
  connection(options?: { maxSessions?: number }): { app: AgentApp; release(): Promise<void> };
  sessions: SessionManager;
  /** Each session's tool state; `closeAll()` at exit stops every MCP server. */
  tools: SessionTools;
  /** The models and the endpoint's state, for a front door other than ACP (AgentConnect). */
  catalog: AgentCatalog;
}

/** The method table of one connection, whose client is `peer`, over the agent's shared `state`. */
function connectionApp(state: AgentState, runner: PromptRunner, steering: Steering, peer: ClientPeer): AgentApp {
  return (
    agent({ name: AGENT_NAME })
      // Connection (initialize.ts, provider-methods.ts)
      .onRequest('initialize', ({ params }) => initialize(state, params, peer))
      .onRequest('authenticate', ({ params, client }) => authenticate(state, params, client))

      // Session lifecycle (session-lifecycle.ts)
      .onRequest('session/new', ({ params, client }) => newSession(state, params, client, peer))
      .onRequest('session/load', ({ params, client }) => loadSession(state, params, client, peer))
      .onRequest('session/resume', ({ params, client }) => resumeSession(state, params, client, peer))
      .onRequest('session/fork', ({ params, client }) => forkSession(state, params, client, peer))
      .onRequest('session/list', ({ params }) => listSessions(state, params))
      .onRequest('session/close', ({ params }) => closeSession(state, params, peer))
      .onRequest('session/delete', ({ params }) => deleteSession(state, params))

      // Session configuration (session-config.ts)
      .onRequest('session/set_config_option', ({ params, client }) => setConfigOption(state, params, client))
      .onRequest('session/set_mode', ({ params, client }) => setMode(state, params, client))
      .onRequest('session/set_model', setModelParams, ({ params, client }) => setModel(state, params, client))

      // Prompt turns (prompt-methods.ts); Open Design sends session/cancel as a request, answered `{}`.
      .onRequest('session/prompt', (request) => prompt(state, runner, peer, request))
      // A message sent into the running turn (steering.ts).
      .onRequest(STEERING_METHOD, parseSteeringParams, ({ params, client }) => steering.steer(params, client, peer))
      .onNotification('session/cancel', ({ params }) => void cancel(state, params, peer))
      .onRequest('session/cancel', cancelParams, ({ params }) => cancel(state, params, peer))

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
  const connect = (peer: ClientPeer) => {
    state.peers.add(peer);
    return { app: connectionApp(state, runner, steering, peer), release: () => releasePeer(state, peer) };
  };
  // Each of `connection()`'s clients shares the agent with the others.
  const connection = (limits: { maxSessions?: number } = {}) => connect(new ClientPeer(limits.maxSessions, true));
  return { app: connect(new ClientPeer()).app, connection, sessions: state.sessions, tools: state.tools, catalog: agentCatalog(state) };
}
