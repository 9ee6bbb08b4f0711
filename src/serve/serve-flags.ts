/**
 * The flags of `openai-acp serve` (pure): where it listens, who may connect (`--token`,
 * `--allow-origin`, read as the AgentConnect front door reads them), the workspace root every
 * session works inside, what a client may point the agent at (`--allow-mcp`,
 * `--allow-private-urls`: collected here, their ranges checked by `commands/serve.ts`), and the
 * limits of each connection (the SDK's `ConnectionLimits`, plus how many connections and
 * sessions, per client address too, how long a connection may wait, and the largest message).
 */
import { DEFAULT_HOST, readListenFlag, type ListenFlags } from '../agentconnect/front-door-flags.js';

/** The flags only `serve` takes. */
export const SERVE_FLAGS = [
  '--port',
  '--host',
  '--token',
  '--allow-origin',
  '--root',
  '--max-connections',
  '--max-sessions',
  '--max-message-bytes',
  '--max-buffered-bytes',
  '--max-output-stall-ms',
  '--max-connections-per-address',
  '--handshake-timeout-ms',
  '--idle-timeout-ms',
  '--allow-mcp',
  '--allow-private-urls',
] as const;
/** One of {@link SERVE_FLAGS}. */
export type ServeFlag = (typeof SERVE_FLAGS)[number];
/** Whether `name` is one of {@link SERVE_FLAGS}. */
export const isServeFlag = (name: string): name is ServeFlag => (SERVE_FLAGS as readonly string[]).includes(name);

/** The default port of `openai-acp serve` (unassigned by IANA, clear of the AgentConnect front door's 9630). */
export const DEFAULT_SERVE_PORT = 8765;

/** How much one connection and the server may hold. */
export interface ServeLimits {
  /** Connections open at once (WebSocket and Streamable HTTP together); one more is answered 503. @defaultValue 512 */
  maxConnections: number;
  /** Sessions one connection may hold open at once. @defaultValue 64 */
  maxSessions: number;
  /** Largest message a client may send, in bytes: an HTTP body (413 past it) or a WebSocket message (closed with 1009). @defaultValue 16 MiB */
  maxMessageBytes: number;
  /** Output a connection holds for a client that has not read it, in bytes, before the agent waits (SDK `maxBufferedBytes`). @defaultValue 8 MiB */
  maxBufferedBytes: number;
  /** How long a connection holding {@link maxBufferedBytes} waits for its client to read any of it before it is closed, in ms (SDK `maxOutputStallMs`). @defaultValue 60 s */
  maxOutputStallMs: number;
  /** Connections open at once from one client address; one more is answered 429. @defaultValue 64 */
  maxConnectionsPerAddress: number;
  /** How long a WebSocket may stay open without its `initialize` answered, in ms (closed with 1008 after). @defaultValue 10 s */
  handshakeTimeoutMs: number;
  /** How long a connection may go with no message either way, in ms, before it is closed. @defaultValue 30 min */
  idleTimeoutMs: number;
}

/** The defaults of {@link ServeLimits}. */
export const SERVE_LIMITS: ServeLimits = {
  maxConnections: 512,
  maxSessions: 64,
  maxMessageBytes: 16 * 1024 * 1024,
  maxBufferedBytes: 8 * 1024 * 1024,
  maxOutputStallMs: 60_000,
  maxConnectionsPerAddress: 64,
  handshakeTimeoutMs: 10_000,
  idleTimeoutMs: 30 * 60_000,
};

/**
 * `serve`'s settings: where it listens, the browser origins let in (normalised), the bearer token
 * clients must send (`undefined`: none given on the command line; the environment may still give one).
 */
export interface ServeFlags extends ListenFlags {
  /** The workspace root as given (relative to the process's directory); `undefined`: the process's directory. */
  root: string | undefined;
  limits: ServeLimits;
  /** Stdio MCP server commands clients may name (`--allow-mcp`, a comma list, adding up; `*`: any); `undefined`: none given. */
  allowMcp: string[] | undefined;
  /** Private address ranges HTTP MCP servers and `fetch_url` may reach (`--allow-private-urls`, a comma list, adding up; `all`: every one); `undefined`: none given. */
  allowPrivateUrls: string[] | undefined;
}

/** The limit flags and the {@link ServeLimits} key each sets, with the smallest value accepted. */
const LIMIT_FLAGS = {
  '--max-connections': { key: 'maxConnections', min: 1 },
  '--max-sessions': { key: 'maxSessions', min: 1 },
  '--max-message-bytes': { key: 'maxMessageBytes', min: 1024 },
  '--max-buffered-bytes': { key: 'maxBufferedBytes', min: 1024 },
  '--max-output-stall-ms': { key: 'maxOutputStallMs', min: 1 },
  '--max-connections-per-address': { key: 'maxConnectionsPerAddress', min: 1 },
  '--handshake-timeout-ms': { key: 'handshakeTimeoutMs', min: 1 },
  '--idle-timeout-ms': { key: 'idleTimeoutMs', min: 1 },
} as const satisfies Partial<Record<ServeFlag, { key: keyof ServeLimits; min: number }>>;
const isLimitFlag = (name: string): name is keyof typeof LIMIT_FLAGS => Object.hasOwn(LIMIT_FLAGS, name);
/** The largest value of any limit: a timer's longest wait (2^31 - 1 ms), far past any sensible byte count too. */
const MAX_LIMIT = 2 ** 31 - 1;

/** The entries of a comma-separated list, trimmed, without empty ones. */
export const listOf = (value: string): string[] =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);

/**
 * The settings from `pairs` (the last value of a flag wins, but `--allow-origin`, `--allow-mcp`
 * and `--allow-private-urls` add up), or the
 * problems, each naming its flag (never a `--token` value).
 */
export function parseServeFlags(pairs: readonly (readonly [ServeFlag, string])[]): { flags: ServeFlags } | { problems: string[] } {
  const flags: ServeFlags = {
    port: DEFAULT_SERVE_PORT,
    host: DEFAULT_HOST,
    token: undefined,
    allowOrigins: [],
    root: undefined,
    limits: { ...SERVE_LIMITS },
    allowMcp: undefined,
    allowPrivateUrls: undefined,
  };
  const problems: string[] = [];
  for (const [name, raw] of pairs) {
    const value = raw.trim();
    if (readListenFlag(flags, name, value, problems)) continue;
    if (name === '--root') flags.root = value;
    else if (name === '--allow-mcp') flags.allowMcp = [...(flags.allowMcp ?? []), ...listOf(value)];
    else if (name === '--allow-private-urls') flags.allowPrivateUrls = [...(flags.allowPrivateUrls ?? []), ...listOf(value)];
    else if (isLimitFlag(name)) {
      const { key, min } = LIMIT_FLAGS[name];
      const number = Number(value);
      if (/^\d+$/.test(value) && number >= min && number <= MAX_LIMIT) flags.limits[key] = number;
      else problems.push(`${name} takes a whole number from ${min} to ${MAX_LIMIT}, not ${JSON.stringify(value.slice(0, 20))}`);
    }
  }
  return problems.length > 0 ? { problems } : { flags };
}
