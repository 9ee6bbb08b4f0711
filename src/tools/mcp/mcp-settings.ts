/**
 * The two MCP time limits, read from the environment. Pure: the lead folds it into the config.
 */

/** MCP time limits, in milliseconds. */
export interface McpSettings {
  /**
   * How long `session/new`, `session/load` and `session/resume` wait for a session's MCP servers
   * in total; a server still starting then joins later. From `OPENAI_ACP_MCP_STARTUP_MS`.
   * @defaultValue 10_000
   */
  startupMs: number;
  /**
   * The limit of one MCP tool call; past it the call is an error result for the model.
   * From `OPENAI_ACP_MCP_TOOL_TIMEOUT_MS`.
   * @defaultValue 60_000
   */
  toolTimeoutMs: number;
}

/** Defaults of {@link McpSettings}: 10 s startup (as codex), 60 s per call (the MCP SDK's default). */
export const MCP_DEFAULTS: Readonly<McpSettings> = Object.freeze({ startupMs: 10_000, toolTimeoutMs: 60_000 });

/** Largest accepted value: setTimeout's limit (2^31 - 1 ms, ~24.8 days); longer fires at once. */
const MAX_MS = 2_147_483_647;

/** A positive whole number of ms from `env[name]`, or `fallback` when unset or blank. */
function positiveMs(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_MS) {
    throw new Error(`${name} must be a whole number of milliseconds from 1 to ${MAX_MS} (e.g. 10000), got "${raw}"`);
  }
  return value;
}

/**
 * Reads `OPENAI_ACP_MCP_STARTUP_MS` and `OPENAI_ACP_MCP_TOOL_TIMEOUT_MS` (whole milliseconds;
 * unset or blank → {@link MCP_DEFAULTS}).
 * @throws Error naming the variable and the accepted form when a value is not a positive integer.
 */
export function mcpSettings(env: Readonly<Record<string, string | undefined>> = process.env): McpSettings {
  return {
    startupMs: positiveMs(env, 'OPENAI_ACP_MCP_STARTUP_MS', MCP_DEFAULTS.startupMs),
    toolTimeoutMs: positiveMs(env, 'OPENAI_ACP_MCP_TOOL_TIMEOUT_MS', MCP_DEFAULTS.toolTimeoutMs),
  };
}
