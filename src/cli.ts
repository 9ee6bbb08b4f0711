#!/usr/bin/env node
/**
 * The `openai-acp` command: serves ACP on stdio (default, or `openai-acp acp`), or prints its
 * version or help. stdout carries only JSON-RPC; every log line goes to stderr.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk/unstable';
import { createOpenAIAgent } from './agent.js';
import { helpText, parseCliArgs, type CliFlags } from './cli-args.js';
import { ConfigError, describeConfigProblems, loadConfig, mergeDotEnv, secretsOf, type Config } from './config.js';
import { createLogger } from './log.js';
import { withBusRouting } from './stdio-bus.js';
import { VERSION } from './version.js';

// Anything that prints with console.log must not corrupt the JSON-RPC stream.
console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);

/** Longest wait for running turns to answer `cancelled` at shutdown, in ms. */
const SHUTDOWN_GRACE_MS = 500;

function readDotEnv(): string | undefined {
  try {
    return existsSync('.env') ? readFileSync('.env', 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

function resolveConfig(flags: CliFlags): { config: Config; configError?: ConfigError } {
  const env = mergeDotEnv(readDotEnv(), process.env);
  try {
    return { config: loadConfig(env, flags) };
  } catch (error) {
    if (error instanceof ConfigError) return { config: error.fallback, configError: error };
    throw error;
  }
}

async function serve(flags: CliFlags): Promise<void> {
  const { config, configError } = resolveConfig(flags);
  const logger = createLogger({ level: config.logLevel, secrets: secretsOf(config) });
  for (const problem of configError?.problems ?? []) {
    logger.error(`invalid configuration (every prompt will explain it): ${describeConfigProblems([problem])}`);
  }
  logger.info(`openai-acp ${VERSION} serving ACP on stdio`, {
    endpoint: config.chatCompletionsUrl,
    model: config.model,
    apiKey: config.apiKey ? 'set' : 'not set',
  });

  const { app, sessions } = createOpenAIAgent({ config, configError, logger });
  const stream = withBusRouting(
    ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>),
  );
  const connection = app.connect(stream);

  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    logger.debug(`shutting down: ${why}`);
    const grace = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
    await Promise.race([sessions.cancelAll(), grace]);
    // Let the `cancelled` answers reach stdout before leaving.
    await new Promise((resolve) => setImmediate(resolve));
    process.stdout.write('', () => process.exit(0));
    setTimeout(() => process.exit(0), 200).unref();
  };
  void connection.closed.then(() => shutdown('stdin closed'));
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
    process.stdout.write(helpText(VERSION));
    break;
  case 'error':
    process.stderr.write(`openai-acp: ${command.message}\n`);
    process.exitCode = 2;
    break;
  case 'acp':
    await serve(command.flags);
    break;
}
