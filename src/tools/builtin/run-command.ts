/**
 * `run_command`: a shell command line in a client terminal or locally (runs in
 * `tools/builtin/command-tool.ts`). A remembered "always" covers one program, or one exact line when the
 * line does more than run one program.
 */
import { z } from 'zod';
import { linesWord } from '../../context/context-cut.js';
import { executeRunCommand } from './command-tool.js';
import { argText, MAX_TITLE_COMMAND, shorten } from '../present/present-args.js';
import { defineTool } from './tool-module.js';

/** The `run_command` tool. */
export const runCommandTool = defineTool({
  name: 'run_command',
  description:
    'Run a shell command and return its exit code and output (stdout and stderr together). No input can be typed: do not start interactive programs.',
  schema: z.object({
    command: z.string().describe('The shell command line.'),
    cwd: z.string().optional().describe('Working directory. Default: the session working directory.'),
    timeout_ms: z.int().min(1).optional().describe('Time limit in milliseconds. Default 120000, at most 600000.').meta({ note: 'milliseconds' }),
  }),
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
  run: executeRunCommand,
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
