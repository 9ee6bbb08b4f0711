/**
 * The front door's way into the agent: an ACP client connected to the in-process ACP agent, so
 * that every AgentConnect session is an ACP session and every event is one the ACP agent already
 * produces. It advertises no file or terminal capability (tools run locally, inside the session's
 * cwd), takes notices (told to the app as a `message` of role `system`) and answers each permission request by the front door's fixed mode: allowed in
 * `full-access`, refused otherwise (the model is told, as in any refused call). AgentConnect has
 * no run-time prompts (`docs/PROTOCOL.md`, "Design Principles": install-time consent).
 *
 * The SDK's `client` factory is handed in, not imported, so this module (in a lazy chunk) uses
 * the same SDK copy as the agent.
 */
import type {
  AgentApp,
  ClientApp,
  ClientConnection,
  PermissionOption,
  PromptResponse,
  RequestPermissionOutcome,
  SessionConfigOption,
  SessionUpdate,
} from '@agentclientprotocol/sdk/unstable';
import { AgentConnectError, type FrontDoorMode } from './protocol.js';

/** JSON-RPC error code of a request cancelled with `$/cancel_request` (ACP, `RequestError.requestCancelled`). */
const REQUEST_CANCELLED = -32800;
/** JSON-RPC internal error: the response to a failed turn, the failure's `{kind, status?, retryable}` in its `data`. */
const INTERNAL_ERROR = -32603;

/** Most kept meters of sessions without a listener. */
const MAX_UNHEARD = 64;

/** The SDK's client factory (`client` of `@agentclientprotocol/sdk/unstable`). */
export type ClientFactory = (options?: { name?: string }) => ClientApp;

/**
 * The outcome of a permission request in `mode`: the offered `allow_once` in `full-access`, else `reject_once`; cancelled when that kind is not offered.
 * @internal a pure mapping the tests check per mode, without a WebSocket client.
 */
export function permissionOutcome(mode: FrontDoorMode, options: readonly PermissionOption[]): RequestPermissionOutcome {
  const kind = mode === 'full-access' ? 'allow_once' : 'reject_once';
  const option = options.find((candidate) => candidate.kind === kind);
  return option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' };
}

/**
 * An ACP error as an AgentConnect one: -32002 (unknown session) and -32602 (invalid params)
 * → `AC_ERR_INVALID_ARGS` with the agent's words; anything else → `AC_ERR_INTERNAL`.
 * @internal a pure mapping the tests check per error code, without a WebSocket client.
 */
export function fromAcpError(error: unknown): AgentConnectError {
  if (error instanceof AgentConnectError) return error;
  const code = (error as { code?: unknown })?.code;
  const message = (error as { message?: unknown })?.message;
  const words = typeof message === 'string' && message ? message : 'internal error';
  if (code === -32002) return new AgentConnectError('AC_ERR_INVALID_ARGS', 'Unknown session');
  if (code === -32602) return new AgentConnectError('AC_ERR_INVALID_ARGS', words);
  return new AgentConnectError('AC_ERR_INTERNAL', words);
}

/** A session as the agent's response gave it: its id and config options (model, reasoning effort, mode). */
export interface OpenedSession {
  sessionId: string;
  configOptions: SessionConfigOption[];
}

/** One ACP client connection to the agent, shared by every WebSocket of the front door. */
export class AcpBridge {
  private constructor(
    private readonly connection: ClientConnection,
    readonly mode: FrontDoorMode,
    private readonly listeners: Map<string, (update: SessionUpdate) => void>,
    private readonly unheard: Map<string, SessionUpdate>,
  ) {}

  /** Connects to `agent` and runs `initialize` with no file or terminal capability, taking notices. */
  static async open(agent: AgentApp, client: ClientFactory, mode: FrontDoorMode): Promise<AcpBridge> {
    const listeners = new Map<string, (update: SessionUpdate) => void>();
    const unheard = new Map<string, SessionUpdate>();
    const app = client({ name: 'openai-acp agentconnect' })
      .onNotification('session/update', ({ params }) => {
        const listener = listeners.get(params.sessionId);
        if (listener) listener(params.update);
        // The meter of a session just created or resumed may come before its listener: kept for it.
        else if (params.update.sessionUpdate === 'usage_update') {
          unheard.set(params.sessionId, params.update);
          // A meter that came after its session was let go is never asked for: keep only the newest few.
          if (unheard.size > MAX_UNHEARD) unheard.delete(unheard.keys().next().value!);
        }
      })
      .onRequest('session/request_permission', ({ params }) => ({ outcome: permissionOutcome(mode, params.options) }));
    const bridge = new AcpBridge(app.connect(agent), mode, listeners, unheard);
    // Notices (a model the server is loading, a small window) come as `notice` updates, told as a
    // message of the host's own (event-map.ts): neither the answer's `final` text nor the model's thinking.
    await bridge.call(() => bridge.connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: { session: { notices: {} } } }));
    return bridge;
  }

  /** Sends the session's updates to `listener` (replacing any earlier one); `undefined` stops them. */
  listen(sessionId: string, listener: ((update: SessionUpdate) => void) | undefined): void {
    const kept = this.unheard.get(sessionId);
    this.unheard.delete(sessionId);
    if (!listener) {
      this.listeners.delete(sessionId);
      return;
    }
    this.listeners.set(sessionId, listener);
    if (kept) listener(kept);
  }

  /** `session/new` in `cwd`, with the app's own instructions in `_meta["openai-acp"].instructions`; then the front door's mode. */
  async create(cwd: string, instructions: string | undefined): Promise<OpenedSession> {
    const response = await this.call(() =>
      this.connection.agent.request('session/new', { cwd, mcpServers: [], ...(instructions ? { _meta: { 'openai-acp': { instructions } } } : {}) }),
    );
    const opened = { sessionId: response.sessionId, configOptions: response.configOptions ?? [] };
    await this.setModeOf(opened);
    return opened;
  }

  /** `session/resume` of a stored session (the agent's store: also after a restart); then the front door's mode. */
  async resume(sessionId: string, cwd: string): Promise<OpenedSession> {
    const response = await this.call(() => this.connection.agent.request('session/resume', { sessionId, cwd, mcpServers: [] }));
    const opened = { sessionId, configOptions: response.configOptions ?? [] };
    await this.setModeOf(opened);
    return opened;
  }

  /** `session/set_config_option`; the session's options as they are now. */
  async setOption(sessionId: string, configId: string, value: string): Promise<SessionConfigOption[]> {
    const response = await this.call(() => this.connection.agent.request('session/set_config_option', { sessionId, configId, value }));
    return response.configOptions;
  }

  /**
   * `session/prompt` with one text block; resolves with the turn's response (a failed turn, answered
   * with a JSON-RPC error, as `end_turn` with `_meta["openai-acp"]`: `error` its data, `message` its message). Aborting `cancel` also
   * cancels the request itself (`$/cancel_request`), which stops a turn that had not started yet
   * when `session/cancel` came (that one only stops a running turn): then it resolves as `cancelled`.
   */
  async prompt(sessionId: string, text: string, cancel: AbortSignal): Promise<PromptResponse> {
    try {
      return await this.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }, { cancellationSignal: cancel });
    } catch (error) {
      if ((error as { code?: unknown })?.code === REQUEST_CANCELLED) return { stopReason: 'cancelled' };
      // A failed turn (acp/prompt-failure.ts): its words were streamed; event-map.ts reads the failure from `_meta`.
      const failed = error as { code?: unknown; message?: unknown; data?: { kind?: unknown } } | undefined;
      if (failed?.code === INTERNAL_ERROR && typeof failed.data?.kind === 'string') {
        const message = typeof failed.message === 'string' ? { message: failed.message } : {};
        return { stopReason: 'end_turn', _meta: { 'openai-acp': { error: failed.data, ...message } } };
      }
      throw fromAcpError(error);
    }
  }

  /** `session/cancel`: the turn stops (its HTTP request, command, permission request) and answers `cancelled`. */
  async cancel(sessionId: string): Promise<void> {
    await this.connection.agent.notify('session/cancel', { sessionId }).catch(() => undefined);
  }

  /** `session/close`: the agent lets go of the session; its stored copy stays for a later resume. */
  async close(sessionId: string): Promise<void> {
    this.listen(sessionId, undefined);
    await this.connection.agent.request('session/close', { sessionId }).catch(() => undefined);
  }

  /** Closes the ACP connection. */
  shutdown(): void {
    this.connection.close();
  }

  private async setModeOf(opened: OpenedSession): Promise<void> {
    // With tools off there are no modes: nothing runs but the chat.
    if (opened.configOptions.some((option) => option.id === 'mode')) opened.configOptions = await this.setOption(opened.sessionId, 'mode', this.mode);
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw fromAcpError(error);
    }
  }
}
