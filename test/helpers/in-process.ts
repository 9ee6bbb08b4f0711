/**
 * The agent and the SDK's own client app connected in one process (no spawn), for protocol
 * tests that need the real agent wiring but not the CLI.
 */
import { client, type ClientContext, type SessionNotification } from '@agentclientprotocol/sdk/unstable';
import { createOpenAIAgent } from '../../src/acp/agent.js';
import type { AgentOptions } from '../../src/app/agent-state.js';
import { loadConfig } from '../../src/config/load-config.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { createLogger } from '../../src/shared/log.js';

export interface InProcess {
  agent: ClientContext;
  notifications: SessionNotification[];
  text(sessionId: string): string;
  thoughts(sessionId: string): string;
  newSession(): Promise<string>;
  close(): void;
}

/** Build a Config the way the CLI would, from `env`. */
export function testConfig(env: Record<string, string>) {
  return loadConfig({ OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'test-model', OPENAI_MAX_RETRIES: '0', ...env });
}

/** Connect a fresh agent to an in-process SDK client and run `initialize`. */
export async function connectInProcess(env: Record<string, string>, extra: Partial<AgentOptions> = {}): Promise<InProcess> {
  const notifications: SessionNotification[] = [];
  const logger = createLogger({ level: 'error', write: () => undefined });
  const { app } = createOpenAIAgent({ config: testConfig(env), logger, ...extra });
  const connection = client()
    .onNotification('session/update', ({ params }) => {
      notifications.push(params);
    })
    .connect(app);
  const agent = connection.agent;
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const collect = (sessionId: string, kind: string) =>
    notifications
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
      .map((n) => (n.update as { content: { text: string } }).content.text)
      .join('');
  return {
    agent,
    notifications,
    text: (sessionId) => collect(sessionId, 'agent_message_chunk'),
    thoughts: (sessionId) => collect(sessionId, 'agent_thought_chunk'),
    newSession: async () => (await agent.request('session/new', { cwd: process.cwd(), mcpServers: [] })).sessionId,
    close: () => connection.close(),
  };
}

/**
 * An agent saving its sessions in `stateDir` (so a second one on the same folder is a restart),
 * its client answering every permission request with `optionId(options)`; `close` ends the
 * connection. Initialized.
 */
export async function agentOnStore(input: { baseUrl: string; stateDir: string; optionId: (options: { optionId: string }[]) => string }) {
  const quiet = createLogger({ level: 'error', write: () => undefined });
  const { app } = createOpenAIAgent({
    config: testConfig({ OPENAI_BASE_URL: input.baseUrl }),
    logger: quiet,
    store: openSessionStore({ stateDir: input.stateDir, env: {}, logger: quiet }),
  });
  const connection = client()
    .onNotification('session/update', () => undefined)
    .onRequest('session/request_permission', ({ params }) => ({ outcome: { outcome: 'selected', optionId: input.optionId(params.options) } }))
    .connect(app);
  await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return { agent: connection.agent, close: () => connection.close() };
}
