/**
 * The user's own slash commands, per session, beside the built-in ones:
 * - Markdown prompt files (`command-files.ts`): `<cwd>/.openai-acp/commands/*.md`, then
 *   `<cwd>/.claude/commands/*.md` (read only, for projects that already have them), then the
 *   user's `<config dir>/commands/*.md`; the first of a name wins (project over user), and a
 *   built-in name always wins (the clash is logged);
 * - the prompts of the session's MCP servers as `/<server>:<prompt>`.
 * The list is advertised with `available_commands_update` after `session/new` and `session/load`,
 * and again when it changed (the folders are checked at the start of each turn: one `readdir`
 * and a `stat` per file). A file that is not UTF-8 or has broken front matter is skipped and
 * logged with its path, once per change.
 *
 * Sources: ACP slash commands https://agentclientprotocol.com/protocol/v1/slash-commands; Claude
 * Code's command files https://docs.claude.com/en/docs/claude-code/slash-commands.
 */
import type { AvailableCommand, ContentBlock } from '@agentclientprotocol/sdk/unstable';
import { readdir, stat } from 'node:fs/promises';
import { readFileInside } from '../shared/open-inside.js';
import { join } from 'node:path';
import type { Logger } from '../shared/log.js';
import { type McpPromptInfo, type McpServers, promptArguments, promptCommandName, promptHint, promptMessagesToContent } from '../tools/index.js';
import { expandCommand, parseCommandFile, parseCommandLine, type CommandFile } from '../context/command-files.js';

/** Where a file command comes from, in order of precedence. */
export type CommandSource = 'project' | 'claude' | 'user';

/** One user command. */
export type UserCommand =
  | { kind: 'file'; file: CommandFile; source: CommandSource; path: string }
  | { kind: 'mcp'; name: string; server: string; prompt: McpPromptInfo };

/** The command folders of a session, in order of precedence. */
function commandFolders(cwd: string, configDir: string | undefined): { dir: string; source: CommandSource; base: string }[] {
  const folders: { dir: string; source: CommandSource; base: string }[] = [
    { dir: join(cwd, '.openai-acp', 'commands'), source: 'project', base: cwd },
    { dir: join(cwd, '.claude', 'commands'), source: 'claude', base: cwd },
  ];
  if (configDir) folders.push({ dir: join(configDir, 'commands'), source: 'user', base: configDir });
  return folders;
}

const SOURCE_WORDS: Record<CommandSource, string> = { project: 'project', claude: 'project, .claude', user: 'user' };

/** The advertised entry of a user command. */
function advertised(command: UserCommand): AvailableCommand {
  if (command.kind === 'mcp') {
    const hint = promptHint(command.prompt);
    return {
      name: command.name,
      description: `${command.prompt.description?.trim() || `Prompt ${command.prompt.name}`} (MCP server ${command.server})`,
      ...(hint ? { input: { hint } } : {}),
    };
  }
  const { file } = command;
  return { name: file.name, description: `${file.description} (${SOURCE_WORDS[command.source]})`, ...(file.hint ? { input: { hint: file.hint } } : {}) };
}

/** What {@link UserCommands.expand} gives for a prompt. */
export type Expansion = { kind: 'prompt'; prompt: ContentBlock[] } | { kind: 'error'; message: string };

/** One session's user commands as last read. */
export interface HeldCommands {
  /** What the list was read from (paths, times, sizes, MCP prompt names). */
  fingerprint: string;
  commands: Map<string, UserCommand>;
  /** The list last advertised (JSON), to tell a change. */
  advertised: string;
}

/** Where a session's user commands are kept: its live session (`LiveSession.commands`); absent: never read. */
export interface CommandList {
  commands: HeldCommands | undefined;
}

/** Reads sessions' user commands; each session's list is kept by its live session ({@link CommandList}). */
export class UserCommands {
  /**
   * @param builtins - the built-in commands (their names win over user commands).
   * @param configDir - the agent's config directory; absent: no user-wide commands.
   */
  constructor(
    private readonly logger: Logger,
    private readonly builtins: () => readonly AvailableCommand[],
    private readonly configDir: string | undefined,
  ) {}

  /**
   * Reads the session's commands again when their files or MCP prompts changed. Returns the whole
   * list (built-ins first) when it differs from the one last returned, else `undefined`; `force`
   * returns it anyway (after `session/new` and `session/load`). Never rejects.
   */
  async refresh(kept: CommandList, cwd: string, mcp: McpServers | undefined, force = false): Promise<AvailableCommand[] | undefined> {
    const folders = commandFolders(cwd, this.configDir);
    const files = (await Promise.all(folders.map(async (folder) => ({ ...folder, entries: await markdownFiles(folder.dir) })))).flatMap((folder) =>
      folder.entries.map((entry) => ({ ...entry, source: folder.source, base: folder.base })),
    );
    const prompts = mcp?.prompts() ?? [];
    const fingerprint = JSON.stringify([
      files.map((file) => [file.path, file.mtimeMs, file.size]),
      prompts.map(({ server, prompt }) => [server, prompt.name, prompt.description, prompt.arguments]),
    ]);
    let known = kept.commands;
    if (!known || known.fingerprint !== fingerprint) {
      known = { fingerprint, commands: await this.read(files, prompts), advertised: known?.advertised ?? '' };
      kept.commands = known;
    }
    const list = [...this.builtins(), ...[...known.commands.values()].map(advertised)];
    const json = JSON.stringify(list);
    if (!force && json === known.advertised) return undefined;
    known.advertised = json;
    return list;
  }

  /** The session's user commands as last read (for `/help`). */
  list(kept: CommandList): AvailableCommand[] {
    return [...(kept.commands?.commands.values() ?? [])].map(advertised);
  }

  /**
   * The prompt a user command stands for: a file command's body with the arguments put in, or
   * an MCP prompt's messages (fetched now, cancelled with `signal`). `undefined` when the prompt
   * is not one of the session's user commands (it then goes to the model as typed).
   */
  async expand(kept: CommandList, prompt: readonly ContentBlock[], mcp: McpServers | undefined, signal: AbortSignal): Promise<Expansion | undefined> {
    const first = prompt[0];
    if (prompt.length !== 1 || first?.type !== 'text') return undefined;
    const line = parseCommandLine(first.text);
    const command = line && kept.commands?.commands.get(line.name);
    if (!line || !command) return undefined;
    if (command.kind === 'file') return { kind: 'prompt', prompt: [{ type: 'text', text: expandCommand(command.file.body, line.args) }] };
    const args = promptArguments(command.prompt, line.args);
    if (!args.ok) return { kind: 'error', message: `/${command.name}: ${args.error}. Usage: /${command.name} ${promptHint(command.prompt) ?? ''}`.trimEnd() };
    if (!mcp) return { kind: 'error', message: `/${command.name}: MCP server "${command.server}" is not running.` };
    const got = await mcp.getPrompt(command.server, command.prompt.name, args.args, { signal });
    if (!got.ok) return { kind: 'error', message: `/${command.name}: ${got.error}.` };
    const content = promptMessagesToContent(got.messages);
    return content.length > 0 ? { kind: 'prompt', prompt: content } : { kind: 'error', message: `/${command.name}: the prompt has no text or image to send.` };
  }

  /** Parses the files (first of a name wins) and names the MCP prompts; logs what is skipped. */
  private async read(
    files: { path: string; name: string; source: CommandSource; base: string }[],
    prompts: { server: string; prompt: McpPromptInfo }[],
  ): Promise<Map<string, UserCommand>> {
    const builtin = new Set(this.builtins().map((command) => command.name));
    const commands = new Map<string, UserCommand>();
    for (const { path, name, source, base } of files) {
      if (builtin.has(name)) {
        this.logger.warn(`the command file ${path} is not used: /${name} is a built-in command`);
        continue;
      }
      if (commands.has(name)) continue;
      let bytes: Buffer;
      try {
        // Opened once and checked: a file (or folder) leading out of the cwd or config directory is not read.
        bytes = await readFileInside(path, [base]);
      } catch (error) {
        this.logger.warn(`the command file ${path} could not be read: ${(error as Error).message}`);
        continue;
      }
      const parsed = parseCommandFile(name, bytes);
      if ('error' in parsed) {
        this.logger.warn(`the command file ${path} is skipped: ${parsed.error}`);
        continue;
      }
      commands.set(name, { kind: 'file', file: parsed, source, path });
    }
    for (const { server, prompt } of prompts) {
      const name = promptCommandName(server, prompt.name);
      if (!commands.has(name)) commands.set(name, { kind: 'mcp', name, server, prompt });
    }
    return commands;
  }
}

/** The `*.md` files of a folder (sorted by name, symlinks followed), with their times and sizes; none when it is missing. */
async function markdownFiles(dir: string): Promise<{ path: string; name: string; mtimeMs: number; size: number }[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.md')).sort();
  } catch {
    return [];
  }
  const found = await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      return info?.isFile() ? { path, name: name.slice(0, -3), mtimeMs: info.mtimeMs, size: info.size } : undefined;
    }),
  );
  return found.filter((entry) => entry !== undefined);
}
