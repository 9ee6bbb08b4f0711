/**
 * `run_command` over a {@link ToolBackend}: in a client terminal (embedded in the tool call while
 * it runs) or locally (the cwd confined to the workspace).
 */
import { capForModel } from '../present/output-cap.js';
import { fenced, textContent } from '../present/present-args.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_OUTPUT_BYTE_LIMIT, MAX_COMMAND_TIMEOUT_MS, type BuiltinContext } from './tool-context.js';
import type { ToolOutcome } from '../tool.js';
import type { CommandResult } from '../backends/tool-backend.js';
import { confine, resolveToolPath } from '../backends/workspace.js';
import { grouped } from '../../shared/grouped.js';

/** `run_command` arguments once checked. */
export interface RunCommandArgs {
  command: string;
  cwd?: string | undefined;
  timeout_ms?: number | undefined;
}

/** The time limit used: the model's `timeout_ms`, else the context's default, within 1 ms … 600 s. */
function commandTimeout(requested: number | undefined, fallback = DEFAULT_COMMAND_TIMEOUT_MS): number {
  return Math.min(MAX_COMMAND_TIMEOUT_MS, Math.max(1, Math.floor(requested ?? fallback)));
}

/** `Exit code 0`, `Killed after 2 s (timeout)`, `Killed by SIGTERM`. */
function commandStatus(result: Pick<CommandResult, 'exitCode' | 'signal' | 'timedOut'>, timeoutMs: number): string {
  if (result.timedOut) return `Killed after ${formatSeconds(timeoutMs)} (timeout)`;
  if (result.exitCode !== null) return `Exit code ${result.exitCode}`;
  return result.signal ? `Killed by ${result.signal}` : 'Ended without an exit code';
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/**
 * Runs the command. `failed` when the exit code is not 0, or the process was killed.
 * @throws {ToolError} a cwd outside the workspace (local terminal), a shell that cannot start;
 *   the signal's reason when aborted (the command is killed first).
 */
export async function executeRunCommand(args: RunCommandArgs, ctx: BuiltinContext): Promise<ToolOutcome> {
  const requestedCwd = resolveToolPath(args.cwd ?? '.', ctx.roots);
  // A client terminal runs wherever the client is; only a local command's cwd can be checked on this disk.
  const cwd = ctx.backend.where.terminal === 'local' ? await confine(requestedCwd, ctx.roots) : requestedCwd;
  const timeoutMs = commandTimeout(args.timeout_ms, ctx.settings.commandTimeoutMs);
  const outputByteLimit = ctx.settings.outputByteLimit ?? DEFAULT_OUTPUT_BYTE_LIMIT;
  let terminalId: string | undefined;
  const result = await ctx.backend.runCommand(args.command, {
    cwd,
    timeoutMs,
    outputByteLimit,
    signal: ctx.signal,
    onStarted: (id) => {
      terminalId = id;
      return id ? ctx.onTerminal?.(id) : undefined;
    },
  });
  const status = commandStatus(result, timeoutMs);
  const dropped = result.truncated ? `[earlier output dropped; only the last ${grouped(outputByteLimit)} bytes were kept]\n` : '';
  const body = result.output === '' ? '(no output)' : capForModel(result.output, ctx.settings.limits).text;
  const failed = result.timedOut || result.exitCode !== 0;
  return {
    failed,
    forModel: `${status}\n${dropped}${body}`,
    content: terminalId ? [{ type: 'terminal', terminalId }] : [textContent(`${fenced(dropped + result.output, 'console')}\n${status}`)],
    rawOutput: { exitCode: result.exitCode, signal: result.signal, timedOut: result.timedOut, truncated: result.truncated },
    release: result.release,
  };
}
