/**
 * OpenAIAgent: wires the ACP methods to sessions, the chat client and the turn runner.
 *
 * Sources: ACP v1 methods https://agentclientprotocol.com/protocol/v1/ and `../shared/ACP-NOTES.md`
 * (what Zed, acpx, Open Design and stdio Bus send).
 */
import {
  agent,
  RequestError,
  type AgentApp,
  type AgentContext,
  type InitializeResponse,
  type PromptResponse,
  type SessionUpdate,
} from '@agentclientprotocol/sdk/unstable';
import { z } from 'zod';
import { describeConfigProblems, type Config, type ConfigError } from './config.js';
import type { FetchLike } from './http.js';
import { createEndpoint } from './endpoint.js';
import type { Logger } from './log.js';
import { MODEL_CONFIG_ID, ModelPicker } from './model-picker.js';
import type { ChatMessage } from './openai-types.js';
import { promptToUserContent } from './prompt-content.js';
import { SessionManager, type Session } from './session-manager.js';
import { agentText } from './to-acp.js';
import { runTurn } from './turn-runner.js';
import { AGENT_NAME, VERSION } from './version.js';

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
}

/** The agent app plus the handles the CLI needs for shutdown. */
export interface OpenAIAgent {
  app: AgentApp;
  sessions: SessionManager;
}

const cancelParams = z.object({ sessionId: z.string() }).passthrough();
const setModelParams = z.object({ sessionId: z.string(), modelId: z.string() }).passthrough();

/** `-32002` with `{sessionId}`: the session is not known to this process. */
export function sessionNotFound(sessionId: string): RequestError {
  return new RequestError(-32002, `Session not found: ${sessionId}`, { sessionId });
}

/** The `initialize` answer: protocol 1, who we are, and only the capabilities we implement. */
export function initializeResponse(): InitializeResponse {
  return {
    protocolVersion: 1,
    agentInfo: { name: AGENT_NAME, title: 'OpenAI-compatible (openai-acp)', version: VERSION },
    agentCapabilities: {
      loadSession: false,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
    },
    authMethods: [],
  };
}

/** Build the ACP agent app. Connect it with `app.connect(stream)`. */
export function createOpenAIAgent(options: AgentOptions): OpenAIAgent {
  const { config, logger } = options;
  const sessions = new SessionManager();
  const { client, catalog } = createEndpoint(config, {
    logger,
    fetch: options.fetch,
    modelsTimeoutMs: options.modelsTimeoutMs,
    // An invalid configuration sends nothing anywhere, not even a model list request.
    enabled: !options.configError,
  });
  const picker = new ModelPicker();
  const configProblem = options.configError
    ? `openai-acp is not configured correctly, so nothing was sent to the model:\n${describeConfigProblems(options.configError.problems)}\nFix the setting (environment, .env file or flags) and restart the agent.`
    : undefined;

  const requireSession = (sessionId: string): Session => {
    const session = sessions.get(sessionId);
    if (!session) throw sessionNotFound(sessionId);
    return session;
  };
  const cancel = (sessionId: string) => {
    if (sessions.cancel(sessionId)) logger.debug('turn cancelled', { sessionId });
  };

  const app = agent({ name: AGENT_NAME })
    .onRequest('initialize', () => {
      void catalog.list(); // start fetching the model list early; session/new awaits it
      return initializeResponse();
    })
    .onRequest('session/new', async ({ params }) => {
      const models = await catalog.list();
      const session = sessions.create(params.cwd, config.model);
      picker.attach(session, models);
      logger.debug('session created', { sessionId: session.id, cwd: params.cwd, models: models.length });
      // `models` is the legacy picker (not in the schema); responses are not validated, so it passes through.
      const response = { sessionId: session.id, configOptions: picker.configOptions(session), models: picker.legacyModels(session) };
      return response;
    })
    .onRequest('session/set_config_option', ({ params }) => {
      const session = requireSession(params.sessionId);
      if (params.configId !== MODEL_CONFIG_ID) {
        throw RequestError.invalidParams({ configId: params.configId }, `Unknown config option ${JSON.stringify(params.configId)}; valid: ${MODEL_CONFIG_ID}`);
      }
      picker.select(session, params.value);
      logger.debug('model selected', { sessionId: session.id, model: session.model });
      return { configOptions: picker.configOptions(session) };
    })
    // Legacy model selection (Open Design's fallback, acp-ai-provider, acp-factory).
    .onRequest('session/set_model', setModelParams, ({ params }) => {
      const session = requireSession(params.sessionId);
      picker.select(session, params.modelId);
      logger.debug('model selected', { sessionId: session.id, model: session.model });
      return {};
    })
    .onRequest('session/prompt', async (ctx) => {
      const session = requireSession(ctx.params.sessionId);
      const send = makeSender(ctx.client, session.id);
      if (configProblem) {
        await send([agentText(configProblem)]);
        return withError({ stopReason: 'end_turn' }, { kind: 'config', retryable: false });
      }
      const userMessage: ChatMessage = { role: 'user', content: promptToUserContent(ctx.params.prompt) };
      return sessions.runTurn(
        session,
        async (signal) => {
          if (signal.aborted) return { stopReason: 'cancelled' } satisfies PromptResponse;
          const messages: ChatMessage[] = [];
          if (config.systemPrompt) messages.push({ role: 'system', content: config.systemPrompt });
          messages.push(...session.history, userMessage);
          const outcome = await runTurn({
            client,
            request: { model: session.model, messages, maxTokens: config.maxTokens, temperature: config.temperature },
            signal,
            send,
            contextWindow: config.contextWindow ?? picker.contextWindow(session),
            logger,
          });
          // A failed turn with nothing shown leaves no trace, so asking again does not repeat the question.
          if (!outcome.error || outcome.text) {
            session.history.push(userMessage);
            if (outcome.text) session.history.push({ role: 'assistant', content: outcome.text });
          }
          const response: PromptResponse = { stopReason: outcome.stopReason };
          if (outcome.usage) response.usage = outcome.usage;
          return outcome.error ? withError(response, outcome.error) : response;
        },
        ctx.signal,
      );
    })
    .onNotification('session/cancel', ({ params }) => cancel(params.sessionId))
    // Open Design sends session/cancel as a request with an id; it gets `{}` back.
    .onRequest('session/cancel', cancelParams, ({ params }) => {
      cancel(params.sessionId);
      return {};
    });
  return { app, sessions };
}

function withError(response: PromptResponse, error: object): PromptResponse {
  return { ...response, _meta: { ...(response._meta ?? {}), [AGENT_NAME]: { error } } };
}

function makeSender(client: AgentContext, sessionId: string) {
  return async (updates: SessionUpdate[]) => {
    for (const update of updates) await client.notify('session/update', { sessionId, update });
  };
}
