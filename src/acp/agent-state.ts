/**
 * The agent's state, one object per agent (shared by every connection of `openai-acp serve`): the
 * configuration, the endpoints chosen and the registry in use, the session store, the live
 * sessions, each session's tools and the model picker. What one connection's client advertised is
 * its `ClientPeer` (`client-peer.ts`). The method modules (`session-lifecycle.ts`, `session-config.ts`,
 * `provider-methods.ts`, `prompt-runner.ts`) read and change it; `agent.ts` only routes to them.
 */
import { RequestError, type SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { describeConfigProblems, type Config, type ConfigError } from '../config/config.js';
import { reasoningEffortLevels } from '../config/providers.js';
import { collectWhenQuiet } from '../collect-garbage.js';
import { EndpointMemory } from '../endpoints/endpoint-memory.js';
import { EndpointRegistry } from '../endpoints/endpoint-registry.js';
import { environmentChoice, type EndpointChoice } from '../endpoints/endpoint-choice.js';
import type { Logger } from '../log.js';
import type { FetchLike } from '../openai/http.js';
import { SessionManager, type Session } from '../sessions/session-manager.js';
import { isUnloaded, markUsed, reloadRecords, unloadIdle } from '../sessions/session-memory.js';
import { openSessionStore, SessionStoreError, type SessionStore } from '../sessions/session-store.js';
import { userNotifier, type ClientFeatures, type Notify } from '../loop/notify.js';
import type { ClientPeer } from './client-peer.js';
import { ModelPicker } from './model-picker.js';
import { SessionTools } from '../loop/session-tools.js';
import type { OperatorAllowances } from '../tools/index.js';
import { SLASH_COMMANDS } from './slash-commands.js';
import { UserCommands } from './user-commands.js';
import { SessionWindows } from './session-window.js';

/** What the agent is built from. */
export interface AgentOptions {
  config: Config;
  /** Set when the configuration was invalid: every prompt then explains it instead of running. */
  configError?: ConfigError | undefined;
  logger: Logger;
  /** Injectable transport (tests). */
  fetch?: FetchLike;
  /** Limit for `GET /models` in ms, which bounds how long `session/new` waits for it. @defaultValue 3000 */
  modelsTimeoutMs?: number;
  /**
   * The endpoints; or a function that finds them (the local server search), called once, after
   * the `initialize` answer is on its way (or at the first request that needs them) so that it
   * never delays that answer. @defaultValue the environment's endpoint from `config`
   */
  endpoints?: EndpointChoice | (() => Promise<EndpointChoice>);
  /** Where sessions are kept. @defaultValue an in-memory store */
  store?: SessionStore | Promise<SessionStore>;
  /** The agent's config directory (user-wide AGENTS.md and commands); absent: none are read. */
  configDir?: string | undefined;
  /** Re-reads the configuration for `authenticate` (after `openai-acp setup`); absent: authenticate changes nothing. */
  reload?: () => Promise<{ config: Config; configError?: ConfigError | undefined; endpoints: EndpointChoice }>;
  /**
   * The one directory every session's `cwd` (and additional directory) must be inside, as an
   * absolute path (`openai-acp serve --root`); absent: any absolute `cwd` (an editor on this machine).
   */
  root?: string | undefined;
  /**
   * What remote clients may point the agent at (`openai-acp serve`: `--allow-mcp`,
   * `--allow-private-urls`); absent: anything (an editor on this machine names its own servers).
   */
  allowances?: OperatorAllowances | undefined;
  /**
   * Collect what a burst of turns left once the agent has been quiet a while (`collect-garbage.ts`):
   * for the agent's own process (the CLI), never a host process it shares. @defaultValue false
   */
  collectWhenQuiet?: boolean | undefined;
}

/** How long the agent must be quiet (no turn) after turns before what they left is collected, in ms. */
const QUIET_GC_MS = 10_000;

/** `-32002` with `{sessionId}`: the session is not known. */
export function sessionNotFound(sessionId: string): RequestError {
  return new RequestError(-32002, `Session not found: ${sessionId}`, { sessionId });
}

/** A store refusal as the client hears it: an unknown session (-32002), or one another process holds (-32603, its words name that process); any other error as it is. */
export function storeRefusal(error: unknown, sessionId: string): unknown {
  if (!(error instanceof SessionStoreError)) return error;
  if (error.code === 'busy') return new RequestError(-32603, error.message, { sessionId, reason: 'busy' });
  return error.code === 'not-found' ? sessionNotFound(sessionId) : error;
}

/** Everything the ACP methods share; one per agent. */
export class AgentState {
  readonly logger: Logger;
  config: Config;
  /** Set while the configuration is invalid: no request goes anywhere, every prompt explains it. */
  configError: ConfigError | undefined;
  /** The endpoints chosen at start or by `authenticate`, with the default model value. */
  chosen: EndpointChoice = { endpoints: [] };
  /** The endpoints in use: {@link chosen}'s, then as `providers/set` and `providers/disable` change them. */
  registry: EndpointRegistry;
  /** Where sessions are kept (opened once). */
  readonly store: Promise<SessionStore>;
  /** The live sessions and their turns. */
  readonly sessions = new SessionManager();
  /** Each session's roots and MCP servers. */
  readonly tools: SessionTools;
  /** Each session's model and reasoning-effort lists. */
  readonly picker: ModelPicker;
  /** The agent's config directory (user-wide AGENTS.md and commands); absent: none. */
  readonly configDir: string | undefined;
  /** Each session's user commands and MCP prompts. */
  readonly commands: UserCommands;
  /** Each session's context window: the meter, the small-window notice. */
  readonly windows: SessionWindows;
  /** What the agent learned about its endpoints (windows, text paths, refused parameters), kept across registries. */
  readonly memory = new EndpointMemory();
  /** The directory every session must be inside; absent: none (see {@link AgentOptions.root}). */
  readonly root: string | undefined;
  /** What remote clients may point the agent at; absent: anything (see {@link AgentOptions.allowances}). */
  readonly allowances: OperatorAllowances | undefined;
  /** The connections open now, each with the sessions it holds. */
  readonly peers = new Set<ClientPeer>();
  /** Per session, the `once` keys of the notices already told (`loop/notify.ts`). */
  private readonly told = new WeakMap<Session, Set<string>>();
  /** Re-reads the configuration for `authenticate`. */
  readonly reload: AgentOptions['reload'];
  private readonly registryOptions: { logger: Logger; fetch: FetchLike | undefined; modelsTimeoutMs: number | undefined; memory: EndpointMemory };
  private readonly findEndpoints: AgentOptions['endpoints'];
  /** Collects what a burst of turns left once the agent has been quiet a while (`collect-garbage.ts`); told as each turn ends. */
  readonly quiet: { worked(): void };
  /** Sessions whose records are being read again, so two prompts read once. */
  private readonly reloading = new WeakMap<Session, Promise<void>>();
  private endpointsFound: Promise<void> | undefined;

  constructor(options: AgentOptions) {
    this.logger = options.logger;
    this.config = options.config;
    this.configError = options.configError;
    this.reload = options.reload;
    this.findEndpoints = options.endpoints;
    this.registryOptions = { logger: options.logger, fetch: options.fetch, modelsTimeoutMs: options.modelsTimeoutMs, memory: this.memory };
    this.registry = new EndpointRegistry([], this.registryOptions);
    this.store = Promise.resolve(options.store ?? openSessionStore({ stateDir: 'off', env: {}, logger: options.logger }));
    this.picker = new ModelPicker((session) => this.thoughtLevels(session));
    this.configDir = options.configDir;
    this.root = options.root;
    this.allowances = options.allowances;
    this.quiet = options.collectWhenQuiet
      ? collectWhenQuiet({ quietMs: QUIET_GC_MS, busy: () => this.sessions.all().some((session) => this.sessions.isRunning(session.id)) })
      : { worked: () => undefined };
    this.commands = new UserCommands(options.logger, () => SLASH_COMMANDS, options.configDir);
    this.windows = new SessionWindows({ config: () => this.config, picker: this.picker, registry: () => this.registry, logger: options.logger });
    this.tools = new SessionTools(options.logger, () => ({
      startupMs: this.config.mcpStartupMs,
      toolTimeoutMs: this.config.mcpToolTimeoutMs,
      addresses: this.allowances?.addresses,
    }));
    // Idle sessions leave memory: looked for every tenth of the idle time (at most every minute).
    const idleMs = this.config.sessionIdleMs;
    if (idleMs > 0) setInterval(() => this.unloadIdle(), Math.min(Math.max(Math.floor(idleMs / 10), 10), 60_000)).unref();
  }

  /**
   * Makes the session ready for a turn: marked used, and its records read again from the store
   * when they left memory while it was idle (held for this process again first).
   * @throws {RequestError} -32603 naming the other process when another process took the session
   *   meanwhile; -32002 when another process deleted it.
   */
  async useSession(session: Session): Promise<void> {
    markUsed(session);
    if (!isUnloaded(session)) return;
    let reading = this.reloading.get(session);
    if (!reading) {
      reading = (async () => {
        const store = await this.store;
        await store.hold(session.id);
        reloadRecords(session, (await store.load(session.id))?.records ?? []);
      })().finally(() => this.reloading.delete(session));
      this.reloading.set(session, reading);
    }
    await reading.catch((error: unknown) => {
      throw storeRefusal(error, session.id);
    });
  }

  /** Lets go of the conversations of sessions idle for `config.sessionIdleMs`, and of their leases (a no-op for one given back already). */
  private unloadIdle(): void {
    const { idle, unloaded } = unloadIdle(this.sessions.all(), (session) => this.sessions.isRunning(session.id), Date.now(), this.config.sessionIdleMs);
    if (unloaded > 0) this.logger.debug('idle sessions left memory', { sessions: unloaded });
    if (idle.length > 0) void this.store.then((store) => Promise.all(idle.map((session) => store.release(session.id))));
  }

  /** Resolves once the endpoints are known; starts finding them on the first call. */
  endpointsKnown(): Promise<void> {
    const find = this.findEndpoints ?? environmentChoice(this.config);
    return (this.endpointsFound ??= Promise.resolve(typeof find === 'function' ? find() : find).then((choice) => this.useEndpoints(choice)));
  }

  /** Makes `choice` the endpoints in use, in a new registry. */
  useEndpoints(choice: EndpointChoice): void {
    this.chosen = choice;
    // An invalid configuration sends nothing anywhere, not even a model list request.
    this.registry = new EndpointRegistry(choice.endpoints, { ...this.registryOptions, enabled: !this.configError });
  }

  /** The model value of a new session, or of one whose endpoint is gone. */
  async defaultModel(): Promise<string> {
    return this.chosen.model ?? (await this.registry.defaultValue()) ?? this.config.model;
  }

  /** The reasoning-effort levels of the session's model, besides `default` (none when its endpoint is gone). */
  thoughtLevels(session: Session): string[] {
    const target = this.registry.resolve(session.model);
    if (!target) return [];
    return reasoningEffortLevels(target.endpoint.profile, target.model).filter((level) => level !== 'default');
  }

  /** Words that replace every prompt when no turn can run (invalid configuration, no endpoint); else `undefined`. */
  whyNoTurn(): string | undefined {
    if (this.configError) {
      return (
        'openai-acp is not configured correctly, so nothing was sent to the model:\n' +
        `${describeConfigProblems(this.configError.problems)}\n` +
        'Fix the setting (environment, .env file, config file or flags) and restart the agent.'
      );
    }
    if (this.registry.size === 0)
      return (
        this.chosen.missing ?? 'openai-acp has no endpoint configured. Set OPENAI_BASE_URL (and OPENAI_API_KEY for cloud providers), or run `openai-acp setup`.'
      );
    return undefined;
  }

  /** The {@link Notify} of `session`, sending through `send`: a `notice` or today's text, by what the client advertised (`features`). */
  notifier(session: Session, send: (updates: SessionUpdate[]) => Promise<void>, features: ClientFeatures): Notify {
    let told = this.told.get(session);
    if (!told) this.told.set(session, (told = new Set()));
    return userNotifier(send, features, told);
  }

  /** Whether a connection other than `peer` holds the session `sessionId` open. */
  heldElsewhere(sessionId: string, peer: ClientPeer): boolean {
    for (const other of this.peers) if (other !== peer && other.sessions.has(sessionId)) return true;
    return false;
  }

  /**
   * The live session `sessionId`.
   * @throws {RequestError} -32002 when it is not held.
   */
  session(sessionId: string): Session {
    const session = this.sessions.get(sessionId);
    if (!session) throw sessionNotFound(sessionId);
    return session;
  }
}
