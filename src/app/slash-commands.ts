/**
 * The slash commands the agent handles itself (never sent to the model as text), advertised
 * with `available_commands_update`.
 *
 * Source: ACP slash commands, https://agentclientprotocol.com/protocol/v1/slash-commands.
 */
import type { AvailableCommand, ContentBlock } from '@agentclientprotocol/sdk/unstable';

/** The names of the commands, without the slash. */
export type SlashCommandName = 'clear' | 'compact' | 'help' | 'init' | 'undo';

/** The commands, as advertised. */
export const SLASH_COMMANDS: readonly AvailableCommand[] = [
  { name: 'clear', description: 'Start the conversation afresh in this session (earlier turns stay saved but are no longer sent)' },
  { name: 'compact', description: 'Replace the earlier turns with a summary written by the model, to save context' },
  {
    name: 'undo',
    description:
      'Take back the last turn: restore the files it changed, remove the files it created, and drop it from the conversation (commands it ran are not undone)',
  },
  { name: 'help', description: 'List the commands of openai-acp' },
  { name: 'init', description: 'Survey the project and write an AGENTS.md with its commands, layout and conventions' },
];

/**
 * The command a prompt is: a prompt whose only content is one text block reading `/clear`,
 * `/compact`, `/undo`, `/help` or `/init` (surrounding whitespace and a trailing argument ignored).
 * `undefined` for anything else, including unknown `/words`, which go to the model as typed.
 */
export function parseSlashCommand(prompt: readonly ContentBlock[]): SlashCommandName | undefined {
  if (prompt.length !== 1 || prompt[0]?.type !== 'text') return undefined;
  const match = /^\s*\/([a-z]+)(?:\s[\s\S]*)?$/.exec(prompt[0].text);
  const name = match?.[1];
  return SLASH_COMMANDS.some((command) => command.name === name) ? (name as SlashCommandName) : undefined;
}

/** A prompt read as a command line and the context blocks sent before it. */
export interface CommandPrompt {
  /** The one text block that may be a command (`/name args`); the whole prompt when it is not one. */
  line: ContentBlock[];
  /** The blocks before the command line (a shared file, a selection); `[]` when there are none. */
  context: ContentBlock[];
}

/**
 * Splits off the command line of a prompt: its last block when that is a text block starting with
 * `/` and every block before it is context (clients such as Neovim's CodeCompanion send a shared
 * file or selection as one block and what the user typed, `/help`, as the next). Whether the
 * line names a command is for the caller ({@link parseSlashCommand}, the user commands); a
 * prompt whose last block is no `/…` text is all `line`.
 */
export function splitCommandPrompt(prompt: readonly ContentBlock[]): CommandPrompt {
  const last = prompt.at(-1);
  if (prompt.length > 1 && last?.type === 'text' && /^\s*\/[a-z]/i.test(last.text)) return { line: [last], context: prompt.slice(0, -1) };
  return { line: [...prompt], context: [] };
}

/**
 * Said after a command that takes no arguments (`/clear`, `/compact`, `/undo`, `/help`) came with
 * context blocks: they are kept and sent in front of the next prompt.
 */
export function keptContextText(blocks: number): string {
  const shared = blocks === 1 ? 'The block shared with this command is' : `The ${blocks} blocks shared with this command are`;
  return `\n\n(${shared} kept and sent with your next prompt.)`;
}

/** The `/help` answer; `more` are the session's user commands and MCP prompts. */
export function slashHelpText(more: readonly AvailableCommand[] = []): string {
  return ['Commands of openai-acp:', ...[...SLASH_COMMANDS, ...more].map((command) => `- /${command.name}: ${command.description}`)].join('\n');
}

/**
 * The prompt `/init` sends (what the user typed after it is added as a further wish). The model
 * surveys with the read and search tools and writes with write_file or edit_file, so the file goes
 * through the normal edit path: permission, diff, the client's fs.
 */
const INIT_INSTRUCTION = [
  'Write an AGENTS.md for this project: instructions for coding agents working in it.',
  'First survey the project with list_directory, read_file and search_files: README, package or build files, CI ' +
    'configuration, the source layout, existing AGENTS.md or CLAUDE.md files.',
  'Then write AGENTS.md in the working directory with write_file (or improve the existing one with edit_file), ' +
    'in short Markdown sections: how to install, build, test (one test too) and run; the layout (which folder ' +
    'holds what); code style and conventions that are not obvious; anything an agent must not do.',
  'Only write what you found in the files; keep it under about 60 lines. Then say in two sentences what you wrote.',
].join('\n');

/** What `/init` asks the model: the shared `context`, then {@link INIT_INSTRUCTION} with what the user typed after `/init` in its command `line` as a further wish. */
export function initPrompt(line: readonly ContentBlock[], context: readonly ContentBlock[]): ContentBlock[] {
  const wish = line[0]?.type === 'text' ? line[0].text.replace(/^\s*\/init\b/, '').trim() : '';
  return [...context, { type: 'text', text: wish ? `${INIT_INSTRUCTION}\nThe user adds: ${wish}` : INIT_INSTRUCTION }];
}
