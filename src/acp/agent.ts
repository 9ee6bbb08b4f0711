/**
 * OpenAIAgent: wires the ACP methods to sessions, the session store, the endpoints and the turn
 * runner.
 *
 * Sources: ACP v1 methods https://agentclientprotocol.com/protocol/v1/ and `../shared/ACP-NOTES.md`
 * (what Zed, acpx, Open Design and stdio Bus send).
 */
import {
  agent,
  RequestError,
  type AgentApp,
  type AgentContext,
  type McpServer,
  type SessionUpdate,
} from '@agentclientprotocol/sdk/unstable';
import { z } from 'zod';
import { describeConfigProblems, secretsOf, type Config, type ConfigError } from '../config/config.js';
import { EndpointRegistry, type NamedEndpointSettings } from '../endpoints/endpoint-registry.js';
import type { FetchLike } from '../openai/http.js';
import { initializeResponse, SETUP_AUTH_METHOD_ID } from './initialize.js';
import type { Logger } from '../log.js';
import { MODEL_CONFIG_ID, ModelPicker, THOUGHT_LEVEL_CONFIG_ID } from './model-picker.js';
import { PromptRunner } from './prompt-runner.js';
import { changeProviders, type ProviderChangeState } from './provider-change.js';
import { replayUpdates } from './replay.js';
import { legacyModes, MODE_CONFIG_ID, modeConfigOption, selectMode, sessionMode } from './session-modes.js';
import { SessionTools } from './session-tools.js';
import { toolCapabilities } from '../tools/client-backend.js';
import { clientEndpoint, SUPPORTED_API_TYPES } from './provider-methods.js';
import { reasoningEffortLevels } from '../config/providers.js';
import { environmentEndpoint } from '../endpoints/runtime-config.js';
import { InvalidCursorError, paginateSessions } from '../sessions/session-list.js';
import { SessionManager, type Session } from '../sessions/session-manager.js';
import { openSessionStore, type SessionStore, type StoredSession } from '../sessions/session-store.js';
import { SLASH_COMMANDS } from './slash-commands.js';
import { UserCommands } from './user-commands.js';
import { checkCwd, checkPromptBlocks } from './validate-params.js';
import { AGENT_NAME } from '../version.js';

/** The endpoints to use and the default model value. */
export interface EndpointPlan {
  /** Default first; may be empty, then every prompt answers with {@link missing}. */
  endpoints: NamedEndpointSettings[];
  /** Default model value (`providerId/modelId` with several endpoints); the first endpoint's model when absent. */
  model?: string | undefined;
  /** Words for every prompt when there is no endpoint (how to configure one). */
  missing?: string | undefined;
}

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
  plan?: EndpointPlan | (() => Promise<EndpointPlan>);
  /** Where sessions are kept. @defaultValue an in-memory store */
  store?: SessionStore | Promise<SessionStore>;
  /** The agent's config directory (user-wide AGENTS.md and commands); absent: none are read. */
  configDir?: string | undefined;
  /** Re-reads the configuration for `authenticate` (after `openai-acp setup`); absent: authenticate changes nothing. */
  reload?: () => Promise<{ config: Config; configError?: ConfigError | undefined; plan: EndpointPlan }>;
}

/** The agent app plus the handles the CLI needs for shutdown. */
export interface OpenAIAgent {
  app: AgentApp;
  sessions: SessionManager;
  /** Each session's tool state; `closeAll()` at exit stops every MCP server. */
  tools: SessionTools;
}

const cancelParams = z.object({ sessionId: z.string() }).passthrough();
const setModelParams = z.object({ sessionId: z.string(), modelId: z.string() }).passthrough();

/** `-32002` with `{sessionId}`: the session is not known. */
export function sessionNotFound(sessionId: string): RequestError {
  return new RequestError(-32002, `Session not found: ${sessionId}`, { sessionId });
}

/** The environment's endpoint as the only one (the plan when none is given). */
export function environmentPlan(config: Config): EndpointPlan {
  return { endpoints: [environmentEndpoint(config, 'default')], model: config.model };
}

/** Build the ACP agent app. Connect it with `app.connect(stream)`. */
export function createOpenAIAgent(options: AgentOptions): OpenAIAgent {
  const { logger } = options;
  let config = options.config;
  let configError = options.configError;
  const sessions = new SessionManager();
  const deps = { logger, fetch: options.fetch, modelsTimeoutMs: options.modelsTimeoutMs };
  let registry = new EndpointRegistry([], deps);
  let plan: EndpointPlan = { endpoints: [] };
  const adopt = (next: EndpointPlan) => {
    plan = next;
    // An invalid configuration sends nothing anywhere, not even a model list request.
    registry = new EndpointRegistry(next.endpoints, { ...deps, enabled: !configError });
  };
  let planned: Promise<void> | undefined;
  /** Resolves once the endpoints are known; starts finding them on the first call. */
  const ready = (): Promise<void> => {
    const plan = options.plan ?? environmentPlan(config);
    return (planned ??= Promise.resolve(typeof plan === 'function' ? plan() : plan).then(adopt));
  };
  const storeReady = Promise.resolve(options.store ?? openSessionStore({ stateDir: 'off', env: {}, logger }));
  const defaultModel = async () => plan.model ?? (await registry.defaultValue()) ?? config.model;

  const thoughtLevels = (session: Session) => {
    const target = registry.resolve(session.model);
    if (!target) return [];
    return reasoningEffortLevels(target.endpoint.profile, target.model).filter((level) => level !== 'default');
  };
  const picker = new ModelPicker(thoughtLevels);
  const sessionTools = new SessionTools(logger, () => ({ startupMs: config.mcpStartupMs, toolTimeoutMs: config.mcpToolTimeoutMs }));
  let capabilities = toolCapabilities(undefined);
  const userCommands = new UserCommands(logger, () => SLASH_COMMANDS, options.configDir);
  const runner = new PromptRunner({
    commands: userCommands,
    configDir: options.configDir,
    tools: sessionTools,
    capabilities: () => capabilities,
    logger,
    sessions,
    picker,
    config: () => config,
    registry: () => registry,
    store: () => storeReady,
    explain: () => {
      if (configError) {
        return `openai-acp is not configured correctly, so nothing was sent to the model:\n${describeConfigProblems(configError.problems)}\nFix the setting (environment, .env file, config file or flags) and restart the agent.`;
      }
      if (registry.size === 0) return plan.missing ?? 'openai-acp has no endpoint configured. Set OPENAI_BASE_URL (and OPENAI_API_KEY for cloud providers), or run `openai-acp setup`.';
      return undefined;
    },
  });

  const requireSession = (sessionId: string): Session => {
    const session = sessions.get(sessionId);
    if (!session) throw sessionNotFound(sessionId);
    return session;
  };
  const cancel = (sessionId: string) => {
    if (sessions.cancel(sessionId)) logger.debug('turn cancelled', { sessionId });
  };
  /** Every config option of the session: model, reasoning effort, and the mode when tools are on. */
  const configOptions = (session: Session) => (config.tools ? [...picker.configOptions(session), modeConfigOption(session)] : picker.configOptions(session));
  /**
   * The session answer: config options, the legacy `models` (not in the schema; responses are not
   * validated) and, with tools, the modes.
   */
  const sessionAnswer = (session: Session) => ({ configOptions: configOptions(session), models: picker.legacyModels(session), ...(config.tools ? { modes: legacyModes(session) } : {}) });
  /** Starts the session's tools (roots, MCP servers) for a new, loaded or resumed session. */
  const openTools = (session: Session, params: { additionalDirectories?: string[] | null | undefined; mcpServers?: McpServer[] | null | undefined }) =>
    sessionTools.open(session.id, session.cwd, config.tools ? params : { additionalDirectories: params.additionalDirectories });
  /** Sends `available_commands_update` (built-ins, command files, MCP prompts) once the answer naming the session has gone out. */
  const advertiseCommands = (client: AgentContext, session: Session) =>
    setImmediate(() => {
      void userCommands
        .refresh(session.id, session.cwd, sessionTools.get(session.id)?.mcp, true)
        .then((availableCommands) => client.notify('session/update', { sessionId: session.id, update: { sessionUpdate: 'available_commands_update', availableCommands: availableCommands ?? [...SLASH_COMMANDS] } }))
        .catch(() => undefined);
    });
  /** Holds a stored session again, with the model lists of now. */
  const restore = async (stored: StoredSession): Promise<Session> => {
    await ready();
    // A turn of this session is running here: keep that copy, which its turn is still adding to.
    const running = sessions.isRunning(stored.sessionId) ? sessions.get(stored.sessionId) : undefined;
    if (running) {
      picker.attach(running, await registry.models());
      return running;
    }
    const session = sessions.restore({
      id: stored.sessionId,
      cwd: stored.cwd,
      createdAt: stored.createdAt,
      records: [...stored.records],
      model: stored.model ?? (await defaultModel()),
      options: { ...stored.options },
      title: stored.title,
    });
    picker.attach(session, await registry.models());
    return session;
  };
  const loadStored = async (sessionId: string): Promise<StoredSession> => {
    const stored = await (await storeReady).load(sessionId);
    if (!stored) throw sessionNotFound(sessionId);
    return stored;
  };
  const saveOptions = async (session: Session, change: { model?: string; options?: Record<string, string> }) => {
    try {
      await (await storeReady).append(session.id, { type: 'meta', at: new Date().toISOString(), ...change });
    } catch (error) {
      logger.warn('could not save the session setting', { sessionId: session.id, error: (error as Error).message });
    }
  };

  const providerState: ProviderChangeState = {
    registry: () => registry,
    plan: () => plan,
    setPlan: (next) => {
      plan = next;
    },
    sessions,
    picker,
    defaultModel,
  };

  const app = agent({ name: AGENT_NAME })
    .onRequest('initialize', async ({ params }) => {
      const store = await storeReady;
      // Find the endpoints and their model lists once the answer is on its way; session/new awaits them.
      setImmediate(() => void ready().then(() => registry.models()));
      capabilities = toolCapabilities(params.clientCapabilities);
      return initializeResponse(store.persistent, params.clientCapabilities);
    })
    .onRequest('authenticate', async ({ params, client }) => {
      if (params.methodId !== SETUP_AUTH_METHOD_ID) {
        throw RequestError.invalidParams({ methodId: params.methodId }, `Unknown auth method ${JSON.stringify(params.methodId)}; valid: ${SETUP_AUTH_METHOD_ID}`);
      }
      if (options.reload) {
        const next = await options.reload();
        config = next.config;
        configError = next.configError;
        // The first search finishes first, so what was read now is what stays.
        await ready();
        await changeProviders(providerState, client, () => adopt(next.plan), { keepPlanModel: true });
        logger.info('configuration re-read', { endpoints: next.plan.endpoints.map((e) => e.id).join(', ') || 'none' });
        if (configError) throw RequestError.authRequired({ problems: configError.problems }, `The configuration is still invalid:\n${describeConfigProblems(configError.problems)}`);
      }
      return {};
    })
    .onRequest('session/new', async ({ params, client }) => {
      checkCwd(params.cwd, logger);
      await ready();
      const session = sessions.create(params.cwd, await defaultModel());
      try {
        await (await storeReady).create({ sessionId: session.id, cwd: session.cwd, createdAt: session.createdAt });
      } catch (error) {
        logger.error('could not save the new session; it will not survive a restart', { sessionId: session.id, error: (error as Error).message });
      }
      picker.attach(session, await registry.models());
      await openTools(session, params);
      logger.debug('session created', { sessionId: session.id, cwd: params.cwd });
      advertiseCommands(client, session);
      return { sessionId: session.id, ...sessionAnswer(session) };
    })
    .onRequest('session/load', async ({ params, client }) => {
      checkCwd(params.cwd, logger);
      const session = await restore(await loadStored(params.sessionId));
      await openTools(session, params);
      await makeSender(client, session.id)(replayUpdates(session.records));
      logger.debug('session loaded', { sessionId: session.id, records: session.records.length });
      advertiseCommands(client, session);
      return sessionAnswer(session);
    })
    .onRequest('session/resume', async ({ params, client }) => {
      checkCwd(params.cwd, logger);
      const session = await restore(await loadStored(params.sessionId));
      await openTools(session, params);
      logger.debug('session resumed', { sessionId: session.id, records: session.records.length });
      advertiseCommands(client, session);
      return sessionAnswer(session);
    })
    .onRequest('session/list', async ({ params }) => {
      const all = await (await storeReady).list();
      try {
        return paginateSessions(all, { cwd: params.cwd ?? null, cursor: params.cursor ?? null });
      } catch (error) {
        if (error instanceof InvalidCursorError) throw RequestError.invalidParams({ cursor: params.cursor }, error.message);
        throw error;
      }
    })
    .onRequest('session/close', async ({ params }) => {
      picker.forget(params.sessionId);
      userCommands.forget(params.sessionId);
      await sessionTools.close(params.sessionId);
      if (!sessions.remove(params.sessionId)) await loadStored(params.sessionId);
      return {};
    })
    .onRequest('session/delete', async ({ params }) => {
      picker.forget(params.sessionId);
      userCommands.forget(params.sessionId);
      sessions.remove(params.sessionId);
      await sessionTools.close(params.sessionId);
      await (await storeReady).delete(params.sessionId);
      return {};
    })
    .onRequest('session/set_config_option', async ({ params }) => {
      const session = requireSession(params.sessionId);
      if (params.configId === MODEL_CONFIG_ID) {
        picker.select(session, params.value);
        await saveOptions(session, { model: session.model });
      } else if (params.configId === THOUGHT_LEVEL_CONFIG_ID && thoughtLevels(session).length > 0) {
        picker.selectThoughtLevel(session, params.value);
        await saveOptions(session, { options: { [THOUGHT_LEVEL_CONFIG_ID]: session.options[THOUGHT_LEVEL_CONFIG_ID]! } });
      } else if (params.configId === MODE_CONFIG_ID && config.tools) {
        selectMode(session, params.value);
        await saveOptions(session, { options: { [MODE_CONFIG_ID]: sessionMode(session) } });
      } else {
        const valid = configOptions(session).map((option) => option.id).join(', ');
        throw RequestError.invalidParams({ configId: params.configId }, `Unknown config option ${JSON.stringify(params.configId)}; valid: ${valid}`);
      }
      logger.debug('config option set', { sessionId: session.id, configId: params.configId, value: String(params.value) });
      return { configOptions: configOptions(session) };
    })
    // Legacy modes: the same mode as the `mode` config option.
    .onRequest('session/set_mode', async ({ params, client }) => {
      const session = requireSession(params.sessionId);
      if (!config.tools) throw RequestError.invalidParams({ modeId: params.modeId }, 'Modes are off: OPENAI_ACP_TOOLS=off gives a chat bridge without tools');
      selectMode(session, params.modeId);
      await saveOptions(session, { options: { [MODE_CONFIG_ID]: sessionMode(session) } });
      logger.debug('mode set', { sessionId: session.id, mode: sessionMode(session) });
      await client.notify('session/update', { sessionId: session.id, update: { sessionUpdate: 'config_option_update', configOptions: configOptions(session) } }).catch(() => undefined);
      return {};
    })
    // Legacy model selection (Open Design's fallback, acp-ai-provider, acp-factory).
    .onRequest('session/set_model', setModelParams, async ({ params }) => {
      const session = requireSession(params.sessionId);
      picker.select(session, params.modelId);
      await saveOptions(session, { model: session.model });
      logger.debug('model selected', { sessionId: session.id, model: session.model });
      return {};
    })
    .onRequest('session/prompt', async (ctx) => {
      const session = requireSession(ctx.params.sessionId);
      checkPromptBlocks(ctx.params.prompt);
      // Nothing to ask: no request upstream, no turn saved.
      if (ctx.params.prompt.length === 0) return { stopReason: 'end_turn' };
      await ready();
      return runner.run(session, ctx.params.prompt, makeSender(ctx.client, session.id), ctx.signal, ctx.client);
    })
    .onNotification('session/cancel', ({ params }) => cancel(params.sessionId))
    // Open Design sends session/cancel as a request with an id; it gets `{}` back.
    .onRequest('session/cancel', cancelParams, ({ params }) => {
      cancel(params.sessionId);
      return {};
    })
    .onRequest('providers/list', async () => {
      await ready();
      return {
        providers: registry.list().map((endpoint) => ({
          providerId: endpoint.settings.id,
          supported: [...SUPPORTED_API_TYPES],
          required: false,
          current: { apiType: endpoint.provider === 'azure' || endpoint.provider === 'bedrock' ? endpoint.provider : 'openai', baseUrl: endpoint.settings.baseUrl },
        })),
      };
    })
    .onRequest('providers/set', async ({ params, client }) => {
      await ready();
      const settings = clientEndpoint(params, config);
      // The client's headers may carry credentials: they are redacted from every log line from now on.
      logger.addSecrets?.(secretsOf(settings));
      await changeProviders(providerState, client, () => registry.set(settings));
      logger.info('provider set by the client', { providerId: params.providerId, apiType: params.apiType, baseUrl: settings.baseUrl });
      return {};
    })
    .onRequest('providers/disable', async ({ params, client }) => {
      await ready();
      if (!registry.get(params.providerId)) return {};
      await changeProviders(providerState, client, () => registry.disable(params.providerId));
      logger.info('provider disabled by the client', { providerId: params.providerId });
      return {};
    });

  return { app, sessions, tools: sessionTools };
}

function makeSender(client: AgentContext, sessionId: string) {
  return (updates: SessionUpdate[]): Promise<void> => {
    // All queued at once: the SDK writes its messages in call order, each after the one before,
    // and after a failed write the connection is closed and the rest fail too.
    const sent = updates.map((update) => client.notify('session/update', { sessionId, update }));
    return sent.length === 1 ? sent[0]! : Promise.all(sent).then(() => undefined);
  };
}
