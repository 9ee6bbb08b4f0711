/**
 * The slash commands the agent handles itself (never sent to the model as text), advertised
 * with `available_commands_update`.
 *
 * Source: ACP slash commands, https://agentclientprotocol.com/protocol/v1/slash-commands.
 */
import type { AvailableCommand, ContentBlock } from '@agentclientprotocol/sdk/unstable';

/** The names of the commands, without the slash. */
export type SlashCommandName = 'clear' | 'compact' | 'help';

/** The commands, as advertised. */
export const SLASH_COMMANDS: readonly AvailableCommand[] = [
  { name: 'clear', description: 'Start the conversation afresh in this session (earlier turns stay saved but are no longer sent)' },
  { name: 'compact', description: 'Replace the earlier turns with a summary written by the model, to save context' },
  { name: 'help', description: 'List the commands of openai-acp' },
];

/**
 * The command a prompt is: a prompt whose only content is one text block reading `/clear`,
 * `/compact` or `/help` (surrounding whitespace and a trailing argument ignored).
 * `undefined` for anything else, including unknown `/words`, which go to the model as typed.
 */
export function parseSlashCommand(prompt: readonly ContentBlock[]): SlashCommandName | undefined {
  if (prompt.length !== 1 || prompt[0]?.type !== 'text') return undefined;
  const match = /^\s*\/([a-z]+)(?:\s[\s\S]*)?$/.exec(prompt[0].text);
  const name = match?.[1];
  return SLASH_COMMANDS.some((command) => command.name === name) ? (name as SlashCommandName) : undefined;
}

/** The `/help` answer. */
export function helpText(): string {
  return ['Commands of openai-acp:', ...SLASH_COMMANDS.map((command) => `- /${command.name}: ${command.description}`)].join('\n');
}
