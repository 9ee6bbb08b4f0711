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
const DEFAULT_HOST = '127.0.0.1';
/** The default mode: the model may read and search the session's directory, nothing more. */
const DEFAULT_FRONT_DOOR_MODE: FrontDoorMode = 'read-only';

/** The front door's settings. `token` undefined: no secret required. */
export interface FrontDoorFlags {
  port: number;
  host: string;
  mode: FrontDoorMode;
  allowOrigins: string[];
  token: string | undefined;
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
    if (name === '--port') {
      if (/^\d{1,5}$/.test(value) && Number(value) <= 65535) flags.port = Number(value);
      else problems.push(`--port takes a port number from 0 to 65535, not ${JSON.stringify(value.slice(0, 20))}`);
    } else if (name === '--host') {
      flags.host = value;
    } else if (name === '--mode') {
      if ((FRONT_DOOR_MODES as readonly string[]).includes(value)) flags.mode = value as FrontDoorMode;
      else problems.push(`--mode takes ${FRONT_DOOR_MODES.join(', ')}, not ${JSON.stringify(value.slice(0, 40))}`);
    } else if (name === '--allow-origin') {
      const origin = normalizeOrigin(value);
      if (origin === 'null' || /^[a-z][a-z0-9+.-]*:\/\/[^/\s?#]+$/.test(origin)) flags.allowOrigins.push(origin);
      else problems.push(`--allow-origin takes an origin such as https://app.example or http://localhost:5173, not ${JSON.stringify(value.slice(0, 80))}`);
    } else {
      if (value.length >= 8) flags.token = value;
      else problems.push('--token needs a secret of at least 8 characters');
    }
  }
  return problems.length > 0 ? { problems } : { flags };
}
