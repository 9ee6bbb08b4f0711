/**
 * The ACP agent: the table of methods it serves, each routed to the module that handles it. The
 * state they share is one {@link AgentState}; validation of parameters the SDK's schemas leave
 * open happens in the modules.
 *
 * Sources: ACP v1 methods https://agentclientprotocol.com/protocol/v1/ and the schema shipped in
 * `@agentclientprotocol/sdk` (`schema/v1/schema.json`); what clients send: Zed, acpx 0.19, Open
 * Design (`apps/daemon/src/acp.ts`) and the stdio Bus kernel 2.0.3.
 */
import { agent, type AgentApp } from '@agentclientprotocol/sdk/unstable';
import { z } from 'zod';
import type { SessionManager } from '../sessions/session-manager.js';
import { markUsed } from '../sessions/session-memory.js';
import type { SessionTools } from '../loop/session-tools.js';
import type { ModelInfo } from '../endpoints/model-catalog.js';
export type { ModelInfo } from '../endpoints/model-catalog.js';
import { AGENT_NAME } from '../version.js';
import { AgentState, type AgentOptions } from './agent-state.js';
import { ClientPeer } from './client-peer.js';
import { initializeResponse } from './initialize.js';
import { PromptRunner, updateSender } from './prompt-runner.js';
import { authenticate, disableProvider, listProviders, setProvider } from './provider-methods.js';
import { setConfigOption, setMode, setModel } from './session-config.js';
import { closeSession, deleteSession, forkSession, listSessions, loadSession, newSession, releasePeer, resumeSession } from './session-lifecycle.js';
import { checkPromptBlocks } from './validate-params.js';

/** The agent app plus the handles the CLI needs for shutdown. */
export interface OpenAIAgent {
  /** The agent of one connection (stdio, or the AgentConnect front door's bridge). */
  app: AgentApp;
  /**
   * A new connection's agent over the same sessions (`openai-acp serve`): its own client
   * capabilities, at most `maxSessions` sessions open at once; `release()` once the connection
   * has closed lets go of the sessions only it held. @see ClientPeer
   */
  connection(options?: { maxSessions?: number }): { app: AgentApp; release(): Promise<void> };
  sessions: SessionManager;
  /** Each session's tool state; `closeAll()` at exit stops every MCP server. */
  tools: SessionTools;
  /** The models and the endpoint's state, for a front door other than ACP (AgentConnect). */
  catalog: AgentCatalog;
}

/** What the agent knows of its endpoints, outside any session. Every method waits for the endpoints to be known and never rejects. */
export interface AgentCatalog {
  /** Every model of the endpoints in use (model values as `session/set_config_option` takes them), default endpoint first; `contextWindow` in tokens where the endpoint lists it. */
  models(): Promise<ModelInfo[]>;
  /** The model value a new session starts with; `undefined` without an endpoint. */
  defaultModel(): Promise<string | undefined>;
  /** The context window of model value `model` in tokens, by the agent's precedence (configured, learned, the server's runtime report, the model list, the trained window; the server may be asked); `undefined` when unknown. */
  window(model: string): Promise<number | undefined>;
  /** `configured`: the configuration is valid and names an endpoint; `answers`: the default endpoint's `GET /models` listed models. */
  status(): Promise<{ configured: boolean; answers: boolean }>;
}

const cancelParams = z.object({ sessionId: z.string() }).passthrough();
const setModelParams = z.object({ sessionId: z.string(), modelId: z.string() }).passthrough();

/** The method table of one connection, whose client is `peer`, over the agent's shared `state`. */
function connectionApp(state: AgentState, runner: PromptRunner, peer: ClientPeer): AgentApp {
  const cancel = (sessionId: string) => {
    if (state.sessions.cancel(sessionId)) state.logger.debug('turn cancelled', { sessionId });
  };
  return (
    agent({ name: AGENT_NAME })
      // Connection
      .onRequest('initialize', async ({ params }) => {
        const store = await state.store;
        // Find the endpoints and their model lists once the answer is on its way; session/new awaits them.
        setImmediate(() => void state.endpointsKnown().then(() => state.registry.models()));
        peer.advertise(params.clientCapabilities);
        return initializeResponse(store.persistent, params.clientCapabilities);
      })
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

      // Prompt turns (prompt-runner.ts)
      .onRequest('session/prompt', async ({ params, client, signal }) => {
        const session = state.session(params.sessionId);
        checkPromptBlocks(params.prompt);
        // Nothing to ask: no request upstream, no turn saved.
        if (params.prompt.length === 0) return { stopReason: 'end_turn' };
        // A session/cancel from here on reaches the turn, even before the turn has started; so
        // does the end of this connection (its requests' signals abort).
        const arrived = state.sessions.arrive(session.id, signal);
        try {
          await state.useSession(session);
          await state.endpointsKnown();
          return await runner.run(session, params.prompt, updateSender(client, session.id), arrived.signal, client, peer);
        } finally {
          markUsed(session);
          arrived.done();
        }
      })
      .onNotification('session/cancel', ({ params }) => cancel(params.sessionId))
      // Open Design sends session/cancel as a request with an id; it gets `{}` back.
      .onRequest('session/cancel', cancelParams, ({ params }) => {
        cancel(params.sessionId);
        return {};
      })

      // Endpoints chosen by the client (provider-methods.ts)
      .onRequest('providers/list', () => listProviders(state))
      .onRequest('providers/set', ({ params, client }) => setProvider(state, params, client))
      .onRequest('providers/disable', ({ params, client }) => disableProvider(state, params, client))
  );
}

/** Build the ACP agent app. Connect it with `app.connect(stream)`. */
export function createOpenAIAgent(options: AgentOptions): OpenAIAgent {
  const state = new AgentState(options);
  const runner = new PromptRunner(state);
  const connection = (limits: { maxSessions?: number } = {}) => {
    const peer = new ClientPeer(limits.maxSessions);
    state.peers.add(peer);
    return { app: connectionApp(state, runner, peer), release: () => releasePeer(state, peer) };
  };

  const catalog: AgentCatalog = {
    models: async () => {
      await state.endpointsKnown();
      return state.registry.models();
    },
    defaultModel: async () => {
      await state.endpointsKnown();
      return state.whyNoTurn() ? undefined : state.defaultModel();
    },
    window: async (model) => {
      await state.endpointsKnown();
      if (state.whyNoTurn()) return undefined;
      const listed = (await state.registry.models()).find((entry) => entry.id === model)?.contextWindow;
      return (await state.windows.ofModel(model, listed))?.window;
    },
    status: async () => {
      await state.endpointsKnown();
      const first = state.whyNoTurn() ? undefined : state.registry.list()[0];
      if (!first) return { configured: false, answers: false };
      await first.catalog.list();
      return { configured: true, answers: first.catalog.answered === true };
    },
  };
  return { app: connection().app, connection, sessions: state.sessions, tools: state.tools, catalog };
}
