/**
 * `openai-acp agentconnect`: the agent built as for ACP (same configuration, endpoints, session
 * store), served to AgentConnect apps through the WebSocket front door
 * (`agentconnect/front-door.lazy.ts`, loaded only here). Runs until SIGINT or SIGTERM.
 */
import { client } from '@agentclientprotocol/sdk/unstable';
import { createOpenAIAgent } from '../acp/agent.js';
import type { FrontDoorFlags } from '../agentconnect/front-door-flags.js';
import { isLoopbackHost } from '../agentconnect/gate.js';
import type { CliFlags } from '../config/config.js';
import { agentConfigDir } from '../config/config-file.js';
import { chooseEndpoints } from '../endpoints/runtime-config.js';
import { redactText } from '../redact.js';
import { openSessionStore } from '../sessions/session-store.js';
import { startAgentLogging } from './agent-logging.js';
import { VERSION } from '../version.js';

/** The environment variable that may hold the token instead of `--token` (kept out of `ps`). */
const TOKEN_VARIABLE = 'OPENAI_ACP_AGENTCONNECT_TOKEN';

/** Serves until a signal; resolves with the exit code (1 when the port cannot be listened on). */
export async function runAgentConnect(options: { flags: CliFlags; frontDoor: FrontDoorFlags; env: NodeJS.ProcessEnv }): Promise<number> {
  const fromEnv = options.env[TOKEN_VARIABLE]?.trim();
  const token = options.frontDoor.token ?? (fromEnv ? fromEnv : undefined);
  const { resolved, logger, secrets } = startAgentLogging({ flags: options.flags, env: options.env, extraSecrets: token ? [token] : [] });
  const { config, configError } = resolved;

  const store = openSessionStore({ stateDir: config.stateDir, env: options.env, logger });
  const { app, sessions, tools, catalog } = createOpenAIAgent({
    config,
    configError,
    logger,
    endpoints: () => chooseEndpoints(resolved, logger),
    store,
    configDir: agentConfigDir(options.env),
  });
  const { serveAgentConnect } = await import('../agentconnect/front-door.lazy.js');
  const { host, port, mode, allowOrigins } = options.frontDoor;
  let door: Awaited<ReturnType<typeof serveAgentConnect>>;
  try {
    door = await serveAgentConnect({
      agent: app,
      client,
      catalog,
      host,
      port,
      mode,
      allowOrigins,
      token,
      version: VERSION,
      cwd: process.cwd(),
      logger,
      redact: (text) => redactText(text, secrets),
    });
  } catch (error) {
    logger.error(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
    return 1;
  }
  if (!isLoopbackHost(host))
    logger.warn(`listening beyond this machine (${host}): anyone who can reach the port can use the model${token ? '' : ' — set --token'}`);
  logger.info(`openai-acp ${VERSION} serving AgentConnect on ${door.url}`, {
    mode,
    origins: allowOrigins.join(' ') || 'none (no browser page)',
    token: token ? 'required' : 'none',
  });
  // The one line a person starting it reads, whatever the log level.
  process.stderr.write(`AgentConnect front door on ${door.url} (mode ${mode}); Ctrl-C stops it.\n`);

  return new Promise<number>((done) => {
    let stopping = false;
    const stop = async (why: string) => {
      if (stopping) return;
      stopping = true;
      logger.debug(`shutting down: ${why}`);
      await door.close();
      await Promise.race([sessions.cancelAll(), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
      await Promise.race([tools.closeAll(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      (await store).close();
      done(0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}
