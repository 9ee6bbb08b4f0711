/**
 * Connects to one MCP server with the official SDK (`@modelcontextprotocol/sdk` 1.32): stdio,
 * Streamable HTTP with a fall-back to SSE, or SSE. The only module that loads the SDK; it is a
 * lazy chunk (scripts/lazy-chunks.mjs), imported with `import()` by mcp-start.ts only when a
 * session has MCP servers, so start-up never pays for it.
 *
 * Nothing here throws: a failed start is a `{ok: false, reason}` in plain words. Objects crossing
 * to the main bundle are plain data (this chunk has its own copies of shared modules, so
 * `instanceof` would not work across the boundary).
 */
import type { McpServer } from '@agentclientprotocol/sdk/unstable';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Logger } from '../../log.js';
import type { StartFailure } from './mcp-messages.js';
import { redactUrl, startFailureReason } from './mcp-messages.js';
import { ensureExited } from './mcp-process.js';
import { listAllPrompts, listAllTools } from './mcp-lists.js';
import type { McpPromptInfo, McpPromptMessage } from './mcp-prompts.js';
import type { McpToolInfo } from './mcp-tools.js';
import type { ElicitationModes, McpElicitAnswer, McpElicitParams } from './mcp-elicitation.js';

/** Which transport a connection uses. */
export type McpTransportKind = 'stdio' | 'streamable-http' | 'sse';

/** A live connection to one server. */
export interface McpConnection {
  readonly transport: McpTransportKind;
  /** The stdio server's process id; undefined for http/sse. */
  readonly pid: number | undefined;
  /** The server's tools as last listed (refreshed on `notifications/tools/list_changed`). */
  tools(): readonly McpToolInfo[];
  /**
   * `tools/call`. Rejects on timeout (`timeoutMs`), abort (`signal`, with its reason), a closed
   * connection or an output-schema mismatch; the caller turns that into words.
   */
  callTool(tool: string, args: Record<string, unknown>, options: { signal?: AbortSignal; timeoutMs: number }): Promise<CallToolResult | { toolResult: unknown }>;
  /** The server's prompts as last listed (refreshed on `notifications/prompts/list_changed`); empty without the prompts capability. */
  prompts(): readonly McpPromptInfo[];
  /** `prompts/get`: the prompt's messages. Rejects as {@link callTool} does. */
  getPrompt(name: string, args: Record<string, string>, options: { signal?: AbortSignal; timeoutMs: number }): Promise<McpPromptMessage[]>;
  /** Closes the client and transport; for stdio also makes sure the process is gone. Never rejects. */
  close(): Promise<void>;
}

/** Options of {@link connectMcpServer}. */
export interface ConnectOptions {
  /** Working directory of a stdio server: the session cwd. */
  cwd: string;
  logger: Logger;
  /** Aborting abandons the start: the transport is closed and a stdio process killed. */
  signal: AbortSignal;
  /** The SDK's limit for `initialize` and the first `tools/list`, in ms. */
  timeoutMs: number;
  /** `clientInfo` sent in `initialize`. */
  clientInfo: { name: string; version: string };
  /** Called after the tool list changed (the server sent `list_changed` and it was re-listed). */
  onToolsChanged?: () => void;
  /** Called with the process id as soon as a stdio server is spawned. */
  onSpawn?: (pid: number) => void;
  /** Called once if the connection closes after a successful start (crash, dropped connection). */
  onClosed?: () => void;
  /**
   * The elicitation modes to declare in `initialize` (the ACP client's): with `form`, the client
   * declares `elicitation` (`form`, and `url` too when given) and hands each question to
   * {@link onElicit}; without, it declares none and answers a server that asks anyway `decline`.
   */
  elicitation?: ElicitationModes | undefined;
  /** Asks the user a server's question; `signal` aborts when the server cancels its request. */
  onElicit?: (params: McpElicitParams, signal: AbortSignal) => Promise<McpElicitAnswer>;
}

/** The outcome of {@link connectMcpServer}. `cleanup` settles when a failed start left nothing running. */
export type ConnectOutcome = { ok: true; connection: McpConnection } | { ok: false; reason: string; cleanup: Promise<void> };

/** Last stderr lines kept for a failure message, and their longest kept length. */
const STDERR_TAIL = 5;
const STDERR_LINE = 300;

/** `[{name, value}]` → a plain object (later entries win). */
const toRecord = (pairs: readonly { name: string; value: string }[] | undefined): Record<string, string> => Object.fromEntries((pairs ?? []).map(({ name, value }) => [name, value]));

/**
 * The Client's output-schema validator: the SDK's default (`AjvJsonSchemaValidator`, one per
 * Client), created when the Client first asks for it (a listed tool with an `outputSchema`)
 * instead of in the Client's constructor. Building its Ajv instance (~4 ms) then stays off the
 * path to spawning the server, and out of it entirely when no tool has an output schema.
 */
function lazyOutputValidator(): jsonSchemaValidator {
  let validator: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (validator ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

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

/** A started client and its live tool and prompt lists. */
interface Started {
  client: Client;
  tools: () => McpToolInfo[];
  prompts: () => McpPromptInfo[];
}

/** One attempt: connect `transport` with a fresh client and list its tools. Throws what the SDK throws. */
async function attempt(transport: Transport, kind: McpTransportKind, server: string, options: ConnectOptions, onSpawned?: () => void): Promise<Started> {
  const { logger, signal, timeoutMs } = options;
  let tools: McpToolInfo[] = [];
  let prompts: McpPromptInfo[] = [];
  const relistPrompts = (): void => {
    listAllPrompts(client, timeoutMs)
      .then((fresh) => {
        prompts = fresh;
        options.onToolsChanged?.();
      })
      .catch((error: unknown) => logger.warn(`MCP server "${server}": could not list its changed prompts`, { server, error: String(error) }));
  };
  // One re-list at a time; a change announced meanwhile triggers one more afterwards.
  let relisting = false;
  let again = false;
  const relist = (): void => {
    if (relisting) {
      again = true;
      return;
    }
    relisting = true;
    again = false;
    listAllTools(client, timeoutMs)
      .then((fresh) => {
        tools = fresh;
        logger.info(`MCP server "${server}" changed its tools`, { server, tools: fresh.length });
        options.onToolsChanged?.();
      })
      .catch((error: unknown) => logger.warn(`MCP server "${server}": could not list its changed tools`, { server, error: String(error) }))
      .finally(() => {
        relisting = false;
        if (again) relist();
      });
  };
  // autoRefresh is off because the SDK re-lists only the first page; we list every page.
  const modes = options.elicitation;
  const elicitation = modes?.form ? { form: {}, ...(modes.url ? { url: {} } : {}) } : undefined;
  const client: Client = new Client(options.clientInfo, {
    capabilities: elicitation ? { elicitation } : {},
    jsonSchemaValidator: lazyOutputValidator(),
    listChanged: { tools: { autoRefresh: false, debounceMs: 100, onChanged: relist }, prompts: { autoRefresh: false, debounceMs: 100, onChanged: relistPrompts } },
  });
  // A server's question: to the user when declared (and asked in a declared mode), else declined
  // rather than answered "method not found". Through the fallback handler: the SDK's own schemas
  // are built lazily inside this chunk and cannot be imported here (scripts/lazy-schemas.mjs).
  client.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== 'elicitation/create') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const params = (request.params ?? {}) as McpElicitParams;
    const url = params.mode === 'url';
    if (!elicitation || !options.onElicit || (url ? !modes?.url : params.mode !== undefined && params.mode !== 'form') || typeof params.message !== 'string') return { action: 'decline' };
    return options.onElicit(params, extra.signal);
  };
  const connecting = client.connect(transport, { signal, timeout: timeoutMs });
  // The SDK spawns synchronously inside connect(): the pid is known now, before any await.
  onSpawned?.();
  await connecting;
  // A server without the tools capability (prompts or resources only) is ready with no tools.
  if (client.getServerCapabilities()?.tools !== undefined) tools = await listAllTools(client, timeoutMs, signal);
  // Prompts become slash commands; a server that fails to list them still serves its tools.
  if (client.getServerCapabilities()?.prompts !== undefined) prompts = await listAllPrompts(client, timeoutMs, signal).catch(() => []);
  logger.debug(`MCP server "${server}" is ready`, { server, transport: kind, tools: tools.length, prompts: prompts.length });
  return { client, tools: () => tools, prompts: () => prompts };
}

/** A ready connection around a started client. */
function connection(started: Started, kind: McpTransportKind, pid: number | undefined, options: ConnectOptions): McpConnection {
  const { client } = started;
  let closing: Promise<void> | undefined;
  client.onclose = () => {
    if (closing === undefined) options.onClosed?.();
  };
  return {
    transport: kind,
    pid,
    tools: started.tools,
    callTool: (tool, args, { signal, timeoutMs }) => client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: timeoutMs }),
    prompts: started.prompts,
    getPrompt: async (name, args, { signal, timeoutMs }) => (await client.getPrompt({ name, arguments: args }, { signal, timeout: timeoutMs })).messages as McpPromptMessage[],
    close: () => (closing ??= shutDown(client, pid)),
  };
}

/** Closes `client` (and so its transport); for a stdio server, also makes sure `pid` is gone. */
async function shutDown(client: Client, pid: number | undefined): Promise<void> {
  const closed = client.close().catch(() => undefined);
  if (pid === undefined) return closed;
  await ensureExited(pid);
  // After the process is gone the SDK's close resolves at once; the bound guards a stuck stream.
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
}

/** The agent's own credentials, never handed to MCP servers unless their `env` names them. */
const AGENT_SECRETS = /^OPENAI_(API_KEY|HEADERS)(_FILE)?$/;

/**
 * Starts a stdio server: `{...process.env, ...env}` (so PATH and HOME work) without the agent's
 * own key and headers, in the session cwd.
 */
async function connectStdio(config: { name: string; command: string; args?: string[]; env?: { name: string; value: string }[] }, options: ConnectOptions): Promise<ConnectOutcome> {
  const { name } = config;
  if (!existsSync(options.cwd)) return failed({ missingCwd: options.cwd }, Promise.resolve());
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !AGENT_SECRETS.test(key)) env[key] = value;
  Object.assign(env, toRecord(config.env));
  const transport = new StdioClientTransport({ command: config.command, args: config.args ?? [], env, cwd: options.cwd, stderr: 'pipe' });
  const stderrTail = followStderr(transport, name, options.logger);
  let pid: number | undefined;
  options.logger.debug(`MCP server "${name}": starting ${config.command}`, { server: name, args: config.args?.length ?? 0, cwd: options.cwd });
  try {
    const started = await attempt(transport, 'stdio', name, options, () => {
      pid = transport.pid ?? undefined;
      if (pid !== undefined) options.onSpawn?.(pid);
    });
    return { ok: true, connection: connection(started, 'stdio', pid, options) };
  } catch (error) {
    const cleanup = (async () => {
      await transport.close().catch(() => undefined);
      if (pid !== undefined) await ensureExited(pid);
    })();
    return failed({ error, timedOutMs: options.signal.aborted ? options.timeoutMs : undefined, stderrTail }, cleanup);
  }
}

/** Connects over HTTP: Streamable HTTP first, then SSE (for servers that only speak the old transport). */
async function connectHttp(config: { name: string; url: string; headers?: { name: string; value: string }[] }, sseOnly: boolean, options: ConnectOptions): Promise<ConnectOutcome> {
  const { name } = config;
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    return failed({ error: new Error(`the URL ${redactUrl(config.url)} is not valid`) }, Promise.resolve());
  }
  // Header values are secrets (tokens): they go to the transport, never to a log.
  const requestInit = { headers: toRecord(config.headers) };
  const where = redactUrl(config.url);
  /** One transport: the connection, or what it threw (the transport closed). */
  const over = async (transport: Transport, kind: McpTransportKind): Promise<{ ok: true; connection: McpConnection } | { ok: false; error: unknown }> => {
    closeOnAbort(transport, options.signal);
    try {
      return { ok: true, connection: connection(await attempt(transport, kind, name, options), kind, undefined, options) };
    } catch (error) {
      await transport.close().catch(() => undefined);
      return { ok: false, error };
    }
  };
  let httpError: unknown;
  if (!sseOnly) {
    options.logger.debug(`MCP server "${name}": connecting to ${where} (Streamable HTTP)`, { server: name });
    const streamable = await over(new StreamableHTTPClientTransport(url, { requestInit }), 'streamable-http');
    if (streamable.ok) return streamable;
    if (options.signal.aborted) return failed({ error: streamable.error, timedOutMs: options.timeoutMs }, Promise.resolve());
    httpError = streamable.error;
    options.logger.debug(`MCP server "${name}": Streamable HTTP failed, trying SSE`, { server: name, error: String(httpError) });
  }
  const sse = await over(new SSEClientTransport(url, { requestInit }), 'sse');
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
    if (type === undefined || type === 'stdio') return await connectStdio(config as Parameters<typeof connectStdio>[0], options);
    if (type === 'http' || type === 'sse') return await connectHttp(config as Parameters<typeof connectHttp>[0], type === 'sse', options);
    return failed({ error: new Error(`its transport "${String(type)}" is not supported (use stdio, http or sse)`) }, Promise.resolve());
  } catch (error) {
    // A bug or an unexpected throw (e.g. a malformed entry): still a failed start, not a crash.
    return failed({ error }, Promise.resolve());
  }
}
