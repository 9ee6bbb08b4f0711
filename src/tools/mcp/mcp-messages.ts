/**
 * The words the user and the model read when an MCP server or tool fails. Pure; every function
 * takes the error as thrown (by Node, fetch or the MCP SDK) and never throws.
 *
 * Error shapes relied on (MCP SDK 1.32 `dist/esm/types.js`, `client/streamableHttp.js`):
 * `McpError` has a numeric `code` (-32000 connection closed, -32001 request timed out) and a
 * message `MCP error <code>: <text>`; `StreamableHTTPError`/`SseError` have an HTTP `code`;
 * Node's spawn errors have `code` (`ENOENT`, `EACCES`) and `path`; fetch failures have a `cause`.
 */

/** The MCP SDK's `ErrorCode.ConnectionClosed`: the transport closed while a request was pending. */
const MCP_CONNECTION_CLOSED = -32000;
/** The MCP SDK's `ErrorCode.RequestTimeout`: a request passed its `timeout`. */
const MCP_REQUEST_TIMEOUT = -32001;

/**
 * Seconds for a message: `1500` → `1.5 s`, `30000` → `30 s`.
 * @internal a pure formatting rule checked on its own, without a server that times out.
 */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** `url` without credentials, query or fragment (they may hold tokens), for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

const field = (value: unknown, key: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined);

/** The message of `error` without the SDK's `MCP error -32000: ` prefix. */
export function plainMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
  return message.replace(/^MCP error -?\d+: /, '').trim() || 'unknown error';
}

/** Extra words for errno codes a user can act on. */
const ERRNO_WORDS: Record<string, string> = {
  ENOENT: 'command not found',
  EACCES: 'permission denied: the command is not executable',
  ECONNREFUSED: 'connection refused: is the server running?',
  ENOTFOUND: 'host not found',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  CERT_HAS_EXPIRED: 'the server certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server certificate is self-signed',
};

/** What went wrong while starting a server, for {@link startFailureNotice}. */
export interface StartFailure {
  /** The error thrown by spawn, the transport or `initialize`. */
  error?: unknown;
  /** The start was abandoned after this many ms (no error of its own). */
  timedOutMs?: number;
  /** The last lines the server wrote to stderr (stdio), newest last. */
  stderrTail?: readonly string[];
  /** The stdio server's working directory did not exist (spawn then reports ENOENT too). */
  missingCwd?: string;
}

/** The reason in plain words: the error's own message with a hint, or the timeout. */
export function startFailureReason({ error, timedOutMs, stderrTail = [], missingCwd }: StartFailure): string {
  const lastLine = stderrTail.at(-1);
  const said = lastLine === undefined ? '' : ` (its last words on stderr: ${lastLine})`;
  if (timedOutMs !== undefined) return `it did not finish starting within ${seconds(timedOutMs)} (timed out)${said}`;
  if (missingCwd !== undefined) return `the working directory ${missingCwd} does not exist`;
  const code = field(error, 'code') ?? field(field(error, 'cause'), 'code');
  if (code === MCP_CONNECTION_CLOSED) return `the server closed the connection before it was ready (did the process exit?)${said}`;
  if (code === MCP_REQUEST_TIMEOUT) return `it did not answer initialize in time (timed out)${said}`;
  let reason = plainMessage(error);
  const causeMessage = field(field(error, 'cause'), 'message');
  // fetch says only "fetch failed"; the reason is in its cause.
  if (typeof causeMessage === 'string' && !reason.includes(causeMessage)) reason += `: ${causeMessage}`;
  const hint = typeof code === 'string' ? ERRNO_WORDS[code] : undefined;
  if (hint !== undefined) reason += ` (${hint})`;
  return reason + said;
}

/**
 * The one-line notice for the user, e.g. `MCP server "files" could not start: spawn /nope ENOENT
 * (command not found)`; `reason` from {@link startFailureReason}.
 */
export function startFailureNotice(server: string, reason: string): string {
  return `MCP server "${server}" could not start: ${reason}`;
}

/** Notice for a server still starting when the session stops waiting for it. */
export function stillStartingNotice(server: string, waitedMs: number): string {
  return `MCP server "${server}" is still starting after ${seconds(waitedMs)}; its tools will be added once it is ready`;
}

/** Notice for a server that stopped after it was ready (crashed, or its connection dropped). */
export function stoppedNotice(server: string): string {
  return `MCP server "${server}" stopped; its tools are no longer available in this session`;
}

/** Context of a failed call, for {@link callFailureText}. */
export interface CallFailure {
  server: string;
  tool: string;
  /** The per-call limit that applied, in ms. */
  timeoutMs: number;
}

/**
 * What the model is told when a call threw (timeout, closed connection, output-schema mismatch,
 * unknown tool, …): which tool failed and why, in one sentence.
 */
export function callFailureText(error: unknown, { server, tool, timeoutMs }: CallFailure): string {
  const code = field(error, 'code');
  const name = `MCP tool "${tool}" of server "${server}"`;
  if (code === MCP_REQUEST_TIMEOUT) return `${name} did not answer within ${seconds(timeoutMs)} (timed out).`;
  if (code === MCP_CONNECTION_CLOSED) return `${name} failed: the server closed the connection during the call.`;
  return `${name} failed: ${plainMessage(error)}`;
}
