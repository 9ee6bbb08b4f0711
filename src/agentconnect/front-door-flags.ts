/**
 * The flags of `openai-acp agentconnect` (pure): `--port`, `--host`, `--mode`, `--allow-origin`
 * (repeatable) and `--token`, read from the (flag, value) pairs the command line gave.
 */
import { normalizeOrigin } from './gate.js';
import { FRONT_DOOR_MODES, type FrontDoorMode } from './protocol.js';

/** The flags only `agentconnect` takes. */
export const FRONT_DOOR_FLAGS = ['--port', '--host', '--mode', '--allow-origin', '--token'] as const;
/** One of {@link FRONT_DOOR_FLAGS}. */
export type FrontDoorFlag = (typeof FRONT_DOOR_FLAGS)[number];
/** Whether `name` is one of {@link FRONT_DOOR_FLAGS}. */
export const isFrontDoorFlag = (name: string): name is FrontDoorFlag => (FRONT_DOOR_FLAGS as readonly string[]).includes(name);

/** AgentConnect's default port (`docs/PROTOCOL.md`, "Connection Model"). */
export const DEFAULT_PORT = 9630;
/** The default address: loopback only. */
export const DEFAULT_HOST = '127.0.0.1';
/** The default mode: the model may read and search the session's directory, nothing more. */
const DEFAULT_FRONT_DOOR_MODE: FrontDoorMode = 'read-only';

/** The front door's settings. `token` undefined: no secret required. */
export interface FrontDoorFlags extends ListenFlags {
  mode: FrontDoorMode;
}

/** A port number from 0 to 65535, or a problem naming `--port` (the value shown cut short). */
function parsePort(value: string): number | { problem: string } {
  if (/^\d{1,5}$/.test(value) && Number(value) <= 65535) return Number(value);
  return { problem: `--port takes a port number from 0 to 65535, not ${JSON.stringify(value.slice(0, 20))}` };
}

/** A browser origin, normalised: `scheme://host[:port]` or `null`; else a problem naming `--allow-origin`. */
function parseOrigin(value: string): string | { problem: string } {
  const origin = normalizeOrigin(value);
  if (origin === 'null' || /^[a-z][a-z0-9+.-]*:\/\/[^/\s?#]+$/.test(origin)) return origin;
  return { problem: `--allow-origin takes an origin such as https://app.example or http://localhost:5173, not ${JSON.stringify(value.slice(0, 80))}` };
}

/** Shortest shared secret accepted by `--token`, in characters. */
const MIN_TOKEN_CHARS = 8;

/** The problem with a `--token` value (never quoting it), or `undefined` when it will do. */
export function tokenProblem(value: string): string | undefined {
  return value.length >= MIN_TOKEN_CHARS ? undefined : `--token needs a secret of at least ${MIN_TOKEN_CHARS} characters`;
}

/** The flags both network commands take (`agentconnect`, `serve`). */
export interface ListenFlags {
  port: number;
  host: string;
  allowOrigins: string[];
  token: string | undefined;
}

/**
 * Reads `--port`, `--host`, `--allow-origin` (adding up) or `--token` into `flags`, a bad value
 * into `problems` (never quoting a token). Returns false for any other flag.
 */
export function readListenFlag(flags: ListenFlags, name: string, value: string, problems: string[]): boolean {
  if (name === '--port') {
    const port = parsePort(value);
    if (typeof port === 'number') flags.port = port;
    else problems.push(port.problem);
  } else if (name === '--host') flags.host = value;
  else if (name === '--allow-origin') {
    const origin = parseOrigin(value);
    if (typeof origin === 'string') flags.allowOrigins.push(origin);
    else problems.push(origin.problem);
  } else if (name === '--token') {
    const problem = tokenProblem(value);
    if (problem) problems.push(problem);
    else flags.token = value;
  } else return false;
  return true;
}

/**
 * The settings from `pairs` (last value wins, but `--allow-origin` adds up), or the problems, each
 * naming the flag (never a `--token` value). An origin must be `scheme://host[:port]` or `null`.
 */
export function parseFrontDoorFlags(pairs: readonly (readonly [FrontDoorFlag, string])[]): { flags: FrontDoorFlags } | { problems: string[] } {
  const flags: FrontDoorFlags = { port: DEFAULT_PORT, host: DEFAULT_HOST, mode: DEFAULT_FRONT_DOOR_MODE, allowOrigins: [], token: undefined };
  const problems: string[] = [];
  for (const [name, raw] of pairs) {
    const value = raw.trim();
    if (readListenFlag(flags, name, value, problems)) continue;
    if ((FRONT_DOOR_MODES as readonly string[]).includes(value)) flags.mode = value as FrontDoorMode;
    else problems.push(`--mode takes ${FRONT_DOOR_MODES.join(', ')}, not ${JSON.stringify(value.slice(0, 40))}`);
  }
  return problems.length > 0 ? { problems } : { flags };
}
