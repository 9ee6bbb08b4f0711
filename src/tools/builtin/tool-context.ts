/**
 * What a built-in tool needs to run: where it acts, the workspace, the turn's abort signal, limits.
 */
import type { FetchLimits } from '../fetch/fetch-page.js';
import type { SearchOptions } from '../search/run-search.js';
import type { ToolBackend, ToolOutcome, WorkspaceRoots } from '../tool-types.js';

/** Default time limit of `run_command`, in ms: 120 s. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
/** Largest `timeout_ms` a model may ask for, in ms: 600 s. */
export const MAX_COMMAND_TIMEOUT_MS = 600_000;
/** Default most bytes of command output kept (the tail): 1 MiB. */
export const DEFAULT_OUTPUT_BYTE_LIMIT = 1024 * 1024;

/** What a built-in tool's `run` is given. */
export interface BuiltinContext {
  /** Where reads, writes and commands go (client or local). */
  backend: ToolBackend;
  /** The session's workspace: relative paths resolve against `cwd`; file paths must stay inside. */
  roots: WorkspaceRoots;
  /** The turn's signal: aborting rejects the call with its reason (a running command is killed). */
  signal: AbortSignal;
  /** Caps of what the model is given. @defaultValue `{ maxBytes: 50_000, maxLines: 2_000 }` */
  limits?: { maxBytes: number; maxLines: number };
  /** `run_command` time limit when the model gives none, in ms. @defaultValue 120_000 */
  commandTimeoutMs?: number;
  /** Most bytes of command output kept (the tail). @defaultValue 1 MiB */
  outputByteLimit?: number;
  /** Limits of `fetch_url` (time, the model's share of a page). */
  fetch?: FetchLimits | undefined;
  /** How `search_files` runs: `OPENAI_ACP_RIPGREP` (unset: rg on the PATH) and its limits. */
  search?: SearchOptions | undefined;
  /** Called with the client terminal's id as soon as a command runs in one (to embed it in a `tool_call_update`). */
  onTerminal?: (terminalId: string) => Promise<void>;
  /**
   * Whether a call of this same tool with `args` would run without asking the user (the session's
   * mode and remembered choices); `fetch_url` follows a redirect to another host only then.
   * Absent: the tool decides alone.
   */
  runsUnasked?: (args: Record<string, unknown>) => boolean;
}

/** What a built-in tool's `run` returns: the outcome, and for commands the handle that frees a client terminal. */
export type BuiltinOutcome = ToolOutcome & {
  /** Frees the client terminal; call it after the `tool_call_update` that embeds the terminal was sent. */
  release?: () => Promise<void>;
};
