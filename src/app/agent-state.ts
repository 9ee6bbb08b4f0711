/**
 * The agent's state, one object per agent (shared by every connection of `openai-acp serve`): the
 * configuration, the endpoints chosen and the registry in use, the session store, the live
 * sessions (`live-sessions.ts`: each session's own state is its `LiveSession`) and the services
 * that work on them (tools, model picker, user commands, windows). What one connection's client advertised is
 * its `ClientPeer` (`client-peer.ts`). The method modules (`session-lifecycle.ts`, `session-config.ts`,
 * `provider-methods.ts`, `prompt-runner.ts`) read and change it; `agent.ts` only routes to them.
 */
import { describeConfigProblems, type Config, type ConfigError } from '../config/config.js';
import { reasoningEffortLevels } from '../config/providers.js';
import { collectWhenQuiet } from '../shared/collect-garbage.js';
import { LearnedFacts } from '../endpoints/learned-facts.js';
import { EndpointRegistry } from '../endpoints/endpoint-registry.js';
import { environmentChoice, type EndpointChoice } from '../endpoints/endpoint-choice.js';
export type { AgentOptions } from './agent-options.js';
import type { Logger } from '../shared/log.js';
import type { FetchLike } from '../openai/http.js';
import type { AgentOptions } from './agent-options.js';
import type { Session } from '../sessions/session.js';
import { openSessionStore, type SessionStore } from '../sessions/session-store.js';
import { userNotifier, type ClientFeatures, type Notify } from '../loop/notify.js';
import type { ClientPeer } from './client-peer.js';
import { ModelPicker } from './model-picker.js';
import { SessionTools } from '../loop/session-tools.js';
import type { OperatorAllowances } from '../tools/index.js';
import { SLASH_COMMANDS } from './slash-commands.js';
import { UserCommands } from './user-commands.js';
import { SessionWindows } from './session-window.js';
import { sessionNotFound, type LiveSession } from './live-session.js';
import { LiveSessions } from './live-sessions.js';
import { unloadIdleSessions } from './session-upkeep.js';
import type { UpdateSink } from '../tools/index.js';

/** How long the agent must be quiet (no turn) after turns before what they left is collected, in ms. */
const QUIET_GC_MS = 10_000;

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
  /** The one registry of the sessions in memory, by id: each one's data in its {@link LiveSession} (what it has in memory, who holds it, its closing). */
  readonly sessions = new LiveSessions((session) => this.release(session));
  /** Opens and closes sessions' roots and MCP servers (each kept by its {@link LiveSession}). */
  readonly tools: SessionTools;
  /** Sessions' model and reasoning-effort pickers (each list kept by its {@link LiveSession}). */
  readonly picker: ModelPicker;
  /** The agent's config directory (user-wide AGENTS.md and commands); absent: none. */
  readonly configDir: string | undefined;
  /** Reads sessions' user commands and MCP prompts (each list kept by its {@link LiveSession}). */
  readonly commands: UserCommands;
  /** Each session's context window: the meter, the small-window notice. */
  readonly windows: SessionWindows;
  /** What the agent learned about its endpoints (windows, text paths, refused parameters), kept across registries. */
  readonly learned = new LearnedFacts();
  /** The directory every session must be inside; absent: none (see {@link AgentOptions.root}). */
  readonly root: string | undefined;
  /** What remote clients may point the agent at; absent: anything (see {@link AgentOptions.allowances}). */
  readonly allowances: OperatorAllowances | undefined;
  /** The connections open now (which sessions each holds, its {@link LiveSession}s know). */
  readonly peers = new Set<ClientPeer>();
  /** Re-reads the configuration for `authenticate`. */
  readonly reload: AgentOptions['reload'];
  private readonly registryOptions: { logger: Logger; fetch: FetchLike | undefined; modelsTimeoutMs: number | undefined; learned: LearnedFacts };
  private readonly findEndpoints: AgentOptions['endpoints'];
  /** Collects what a burst of turns left once the agent has been quiet a while (`collect-garbage.ts`); told as each turn ends. */
  readonly quiet: { worked(): void };
  private endpointsFound: Promise<void> | undefined;

  constructor(options: AgentOptions) {
    this.logger = options.logger;
    this.config = options.config;
    this.configError = options.configError;
    this.reload = options.reload;
    this.findEndpoints = options.endpoints;
    this.registryOptions = { logger: options.logger, fetch: options.fetch, modelsTimeoutMs: options.modelsTimeoutMs, learned: this.learned };
    this.registry = new EndpointRegistry([], this.registryOptions);
    this.store = Promise.resolve(options.store ?? openSessionStore({ stateDir: 'off', env: {}, logger: options.logger }));
    this.picker = new ModelPicker(
      (session) => this.slotOf(session),
      (session) => this.thoughtLevels(session),
    );
    this.configDir = options.configDir;
    this.root = options.root;
    this.allowances = options.allowances;
    this.quiet = options.collectWhenQuiet ? collectWhenQuiet({ quietMs: QUIET_GC_MS, busy: () => this.sessions.anyRunning() }) : { worked: () => undefined };
    this.commands = new UserCommands(options.logger, () => SLASH_COMMANDS, options.configDir);
    this.windows = new SessionWindows({ config: () => this.config, picker: this.picker, registry: () => this.registry, logger: options.logger });
    this.tools = new SessionTools(options.logger, () => ({
      startupMs: this.config.mcpStartupMs,
      toolTimeoutMs: this.config.mcpToolTimeoutMs,
      addresses: this.allowances?.addresses,
    }));
    // Idle sessions leave memory: looked for every tenth of the idle time (at most every minute).
    const idleMs = this.config.sessionIdleMs;
    if (idleMs > 0) setInterval(() => unloadIdleSessions(this), Math.min(Math.max(Math.floor(idleMs / 10), 10), 60_000)).unref();
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
  notifier(session: Session, send: UpdateSink, features: ClientFeatures): Notify {
    return userNotifier(send, features, this.sessions.of(session).told);
  }

  /** The {@link LiveSession} in memory under `session`'s id (an earlier copy's turn reads the one held now), else `session`'s own. */
  slotOf(session: Session): LiveSession {
    return this.sessions.live(session.id) ?? this.sessions.of(session);
  }

  /** Records that the connection of `peer` holds `session` (new, load, resume, fork); returns its {@link LiveSession}. */
  hold(session: Session, peer: ClientPeer): LiveSession {
    const live = this.sessions.of(session);
    live.addHolder(peer);
    return live;
  }

  /** Lets go of the session `sessionId` when it is in memory ({@link LiveSession.close}); resolves whether it was held. */
  close(sessionId: string): Promise<boolean> {
    return this.sessions.live(sessionId)?.close() ?? Promise.resolve(false);
  }

  /** What closing a live session lets go of beside its own state ({@link SessionCloser}): the session forgotten, then its lease given back (its last record is written). */
  private async release(session: Session): Promise<boolean> {
    if (!this.sessions.remove(session)) return false;
    await (await this.store).release(session.id);
    return true;
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
