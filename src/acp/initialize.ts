/**
 * The `initialize` answer: protocol version, who we are, what we implement, and the one auth
 * method (run `openai-acp setup`).
 *
 * Sources: ACP initialization https://agentclientprotocol.com/protocol/v1/initialization,
 * auth methods https://agentclientprotocol.com/rfds/auth-methods, and the steering extension as
 * Claude's ACP agent and codex-acp advertise it (`initialize` answer `_meta.steering.supported`).
 */
import type { AuthMethod, ClientCapabilities, InitializeRequest, InitializeResponse } from '@agentclientprotocol/sdk/unstable';
import { AGENT_NAME, VERSION } from '../shared/version.js';
import type { AgentState } from '../app/agent-state.js';
import type { ClientPeer } from '../app/client-peer.js';

/** The id of the one auth method: run `openai-acp setup`, then re-read the configuration. */
export const SETUP_AUTH_METHOD_ID = 'setup';

/**
 * The `setup` auth method: of type `terminal` (the client runs `openai-acp setup` in a terminal)
 * when the client says it can (`clientCapabilities.auth.terminal`, or the older
 * `_meta["terminal-auth"]`), else an agent method the client may pass to `authenticate`, which
 * re-reads the configuration. Source: https://agentclientprotocol.com/rfds/auth-methods.
 */
function setupAuthMethod(capabilities: ClientCapabilities | undefined): AuthMethod {
  const terminal = capabilities?.auth?.terminal === true || capabilities?._meta?.['terminal-auth'] === true;
  const base = { id: SETUP_AUTH_METHOD_ID, name: 'Configure an endpoint' };
  return terminal
    ? { ...base, type: 'terminal', args: ['setup'], description: 'Pick a provider, key and model in a terminal wizard (openai-acp setup)' }
    : {
        ...base,
        description: 'Run `openai-acp setup` in a terminal (or set OPENAI_BASE_URL and OPENAI_API_KEY), then choose this to re-read the configuration',
      };
}

/**
 * The `initialize` answer: protocol 1, who we are, and only the capabilities we implement
 * (`providers` only for a client that may change the endpoints: not one of `serve`'s).
 */
function initializeResponse(persistent: boolean, capabilities: ClientCapabilities | undefined, providers: boolean): InitializeResponse {
  return {
    protocolVersion: 1,
    agentInfo: { name: AGENT_NAME, title: 'OpenAI-compatible (openai-acp)', version: VERSION },
    agentCapabilities: {
      loadSession: persistent,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      // MCP servers from the client: stdio always; Streamable HTTP, and SSE for older servers.
      mcpCapabilities: { http: true, sse: true },
      // fork (unstable): a copy of an open session, kept by whichever store holds sessions.
      sessionCapabilities: persistent
        ? { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {}, fork: {} }
        : { additionalDirectories: {}, fork: {} },
      ...(providers ? { providers: {} } : {}),
    },
    authMethods: [setupAuthMethod(capabilities)],
    // ACP's steering extension (`_session/steering`, steering.ts), where Claude's ACP agent and
    // codex-acp advertise it: the answer's top-level `_meta`, beside `agentCapabilities`.
    _meta: { steering: { supported: true } },
  };
}

/**
 * Runs `initialize` on the connection of `peer`: keeps what its client can do (its file system
 * and terminal, its features), then answers. The endpoints and their model lists are looked up
 * once the answer is on its way; `session/new` awaits them.
 */
export async function initialize(state: AgentState, params: InitializeRequest, peer: ClientPeer): Promise<InitializeResponse> {
  const store = await state.store;
  setImmediate(() => void state.endpointsKnown().then(() => state.registry.models()));
  peer.advertise(params.clientCapabilities, params.clientInfo?.name);
  return initializeResponse(store.persistent, params.clientCapabilities, !peer.sharesAgent);
}
