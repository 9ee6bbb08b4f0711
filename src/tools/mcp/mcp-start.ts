/**
 * Starting one MCP server within a time limit: loads the lazy SDK chunk (mcp-connect.lazy.ts) on
 * first use, connects, and abandons a start that takes longer than `connectTimeoutMs` or is
 * aborted, closing whatever that start yields later (so no process is left behind).
 */
import type { McpServer } from '@agentclientprotocol/sdk/unstable';
import { loadOnce } from '../../shared/load-once.js';
import type { Logger } from '../../shared/log.js';
import type { ConnectOptions, ConnectOutcome, McpConnection } from './mcp-connection.js';
import { plainMessage, startFailureReason } from './mcp-messages.js';
import { toolSpawn } from '../sandbox/tool-processes.js';

/** Options of {@link startServer}. Times in ms. */
export interface StartOptions
  extends Pick<ConnectOptions, 'cwd' | 'clientInfo' | 'onSpawn' | 'onToolsChanged' | 'onClosed' | 'elicitation' | 'onElicit' | 'addresses'> {
  logger: Logger;
  /** After this the start is abandoned and reported as timed out. */
  connectTimeoutMs: number;
  /** Aborting abandons the start (the session closed); the result is then `{ok: false, reason: 'closed'}`. */
  signal: AbortSignal;
}

/** The outcome of {@link startServer}. `cleanup` settles once a failed or abandoned start left nothing running. */
export type StartResult = { ok: true; connection: McpConnection } | { ok: false; reason: string; cleanup: Promise<unknown> };

/** After an abandoned start, how long its own (more precise) failure reason is awaited. */
const ABANDON_GRACE_MS = 250;

/** The MCP SDK code, loaded when the first session with MCP servers starts one. */
const loadConnect = loadOnce(() => import('./mcp-connect.lazy.js'));

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Loads the lazy chunk and connects. Never rejects. */
async function connect(config: McpServer, options: ConnectOptions): Promise<ConnectOutcome> {
  try {
    const { connectMcpServer } = await loadConnect();
    return await connectMcpServer(config, options);
  } catch (error) {
    return { ok: false, reason: `the MCP client could not be loaded: ${plainMessage(error)}`, cleanup: Promise.resolve() };
  }
}

/**
 * Starts the server `config` and lists its tools. Resolves (never rejects) when it is ready,
 * has failed (`reason` in plain words), or was abandoned: after `connectTimeoutMs` (reason: it
 * timed out) or when `signal` aborts (reason: `closed`).
 */
export async function startServer(config: McpServer, options: StartOptions): Promise<StartResult> {
  const { connectTimeoutMs, signal } = options;
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(new Error('timed out')), connectTimeoutMs);
  deadline.unref();
  const stop = () => abort.abort(new Error('closed'));
  signal.addEventListener('abort', stop, { once: true });
  if (signal.aborted) stop();
  const { logger, cwd, clientInfo, onSpawn, onToolsChanged, onClosed, elicitation, onElicit, addresses } = options;
  const attempt = connect(config, {
    logger,
    cwd,
    clientInfo,
    onSpawn,
    onToolsChanged,
    onClosed,
    elicitation,
    onElicit,
    addresses,
    signal: abort.signal,
    timeoutMs: connectTimeoutMs,
    // Computed here, in the main bundle, where the process-wide policy lives (the lazy chunk has its own module copies).
    prepareStdio: (command, args, env) => {
      const spawn = toolSpawn(command, args, { cwd, writable: [cwd], extraEnv: env });
      return { command: spawn.file, args: spawn.args, env: spawn.env };
    },
  });
  const abandoned = new Promise<'abandoned'>((resolve) => abort.signal.addEventListener('abort', () => resolve('abandoned'), { once: true }));
  let outcome = await Promise.race([attempt, abandoned]);
  // An abandoned stdio start fails fast with a better reason (with the server's stderr): wait a moment for it.
  if (outcome === 'abandoned') outcome = await Promise.race([attempt, delay(ABANDON_GRACE_MS).then(() => 'abandoned' as const)]);
  clearTimeout(deadline);
  signal.removeEventListener('abort', stop);
  if (signal.aborted) {
    return { ok: false, reason: 'closed', cleanup: attempt.then((late) => (late.ok ? late.connection.close() : late.cleanup)) };
  }
  if (outcome === 'abandoned') {
    // Whatever the start yields later is closed at once.
    return {
      ok: false,
      reason: startFailureReason({ timedOutMs: connectTimeoutMs }),
      cleanup: attempt.then((late) => (late.ok ? late.connection.close() : late.cleanup)),
    };
  }
  return outcome;
}
