/**
 * `openai-acp serve`: the agent built as for stdio (same configuration, endpoints, session store),
 * served over the network on ACP's Streamable HTTP & WebSocket transport
 * (`serve/network-server.lazy.ts`, loaded only here). Runs until SIGINT or SIGTERM, then drains:
 * `/ready` fails, running turns answer `cancelled` and are saved, those answers go out, connections
 * close, the sessions' leases are given back. A second signal waits for the same drain.
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createOpenAIAgent } from '../acp/agent.js';
import { isLoopbackHost } from '../agentconnect/gate.js';
import { tokenProblem } from '../agentconnect/front-door-flags.js';
import type { CliFlags } from '../config/config.js';
import { agentConfigDir } from '../config/config-file.js';
import { applySecretFiles, secretFilePaths, takeSecretsFromEnvironment } from '../config/secret-files.js';
import { chooseEndpoints } from '../endpoints/endpoint-choice.js';
import { listOf, type ServeFlags } from '../serve/serve-flags.js';
import { type OperatorAllowances, parseRange } from '../tools/index.js';
import { openSessionStore } from '../sessions/session-store.js';
import { configureToolProcesses, hideFromToolProcesses, sandboxReport } from '../tools/index.js';
import { VERSION } from '../shared/version.js';
import { startAgentLogging } from './agent-logging.js';
import { ConnectionLog } from '../serve/connection-log.js';

/** The environment variable that may hold the token instead of `--token` (kept out of `ps`), or `<it>_FILE` a file holding it. */
const TOKEN_VARIABLE = 'OPENAI_ACP_SERVE_TOKEN';
/** The environment variables adding to `--allow-mcp` and `--allow-private-urls` (a deployment's list). */
const ALLOW_MCP_VARIABLE = 'OPENAI_ACP_SERVE_ALLOW_MCP';
const ALLOW_PRIVATE_VARIABLE = 'OPENAI_ACP_SERVE_ALLOW_PRIVATE_URLS';

/**
 * What the operator lets clients point the agent at: the flags' lists and the environment's
 * together; a range that is not one goes to `problems`. Pure.
 */
function operatorAllowances(serve: Pick<ServeFlags, 'allowMcp' | 'allowPrivateUrls'>, env: NodeJS.ProcessEnv, problems: string[]): OperatorAllowances {
  const mcpCommands = [...(serve.allowMcp ?? []), ...listOf(env[ALLOW_MCP_VARIABLE] ?? '')];
  const ranges = [...(serve.allowPrivateUrls ?? []), ...listOf(env[ALLOW_PRIVATE_VARIABLE] ?? '')];
  const bad = ranges.find((range) => range.toLowerCase() !== 'all' && parseRange(range) === undefined);
  if (bad !== undefined)
    problems.push(
      `--allow-private-urls (or ${ALLOW_PRIVATE_VARIABLE}) takes "all" or addresses and ranges such as 10.0.0.0/8,127.0.0.1, not ${JSON.stringify(bad.slice(0, 40))}`,
    );
  const all = ranges.some((range) => range.toLowerCase() === 'all');
  return { mcpCommands, addresses: { privateRanges: all ? 'all' : ranges.filter((range) => parseRange(range) !== undefined) } };
}

/** Longest wait for running turns to answer `cancelled` (and be saved) at shutdown, in ms. */
const SHUTDOWN_GRACE_MS = 5_000;
/** How long no message goes to any client before the connections close at shutdown, in ms. */
const QUIET_MS = 200;

/**
 * The lines a person starting `serve` reads, written to stderr whatever the log level: a warning
 * when it listens beyond this machine, and where it listens (both URLs). Pure.
 * @internal the tests read the warning from it: binding a non-loopback address is outside a test's reach.
 */
export function serveStartLines(server: { url: string; host: string }): string[] {
  const where = `openai-acp serve on ${server.url} (WebSocket ${server.url.replace(/^http/, 'ws')}); Ctrl-C stops it.`;
  if (isLoopbackHost(server.host)) return [where];
  return [
    `openai-acp serve: listening beyond this machine (${server.host}): anyone who can reach the port and holds the token can use the model and the tools`,
    where,
  ];
}

/** The workspace root as a real directory path, or why it cannot be one. */
function workspaceRoot(given: string | undefined, cwd: string): { root: string } | { problem: string } {
  const path = resolve(cwd, given ?? '.');
  try {
    if (!statSync(path).isDirectory()) return { problem: `--root ${path} is not a directory` };
    return { root: realpathSync(path) };
  } catch (error) {
    return { problem: `--root ${path} cannot be used (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}

/**
 * Serves until a signal; resolves with the exit code: 0 after a signal, 1 when the port cannot be
 * listened on, 2 for settings that cannot serve (a bad root, an address beyond loopback without a
 * token, a token file that cannot be read).
 * The agent's secrets are taken out of `options.env` (the live environment) first; tool processes
 * get neither them nor look-alikes, and run sandboxed where bubblewrap can (`OPENAI_ACP_SANDBOX`).
 */
export async function runServe(options: { flags: CliFlags; serve: ServeFlags; env: NodeJS.ProcessEnv }): Promise<number> {
  const { serve } = options;
  const withToken = applySecretFiles(takeSecretsFromEnvironment(options.env), undefined, [TOKEN_VARIABLE]);
  const env = withToken.env as NodeJS.ProcessEnv;
  const fromEnv = env[TOKEN_VARIABLE]?.trim();
  const token = serve.token ?? (fromEnv ? fromEnv : undefined);
  const problems: string[] = withToken.problems.map((problem) => `${problem.variable} ${problem.problem}`);
  if (serve.token === undefined && fromEnv) {
    const problem = tokenProblem(fromEnv);
    if (problem) problems.push(problem.replace('--token', TOKEN_VARIABLE));
  }
  if (!isLoopbackHost(serve.host) && token === undefined)
    problems.push(`--host ${serve.host} serves beyond this machine, so a token is required: set ${TOKEN_VARIABLE} (or --token)`);
  const allowances = operatorAllowances(serve, env, problems);
  const root = workspaceRoot(serve.root, process.cwd());
  if ('problem' in root) problems.push(root.problem);
  if (problems.length > 0 || 'problem' in root) {
    process.stderr.write(`openai-acp serve: ${problems.join('; ')}. Run openai-acp serve --help for usage.\n`);
    return 2;
  }

  const { resolved, logger, secrets } = startAgentLogging({ flags: options.flags, env, extraSecrets: token ? [token] : [] });
  // Lines written in a connection's work (the agent's and the SDK's server's) carry its client's address.
  const connectionLog = new ConnectionLog();
  configureToolProcesses(resolved.config, {
    serve: true,
    secretValues: secrets,
    hidden: [agentConfigDir(env), ...secretFilePaths(env)],
  });
  const sandbox = sandboxReport();
  if (sandbox?.ok) logger.info(sandbox.text);
  else if (sandbox) logger.warn(sandbox.text);
  const store = openSessionStore({ stateDir: resolved.config.stateDir, env, logger });
  void store.then((opened) => hideFromToolProcesses([opened.dir]));
  const agent = createOpenAIAgent({
    config: resolved.config,
    configError: resolved.configError,
    logger: connectionLog.logger(logger),
    endpoints: () => chooseEndpoints(resolved, logger),
    store,
    configDir: agentConfigDir(env),
    root: root.root,
    allowances,
    collectWhenQuiet: true,
  });
  const { startNetworkServer } = await import('../serve/network-server.lazy.js');
  const { host, port, allowOrigins, limits } = serve;
  let server: Awaited<ReturnType<typeof startNetworkServer>>;
  try {
    server = await startNetworkServer({
      agent,
      host,
      port,
      token,
      allowOrigins,
      limits,
      logger,
      connectionLog,
      notReady: () => (resolved.configError ? 'the configuration is invalid (see the log)' : undefined),
      storeDir: async () => (await store).dir,
    });
  } catch (error) {
    logger.error(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
    return 1;
  }
  logger.info(`openai-acp ${VERSION} serving ACP on ${server.url}`, {
    root: root.root,
    origins: allowOrigins.join(' ') || 'none (no browser page)',
    token: token ? 'required' : 'none',
    stdioMcp: allowances.mcpCommands.join(' ') || 'none (--allow-mcp)',
    privateUrls: allowances.addresses.privateRanges === 'all' ? 'all' : allowances.addresses.privateRanges.join(' ') || 'none (--allow-private-urls)',
    sessions: (await store).dir ?? 'in memory',
  });
  // Said at every log level: who can reach it, and where.
  for (const line of serveStartLines({ url: server.url, host })) process.stderr.write(`${line}\n`);
  process.on('uncaughtException', (error) => logger.error('uncaught exception', { error: error.stack ?? String(error) }));
  process.on('unhandledRejection', (error) => logger.error('unhandled rejection', { error: (error as Error)?.stack ?? String(error) }));

  return new Promise<number>((done) => {
    let stopping = false;
    const stop = async (why: string) => {
      if (stopping) {
        logger.info(`${why} again: still stopping (running turns answer cancelled first)`);
        return;
      }
      stopping = true;
      logger.info(`stopping: ${why}`);
      // Turns first, so their `cancelled` answers and saved records go out before the connections close.
      server.drain();
      const settle = () => Promise.race([agent.sessions.cancelAll(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref())]);
      await settle();
      // The answers are on their way through the connections' queues: out before the sockets close.
      await server.quiet(QUIET_MS, 2_000);
      await server.close();
      // A prompt that came on an open connection while the first turns settled is cancelled and saved too.
      await settle();
      await Promise.race([agent.tools.closeAll(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      // Another replica sharing the state directory may take these sessions now.
      (await store).close();
      done(0);
    };
    // Every signal, not once: a second one waits for the same drain instead of killing the process mid-drain.
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
  });
}
