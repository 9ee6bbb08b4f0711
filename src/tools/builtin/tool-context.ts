/**
 * What a built-in tool needs to run: where it acts, the workspace, the turn's abort signal, and
 * its settings, all in one {@link ToolSettings} object made once per turn from the configuration
 * ({@link toolSettings}). A tool that needs a new setting reads a new field of it: nothing between
 * the configuration and the tool changes.
 */
import type { Config } from '../../config/config.js';
import type { ToolBackend } from '../backends/tool-backend.js';
import type { AddressPolicy } from '../fetch/address-guard.js';
import { type FetchLimits, fetchModelBytes } from '../fetch/fetch-page.js';
import type { SearchOptions } from '../search/run-search.js';
import type { WorkspaceRoots } from '../tool.js';

/** Default time limit of `run_command`, in ms: 120 s. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
/** Largest `timeout_ms` a model may ask for, in ms: 600 s. */
export const MAX_COMMAND_TIMEOUT_MS = 600_000;
/** Default most bytes of command output kept (the tail): 1 MiB. */
export const DEFAULT_OUTPUT_BYTE_LIMIT = 1024 * 1024;

/** The built-in tools' settings. Every field is optional: absent means the tool's default. */
export interface ToolSettings {
  /** Limits of `fetch_url` (time, the model's share of a page). */
  fetch?: FetchLimits | undefined;
  /** How `search_files` runs: `OPENAI_ACP_RIPGREP` (unset: rg on the PATH) and its limits. */
  search?: SearchOptions | undefined;
  /** Caps of what the model is given. @defaultValue `{ maxBytes: 50_000, maxLines: 2_000 }` */
  limits?: { maxBytes: number; maxLines: number } | undefined;
  /** `run_command` time limit when the model gives none, in ms. @defaultValue 120_000 */
  commandTimeoutMs?: number | undefined;
  /** Most bytes of command output kept (the tail). @defaultValue 1 MiB */
  outputByteLimit?: number | undefined;
}

/**
 * The settings a turn's tools run with: from the configuration, the model's context window in
 * tokens (it sizes a fetched page's share), and which private addresses `fetch_url` may reach
 * (`openai-acp serve`'s policy; absent: any).
 */
export function toolSettings(
  config: Pick<Config, 'fetchTimeoutMs' | 'ripgrep' | 'searchTimeoutMs'>,
  contextWindow: number | undefined,
  addresses?: AddressPolicy | undefined,
): ToolSettings {
  return {
    fetch: { timeoutMs: config.fetchTimeoutMs, modelBytes: fetchModelBytes(contextWindow), ...(addresses ? { policy: addresses } : {}) },
    search: { ripgrep: config.ripgrep, limits: { timeBudgetMs: config.searchTimeoutMs } },
  };
}

/** What a built-in tool's `run` is given. */
export interface BuiltinContext {
  /** Where reads, writes and commands go (client or local). */
  backend: ToolBackend;
  /** The session's workspace: relative paths resolve against `cwd`; file paths must stay inside. */
  roots: WorkspaceRoots;
  /** The turn's signal: aborting rejects the call with its reason (a running command is killed). */
  signal: AbortSignal;
  /** The tools' settings. */
  settings: ToolSettings;
  /** Called with the client terminal's id as soon as a command runs in one (to embed it in a `tool_call_update`). */
  onTerminal?: ((terminalId: string) => Promise<void>) | undefined;
  /**
   * Whether a call of this same tool with `args` would run without asking the user (the session's
   * mode and remembered choices); `fetch_url` follows a redirect to another host only then.
   * Absent: the tool decides alone.
   */
  runsUnasked?: ((args: Record<string, unknown>) => boolean) | undefined;
}
