/**
 * Connects to one MCP server with the official SDK (`@modelcontextprotocol/sdk` 1.32): stdio,
 * Streamable HTTP with a fall-back to SSE, or SSE (through `mcp-fetch.ts` when an address policy
 * is given, so each connection is checked); the client over the transport is
 * `mcp-sdk-client.ts`, loaded with it. The only entry to the SDK; it is a
 * lazy chunk (scripts/lazy-chunks.mjs), imported with `import()` by mcp-start.ts only when a
 * session has MCP servers, so start-up never pays for it.
 *
 * Nothing here throws: a failed start is a `{ok: false, reason}` in plain words. Objects crossing
 * to the main bundle are plain data (this chunk has its own copies of shared modules, so
 * `instanceof` would not work across the boundary).
 */
import type { McpServer } from '@agentclientprotocol/sdk/unstable';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Logger } from '../../shared/log.js';
import type { StartFailure } from './mcp-messages.js';
import { redactUrl, startFailureReason } from './mcp-messages.js';
import { ensureExited } from './mcp-process.js';
import { guardedFetch } from './mcp-fetch.js';
import { liveConnection, startClient } from './mcp-sdk-client.js';
import type { ConnectOptions, ConnectOutcome, McpConnection, McpTransportKind } from './mcp-connection.js';
import { isStdio } from './mcp-allow.js';

/** Last stderr lines kept for a failure message, and their longest kept length. */
const STDERR_TAIL = 5;
const STDERR_LINE = 300;

/** `[{name, value}]` → a plain object (later entries win). */
const toRecord = (pairs: readonly { name: string; value: string }[] | undefined): Record<string, string> =>
  Object.fromEntries((pairs ?? []).map(({ name, value }) => [name, value]));

/** Logs each stderr line of a stdio server at debug and keeps the last few for failure messages. */
function followStderr(transport: StdioClientTransport, server: string, logger: Logger): string[] {
  const tail: string[] = [];
  let partial = '';
  const take = (line: string) => {
    const trimmed = line.replace(/\r$/, '');
    if (trimmed.trim() === '') return;
    logger.debug(`[mcp ${server}] ${trimmed}`);
    tail.push(trimmed.length > STDERR_LINE ? `${trimmed.slice(0, STDERR_LINE)}…` : trimmed);
    if (tail.length > STDERR_TAIL) tail.shift();
  };
  // A PassThrough (stderr: 'pipe'), typed by the SDK as a plain Stream.
  const stream = transport.stderr as Readable | null;
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    lines.forEach(take);
  });
  stream?.on('end', () => take(partial));
  return tail;
}

/** The agent's own credentials, never handed to MCP servers unless their `env` names them. */
const AGENT_SECRETS = /^OPENAI_(API_KEY|HEADERS)(_FILE)?$/;

/**
 * Starts a stdio server in the session cwd: as `options.prepareStdio` says (the environment
 * policy and the sandbox), else with `{...process.env, ...env}` (so PATH and HOME work) without the
 * agent's own key and headers. A refusal of `prepareStdio` is a failed start with its words.
 */
async function connectStdio(
  config: { name: string; command: string; args?: string[]; env?: { name: string; value: string }[] },
  options: ConnectOptions,
): Promise<ConnectOutcome> {
  const { name } = config;
  if (!existsSync(options.cwd)) return failed({ missingCwd: options.cwd }, Promise.resolve());
  let spawn = { command: config.command, args: config.args ?? [], env: toRecord(config.env) };
  if (options.prepareStdio) {
    try {
      spawn = options.prepareStdio(spawn.command, spawn.args, spawn.env);
    } catch (error) {
      return failed({ error }, Promise.resolve());
    }
  } else {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !AGENT_SECRETS.test(key)) env[key] = value;
    spawn.env = Object.assign(env, spawn.env);
  }
  const transport = new StdioClientTransport({ command: spawn.command, args: spawn.args, env: spawn.env, cwd: options.cwd, stderr: 'pipe' });
  const stderrTail = followStderr(transport, name, options.logger);
  let pid: number | undefined;
  options.logger.debug(`MCP server "${name}": starting ${config.command}`, { server: name, args: config.args?.length ?? 0, cwd: options.cwd });
  try {
    const started = await startClient(transport, 'stdio', name, options, () => {
      pid = transport.pid ?? undefined;
      if (pid !== undefined) options.onSpawn?.(pid);
    });
    return { ok: true, connection: liveConnection(started, 'stdio', pid, options) };
  } catch (error) {
    const cleanup = (async () => {
      await transport.close().catch(() => undefined);
      if (pid !== undefined) await ensureExited(pid);
    })();
    return failed({ error, timedOutMs: options.signal.aborted ? options.timeoutMs : undefined, stderrTail }, cleanup);
  }
}

/** Connects over HTTP: Streamable HTTP first, then SSE (for servers that only speak the old transport). */
async function connectHttp(
  config: { name: string; url: string; headers?: { name: string; value: string }[] },
  sseOnly: boolean,
  options: ConnectOptions,
): Promise<ConnectOutcome> {
  const { name } = config;
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    return failed({ error: new Error(`the URL ${redactUrl(config.url)} is not valid`) }, Promise.resolve());
  }
  // Header values are secrets (tokens): they go to the transport, never to a log, and under a
  // policy only over a connection to an address it allows.
  const requestInit = { headers: toRecord(config.headers) };
  const fetch = options.addresses ? { fetch: guardedFetch(options.addresses) } : {};
  const where = redactUrl(config.url);
  /** One transport: the connection, or what it threw (the transport closed). */
  const over = async (transport: Transport, kind: McpTransportKind): Promise<{ ok: true; connection: McpConnection } | { ok: false; error: unknown }> => {
    closeOnAbort(transport, options.signal);
    try {
      return { ok: true, connection: liveConnection(await startClient(transport, kind, name, options), kind, undefined, options) };
    } catch (error) {
      await transport.close().catch(() => undefined);
      return { ok: false, error };
    }
  };
  let httpError: unknown;
  if (!sseOnly) {
    options.logger.debug(`MCP server "${name}": connecting to ${where} (Streamable HTTP)`, { server: name });
    const streamable = await over(new StreamableHTTPClientTransport(url, { requestInit, ...fetch }), 'streamable-http');
    if (streamable.ok) return streamable;
    if (options.signal.aborted) return failed({ error: streamable.error, timedOutMs: options.timeoutMs }, Promise.resolve());
    httpError = streamable.error;
    options.logger.debug(`MCP server "${name}": Streamable HTTP failed, trying SSE`, { server: name, error: String(httpError) });
  }
  const sse = await over(new SSEClientTransport(url, { requestInit, ...fetch }), 'sse');
  if (sse.ok) return sse;
  const { error } = sse;
  if (options.signal.aborted) return failed({ error, timedOutMs: options.timeoutMs }, Promise.resolve());
  if (httpError === undefined) return failed({ error }, Promise.resolve());
  const both = `${where}: Streamable HTTP: ${startFailureReason({ error: httpError })}; SSE: ${startFailureReason({ error })}`;
  return failed({ error: new Error(both) }, Promise.resolve());
}

/** An abandoned start also stops a transport still opening (the SDK's `start()` takes no signal). */
function closeOnAbort(transport: Transport, signal: AbortSignal): void {
  signal.addEventListener('abort', () => void transport.close().catch(() => undefined), { once: true });
}

/** A failed outcome with its reason in plain words. */
function failed(failure: StartFailure, cleanup: Promise<void>): ConnectOutcome {
  return { ok: false, reason: startFailureReason(failure), cleanup };
}

/**
 * Connects to one server of a session's `mcpServers` and lists its tools. stdio: no `type` or
 * `type: "stdio"`; `type: "http"`: Streamable HTTP, falling back to SSE when that fails;
 * `type: "sse"`: SSE. Other types (ACP's `acp`) are reported as unsupported. Never rejects: a
 * failure is `{ok: false, reason}` with the reason in plain words (without the server's name).
 */
export async function connectMcpServer(config: McpServer | (McpServer & { type?: string }), options: ConnectOptions): Promise<ConnectOutcome> {
  const type = 'type' in config ? config.type : undefined;
  try {
    if (isStdio(config)) return await connectStdio(config as Parameters<typeof connectStdio>[0], options);
    if (type === 'http' || type === 'sse') return await connectHttp(config as Parameters<typeof connectHttp>[0], type === 'sse', options);
    return failed({ error: new Error(`its transport "${String(type)}" is not supported (use stdio, http or sse)`) }, Promise.resolve());
  } catch (error) {
    // A bug or an unexpected throw (e.g. a malformed entry): still a failed start, not a crash.
    return failed({ error }, Promise.resolve());
  }
}
