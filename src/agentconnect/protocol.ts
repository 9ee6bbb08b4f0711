/**
 * AgentConnect protocol v0, the part this front door speaks: its error codes, the shapes of the
 * answers and events, and the argument checks (pure).
 *
 * Source: AgentConnect v0.2.6 (github.com/rayzhudev/agent-connect), `docs/PROTOCOL.md` ("Error
 * Model", "SDK API", "Local Provider", "Session semantics") and the reference host,
 * `packages/host/src/host.ts`: JSON-RPC 2.0 over a WebSocket, errors `{code: "AC_ERR_…", message}`,
 * events pushed as `acp.session.event` `{sessionId, type, data}`.
 */
import { isAbsolute, resolve } from 'node:path';

/** The error codes of `docs/PROTOCOL.md` "Error Model" that this front door answers with. */
export type AgentConnectErrorCode =
  | 'AC_ERR_UNAUTHORIZED'
  | 'AC_ERR_NOT_INSTALLED'
  | 'AC_ERR_INVALID_ARGS'
  | 'AC_ERR_UNSUPPORTED'
  | 'AC_ERR_BUSY'
  | 'AC_ERR_INTERNAL';

/** A failure answered as a JSON-RPC error `{code, message}` (the code is a string, as the protocol has it). */
export class AgentConnectError extends Error {
  constructor(
    readonly code: AgentConnectErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The only provider this host offers: AgentConnect's "local model connector". */
export const PROVIDER = 'local';

/** The modes the front door can start in (session modes of the ACP agent). */
export const FRONT_DOOR_MODES = ['read-only', 'accept-edits', 'full-access'] as const;
/** One front-door mode. */
export type FrontDoorMode = (typeof FRONT_DOOR_MODES)[number];

/** `ModelInfo` of the protocol's SDK API. `contextWindow` in tokens. */
export interface AcModelInfo {
  id: string;
  provider: typeof PROVIDER;
  displayName?: string;
  contextWindow?: number;
}

/** What `acp.capabilities.observed` answers (`CapabilitiesObservedResult` of `schemas/acp-methods.json`). */
export type AcObserved = {
  appId: string;
  /** From the app's manifest: this host has none. */
  requested: string[];
  /** The capabilities the app's calls used, sorted. */
  observed: string[];
  /** When the last of them was first used, ISO 8601 (now when none was). */
  updatedAt: string;
};

/** `ProviderInfo` of the protocol's SDK API. */
export interface AcProviderInfo {
  id: typeof PROVIDER;
  name: string;
  installed: boolean;
  loggedIn: boolean;
  version?: string;
}

/** One `acp.session.event`: `type` and its `data` (the SDK reads `data.text`, `data.usage`, …). */
export interface AcEvent {
  type: 'delta' | 'final' | 'usage' | 'context_usage' | 'error' | 'thinking' | 'tool_call' | 'message';
  data: Record<string, unknown>;
}

/** The model value AgentConnect's quick start and example apps send for "whatever the host's default is" (README, `apps/*`). */
const DEFAULT_MODEL_VALUE = 'default';

/**
 * The model id a model argument picks: `local`, `default` (or none) → `undefined` (the default
 * model); `local:<id>` and `local/<id>` → `<id>` (`local:default` the default model too); anything
 * else is an id as is.
 * Source: `docs/PROTOCOL.md` "Local Provider", "Model selection"; `model: 'default'` in its
 * README's quick start and its example apps (`apps/agentic-notes/src/main.js`, `apps/sheets-ai`).
 * @throws {AgentConnectError} AC_ERR_INVALID_ARGS for a non-string or an empty id after the prefix.
 */
export function pickModel(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'model must be a string');
  const trimmed = value.trim();
  if (trimmed === '' || trimmed === PROVIDER) return undefined;
  const prefixed = /^local[:/]/.test(trimmed);
  const id = prefixed ? trimmed.slice(PROVIDER.length + 1).trim() : trimmed;
  if (id === '' || id.length > 200 || /\s/.test(id))
    throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'model must be local, default, local:<id>, local/<id> or a model id');
  return id === DEFAULT_MODEL_VALUE ? undefined : id;
}

/**
 * Checks `provider` when given: only `local` is served.
 * @throws {AgentConnectError} AC_ERR_UNSUPPORTED for another provider (as the reference host answers).
 */
export function checkProvider(value: unknown): void {
  if (value === undefined || value === null || value === PROVIDER) return;
  throw new AgentConnectError('AC_ERR_UNSUPPORTED', `Unknown provider: this host serves only "${PROVIDER}"`);
}

/**
 * An optional string argument, trimmed; `undefined` when absent or blank.
 * @throws {AgentConnectError} AC_ERR_INVALID_ARGS when present and not a string, or longer than `max` characters.
 */
export function optionalString(params: Record<string, unknown>, name: string, max = 100_000): string | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > max)
    throw new AgentConnectError('AC_ERR_INVALID_ARGS', `${name} must be a string of at most ${max} characters`);
  return value.trim() || undefined;
}

/**
 * A required session id argument.
 * @throws {AgentConnectError} AC_ERR_INVALID_ARGS when missing or not a short string.
 */
export function sessionIdOf(params: Record<string, unknown>): string {
  const value = params['sessionId'];
  if (typeof value !== 'string' || value === '' || value.length > 200) throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'sessionId is required');
  return value;
}

/**
 * The text of `acp.sessions.send`'s `message`: the SDK sends `{role: "user", content}`; a bare
 * string is taken too.
 * @throws {AgentConnectError} AC_ERR_INVALID_ARGS when there is no non-empty text.
 */
export function messageText(params: Record<string, unknown>): string {
  const message = params['message'];
  const content = typeof message === 'string' ? message : message && typeof message === 'object' ? (message as Record<string, unknown>)['content'] : undefined;
  if (typeof content !== 'string' || content.trim() === '') throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'message.content must be a non-empty string');
  return content;
}

/**
 * The session's working directory: `cwd` resolved against `base` (the front door's own directory)
 * when relative; `base` when absent.
 * @throws {AgentConnectError} AC_ERR_INVALID_ARGS when not a string or holding a NUL.
 */
export function cwdOf(params: Record<string, unknown>, base: string): string {
  const value = params['cwd'];
  if (value === undefined || value === null || value === '') return base;
  if (typeof value !== 'string' || value.includes('\0') || value.length > 4096) throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'cwd must be a path');
  return isAbsolute(value) ? resolve(value) : resolve(base, value);
}

/**
 * Whether a method hands the app this machine (files, processes, network, clipboard, opening
 * things, app backends, the host's storage): none is offered.
 */
export function isMachineMethod(method: string): boolean {
  return /^acp\.(fs|process|net|clipboard|system|backend|storage)\./.test(method);
}

/**
 * The names of the settings an `acp.providers.login` carried in `options` (`baseUrl`, `apiKey`,
 * `model`, …), never their values: this host's endpoint is configured where it runs, so they are
 * not used, and only their names are told.
 */
export function loginOptionNames(params: Record<string, unknown>): string[] {
  const options = params['options'];
  if (!options || typeof options !== 'object' || Array.isArray(options)) return [];
  return Object.keys(options)
    .filter((name) => /^[A-Za-z][\w-]{0,40}$/.test(name))
    .slice(0, 20);
}
