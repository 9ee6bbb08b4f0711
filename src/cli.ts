#!/usr/bin/env node
/**
 * The `openai-acp` command: serves ACP on stdio (default, or `openai-acp acp`), or prints its
 * version or help. stdout carries only JSON-RPC; every log line goes to stderr.
 */
import { createOpenAIAgent } from './acp/agent.js';
import { parseCliArgs, type CliFlags } from './cli-args.js';
import { helpText, TTY_NOTICE } from './cli-help.js';
import { describeConfigProblems } from './config/config.js';
import { createLogger } from './shared/log.js';
import { resolveEndpoint } from './config/providers.js';
import { agentConfigDir } from './config/config-file.js';
import { secretFilePaths, takeSecretsFromEnvironment } from './config/secret-files.js';
import { resolveStaticConfig, secretsOfAll } from './endpoints/runtime-config.js';
import { chooseEndpoints } from './endpoints/endpoint-choice.js';
import { openSessionStore } from './sessions/session-store.js';
import { addToolSecrets, configureToolProcesses, hideFromToolProcesses, sandboxReport } from './tools/index.js';
import { withBusRouting } from './transport/stdio-bus.js';
import { withoutMalformedOptionals } from './transport/lenient-params.js';
import { ndJsonTransport } from './transport/ndjson-transport.js';
import { VERSION } from './shared/version.js';

// Anything that prints with console.log must not corrupt the JSON-RPC stream.
console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);

/** Longest wait for running turns to answer `cancelled` at shutdown, in ms. */
const SHUTDOWN_GRACE_MS = 500;
/** Longest wait for MCP servers to stop at shutdown, in ms. */
const MCP_CLOSE_GRACE_MS = 2_000;

async function serve(flags: CliFlags): Promise<void> {
  // The agent's secrets leave the live environment; the configuration is resolved from this copy.
  const env = takeSecretsFromEnvironment();
  const resolve = () => resolveStaticConfig({ flags, env, cwd: process.cwd() });
  const resolved = resolve();
  const { config, configError } = resolved;
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, secrets: secretsOfAll(resolved) });
  configureToolProcesses(config, { serve: false, secretValues: secretsOfAll(resolved), hidden: [agentConfigDir(env), ...secretFilePaths(env)] });
  const sandbox = sandboxReport();
  if (sandbox?.ok) logger.info(sandbox.text);
  else if (sandbox) logger.warn(sandbox.text);
  // Started by hand in a terminal: say what this is for, in one line, and keep serving.
  if (process.stdin.isTTY) process.stderr.write(`${TTY_NOTICE}\n`);
  for (const problem of configError?.problems ?? []) {
    logger.error(`invalid configuration (every prompt will explain it): ${describeConfigProblems([problem])}`);
  }
  for (const warning of resolved.warnings) logger.warn(warning);
  logger.info(`openai-acp ${VERSION} serving ACP on stdio`, {
    // The URL requests really go to (the provider profile may add a default query, e.g. Azure's api-version).
    endpoints:
      resolved.endpoints.map((e) => `${e.id}=${resolveEndpoint(e).chatUrl}`).join(' ') || (resolved.needsDiscovery ? 'looking for a local server' : 'none'),
    model: resolved.model ?? 'none',
    ...(resolved.configFilePath ? { configFile: resolved.configFilePath } : {}),
  });

  const store = openSessionStore({ stateDir: config.stateDir, env, logger });
  void store.then((opened) => hideFromToolProcesses([opened.dir]));
  const { app, sessions, tools } = createOpenAIAgent({
    config,
    configError,
    logger,
    // The local server search (at most LOCAL_PROBE_TIMEOUT_MS, 2 s) starts after the initialize answer; session/new awaits it.
    endpoints: () => chooseEndpoints(resolved, logger),
    store,
    configDir: agentConfigDir(env),
    collectWhenQuiet: true,
    // authenticate (after `openai-acp setup`): the same resolution as at start, local search included.
    reload: async () => {
      const next = resolve();
      logger.addSecrets?.(secretsOfAll(next));
      addToolSecrets(secretsOfAll(next));
      return { config: next.config, configError: next.configError, endpoints: await chooseEndpoints(next, logger) };
    },
  });
  // Our own NDJSON framing: every bad line is answered and logged, and the agent keeps serving.
  const transport = ndJsonTransport(process.stdout, process.stdin, { logger });
  // A client's malformed optional field (agentgui's string `systemPrompt`) is dropped with a debug line, not refused.
  const lenient = (message: Record<string, unknown>) => {
    const { message: kept, dropped } = withoutMalformedOptionals(message);
    if (dropped.length > 0) logger.debug('ignored a malformed optional field', { method: message['method'], fields: dropped.join(', ') });
    return kept;
  };
  const connection = app.connect(withBusRouting(transport, undefined, lenient));

  let stopping = false;
  const shutdown = async (why: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    logger.debug(`shutting down: ${why}`);
    const grace = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
    // Running turns answer `cancelled`; every MCP server process is stopped (no orphans), which
    // may take longer than the answers (a server that ignores SIGTERM is killed after ~1 s).
    const closing = tools.closeAll();
    await Promise.race([sessions.cancelAll(), grace]);
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, MCP_CLOSE_GRACE_MS).unref())]);
    // Another process sharing the state directory may write these sessions now.
    (await store).close();
    // Let the `cancelled` answers reach stdout before leaving.
    await new Promise((resolve) => setImmediate(resolve));
    process.stdout.write('', () => process.exit(code));
    setTimeout(() => process.exit(code), 200).unref();
  };
  // An end of file is the client's way to say goodbye; a read error is not.
  void connection.closed.then(() => (transport.failure ? shutdown(`stdin failed: ${transport.failure.message}`, 1) : shutdown('stdin closed')));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.on('uncaughtException', (error) => logger.error('uncaught exception', { error: error.stack ?? String(error) }));
  process.on('unhandledRejection', (error) => logger.error('unhandled rejection', { error: (error as Error)?.stack ?? String(error) }));
  // A closed stdout (the client went away) must not kill us with EPIPE mid-shutdown.
  process.stdout.on('error', () => void shutdown('stdout closed'));
}

const command = parseCliArgs(process.argv.slice(2));
switch (command.kind) {
  case 'version':
    process.stdout.write(`${VERSION}\n`);
    break;
  case 'help':
    process.stdout.write(helpText(VERSION, command.topic));
    break;
  case 'error':
    process.stderr.write(`openai-acp: ${command.message}\n`);
    process.exitCode = 2;
    break;
  case 'acp':
    await serve(command.flags);
    break;
  // Terminal subcommands load their modules only when run, so serving ACP never pays for them.
  case 'doctor': {
    const { runDoctor } = await import('./commands/doctor.js');
    exitAfterOutput(await runDoctor({ flags: command.flags, env: process.env, timeoutMs: command.timeoutMs, agentCommand: await agentCommand() }));
    break;
  }
  case 'models': {
    const { runModels } = await import('./commands/models.js');
    exitAfterOutput(await runModels({ flags: command.flags, env: process.env, timeoutMs: command.timeoutMs }));
    break;
  }
  case 'agentconnect': {
    const { runAgentConnect } = await import('./commands/agentconnect.js');
    exitAfterOutput(await runAgentConnect({ flags: command.flags, frontDoor: command.frontDoor, env: process.env }));
    break;
  }
  case 'serve': {
    const { runServe } = await import('./commands/serve.js');
    exitAfterOutput(await runServe({ flags: command.flags, serve: command.serve, env: process.env }));
    break;
  }
  case 'setup': {
    const { runSetup } = await import('./commands/setup.js');
    exitAfterOutput(await runSetup({ env: process.env }));
    break;
  }
}

/** Exits with `code` once stdout has taken everything written (idle keep-alive sockets must not hold the process). */
function exitAfterOutput(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
}

/** How acpx should start this agent in doctor's "Try it" line: see `agentCommandFor`. */
async function agentCommand(): Promise<string> {
  const { realpathSync } = await import('node:fs');
  const { agentCommandFor } = await import('./commands/try-it.js');
  const realpath = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  };
  return agentCommandFor(process.argv[1] ?? '', process.env.PATH, realpath);
}
