/**
 * `openai-acp agentconnect`: the agent built as for ACP (same configuration, endpoints, session
 * store), served to AgentConnect apps through the WebSocket front door
 * (`agentconnect/front-door.lazy.ts`, loaded only here). Runs until SIGINT or SIGTERM.
 */
import { applySecretFiles, secretFilePaths, takeSecretsFromEnvironment } from '../config/secret-files.js';
import { configureToolProcesses, hideFromToolProcesses } from '../tools/index.js';
import { client } from '@agentclientprotocol/sdk/unstable';
import { createOpenAIAgent } from '../acp/agent.js';
import type { FrontDoorFlags } from '../agentconnect/front-door-flags.js';
import { isLoopbackHost } from '../agentconnect/gate.js';
import type { CliFlags } from '../config/config.js';
import { agentConfigDir } from '../config/config-file.js';
import { chooseEndpoints } from '../endpoints/endpoint-choice.js';
import { redactText } from '../shared/redact.js';
import { openSessionStore } from '../sessions/session-store.js';
import { VERSION } from '../shared/version.js';
import { startAgentLogging } from './agent-logging.js';

/** The environment variable that may hold the token instead of `--token` (kept out of `ps`). */
const TOKEN_VARIABLE = 'OPENAI_ACP_AGENTCONNECT_TOKEN';

/**
 * The lines a person starting the front door reads, written to stderr whatever the log level
 * (`OPENAI_ACP_LOG=error` included): where it listens, and a warning when that is beyond this
 * machine (with the advice to set a token when none is). Pure.
 * @internal the tests read the warning from it: binding a non-loopback address is outside a test's reach.
 */
export function startLines(door: { url: string; host: string; mode: string; token: boolean }): string[] {
  const lines = [`AgentConnect front door on ${door.url} (mode ${door.mode}); Ctrl-C stops it.`];
  if (!isLoopbackHost(door.host))
    lines.push(`Warning: listening beyond this machine (${door.host}): anyone who can reach the port can use the model${door.token ? '' : ' (set --token)'}.`);
  return lines;
}

/** Serves until a signal; resolves with the exit code (1 when the port cannot be listened on). */
export async function runAgentConnect(options: { flags: CliFlags; frontDoor: FrontDoorFlags; env: NodeJS.ProcessEnv }): Promise<number> {
  // The agent's secrets leave the live environment; `<token variable>_FILE` may hold the token.
  const withToken = applySecretFiles(takeSecretsFromEnvironment(options.env), undefined, [TOKEN_VARIABLE]);
  const env = withToken.env as NodeJS.ProcessEnv;
  for (const problem of withToken.problems) process.stderr.write(`openai-acp agentconnect: ${problem.variable} ${problem.problem}\n`);
  const fromEnv = env[TOKEN_VARIABLE]?.trim();
  const token = options.frontDoor.token ?? (fromEnv ? fromEnv : undefined);
  const { resolved, logger, secrets } = startAgentLogging({ flags: options.flags, env, extraSecrets: token ? [token] : [] });
  const { config, configError } = resolved;
  configureToolProcesses(config, { serve: false, secretValues: secrets, hidden: [agentConfigDir(env), ...secretFilePaths(env)] });

  const store = openSessionStore({ stateDir: config.stateDir, env, logger });
  void store.then((opened) => hideFromToolProcesses([opened.dir]));
  const agent = createOpenAIAgent({
    config,
    configError,
    logger,
    endpoints: () => chooseEndpoints(resolved, logger),
    store,
    configDir: agentConfigDir(env),
    collectWhenQuiet: true,
  });
  const { serveAgentConnect } = await import('../agentconnect/front-door.lazy.js');
  const { host, port, mode, allowOrigins } = options.frontDoor;
  let door: Awaited<ReturnType<typeof serveAgentConnect>>;
  try {
    door = await serveAgentConnect({
      agent,
      client,
      catalog: agent.catalog,
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
  logger.info(`openai-acp ${VERSION} serving AgentConnect on ${door.url}`, {
    mode,
    origins: allowOrigins.join(' ') || 'none (no browser page)',
    token: token ? 'required' : 'none',
  });
  for (const line of startLines({ url: door.url, host, mode, token: token !== undefined })) process.stderr.write(`${line}\n`);

  return new Promise<number>((done) => {
    let stopping = false;
    const stop = async (why: string) => {
      if (stopping) return;
      stopping = true;
      logger.debug(`shutting down: ${why}`);
      await door.close();
      await Promise.race([agent.sessions.cancelAll(), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
      await Promise.race([agent.tools.closeAll(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      (await store).close();
      done(0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}
