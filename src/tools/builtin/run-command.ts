/**
 * `run_command`: a shell command line in a client terminal or locally. A remembered "always"
 * covers one program, or one exact line when the line does more than run one program.
 */
import { z } from 'zod';
import { linesWord } from '../../context/context-cut.js';
import { capForModel } from '../present/output-cap.js';
import { argText, fenced, MAX_TITLE_COMMAND, shorten, textContent } from '../present/present-args.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_OUTPUT_BYTE_LIMIT, MAX_COMMAND_TIMEOUT_MS, type BuiltinContext } from './tool-context.js';
import type { ToolOutcome } from '../tool.js';
import type { CommandResult } from '../backends/tool-backend.js';
import { confine, resolveToolPath } from '../backends/workspace.js';
import { grouped } from '../../shared/grouped.js';
import { defineTool } from './tool-module.js';

/** The `run_command` arguments. */
const runCommandSchema = z.object({
  command: z.string().describe('The shell command line.'),
  cwd: z.string().optional().describe('Working directory. Default: the session working directory.'),
  timeout_ms: z.int().min(1).optional().describe('Time limit in milliseconds. Default 120000, at most 600000.').meta({ note: 'milliseconds' }),
});

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
 * `run_command`: in a client terminal (embedded in the tool call while it runs) or locally (the
 * cwd confined to the workspace). `failed` when the exit code is not 0, or the process was killed.
 * @throws {ToolError} a cwd outside the workspace (local terminal), a shell that cannot start;
 *   the signal's reason when aborted (the command is killed first).
 */
async function runCommand(args: z.infer<typeof runCommandSchema>, ctx: BuiltinContext): Promise<ToolOutcome> {
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

/** The `run_command` tool. */
export const runCommandTool = defineTool({
  name: 'run_command',
  description:
    'Run a shell command and return its exit code and output (stdout and stderr together). No input can be typed: do not start interactive programs.',
  schema: runCommandSchema,
  aliases: { cmd: 'command', workdir: 'cwd', working_directory: 'cwd' },
  kind: 'execute',
  permission: 'runs',
  /**
   * `run_command:<program>` (the first word after `VAR=value` assignments, as written: path kept),
   * or `run_line:<the whole line>` for a compound line: "always allow git" must not cover
   * `git status && curl … | sh`.
   */
  rememberedAs(args) {
    const line = typeof args['command'] === 'string' ? args['command'] : '';
    if (isCompoundCommand(line)) return { key: `run_line:${line.trim()}`, scope: 'this exact command line' };
    const name = commandName(line);
    return { key: `run_command:${name}`, scope: name ? `"${name}" commands` : 'commands' };
  },
  present(args) {
    const command = argText(args, 'command');
    return { title: command ? shorten(command.replace(/\s*\n\s*/g, ' ').trim(), MAX_TITLE_COMMAND) : 'Run command' };
  },
  run: runCommand,
  cutNote: (info) =>
    `[... ${linesWord(info.omitted)} of output left out to fit the context window; run the command again with its output filtered (grep, head, tail) ...]`,
});

/**
 * Whether a shell line does more than run one command: `;`, `&`, `|`, newlines, redirections,
 * backquotes or `$(…)` anywhere (quoted or not: being cautious costs one more question).
 * @internal the rule behind remembered command choices, checked line by line.
 */
export function isCompoundCommand(line: string): boolean {
  return /[;&|`<>\n\r]|\$\(/.test(line);
}

/**
 * The command of a shell line: its first word after leading `VAR=value` assignments, as written,
 * path included (`/usr/bin/git status` → `/usr/bin/git`: "always allow git" must not cover
 * `./git`, a program the model may have written); '' for an empty line.
 * @internal the rule behind remembered command choices, checked line by line.
 */
export function commandName(line: string): string {
  const words = line.trim().split(/\s+/).filter(Boolean);
  return words.find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) ?? '';
}
