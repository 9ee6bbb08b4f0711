/**
 * User commands as files, pure: a Markdown prompt file (`<name>.md`, the file name is the
 * command) with optional front matter, and the expansion of what the user typed after the
 * command into its body. The format is the one Claude Code's `.claude/commands/*.md` use:
 *
 * ```markdown
 * ---
 * description: Review the staged changes
 * argument-hint: [focus]
 * ---
 * Review `git diff --staged`. Focus on: $ARGUMENTS
 * ```
 *
 * `$ARGUMENTS` is everything typed after the command; `$1`, `$2` … its words (quotes group words);
 * a body without any placeholder gets the arguments appended on a line of their own.
 *
 * Source: Claude Code slash commands, https://docs.claude.com/en/docs/claude-code/slash-commands.
 */

/** A parsed command file. */
export interface CommandFile {
  /** The command name (the file name without `.md`). */
  name: string;
  /** From front matter `description`, else the body's first line (shortened). */
  description: string;
  /** From front matter `argument-hint`. */
  hint?: string;
  /** The prompt text, front matter removed. */
  body: string;
}

/** A command name: letters, digits, `_`, `-`, `.`; no `:` (MCP prompts use it) and no spaces. */
const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Longest description kept, in characters. */
const MAX_DESCRIPTION = 120;

/**
 * Parses a command file's bytes.
 * @returns the command, or the reason it is skipped (not UTF-8, broken front matter, a bad name).
 */
export function parseCommandFile(name: string, bytes: Uint8Array): CommandFile | { error: string } {
  if (!COMMAND_NAME.test(name)) return { error: `"${name}" is not a usable command name (letters, digits, _, - and . only)` };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { error: 'it is not valid UTF-8' };
  }
  text = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  let body = text;
  const fields: Record<string, string> = {};
  if (/^---[ \t]*\n/.test(text)) {
    const end = /\n---[ \t]*(\n|$)/.exec(text.slice(3));
    if (!end) return { error: 'its front matter has no closing ---' };
    const block = text.slice(text.indexOf('\n') + 1, 3 + end.index + 1);
    const parsed = parseFrontMatter(block);
    if (!parsed.ok) return { error: parsed.error };
    Object.assign(fields, parsed.fields);
    body = text.slice(3 + end.index + end[0].length);
  }
  body = body.replace(/^\n+/, '').trimEnd();
  const firstLine =
    body
      .split('\n')
      .find((line) => line.trim())
      ?.replace(/^#+\s*/, '')
      .trim() ?? '';
  const description = (fields['description'] ?? '').trim() || firstLine || `/${name}`;
  const command: CommandFile = { name, description: shorten(description, MAX_DESCRIPTION), body };
  const hint = fields['argument-hint']?.trim();
  if (hint) command.hint = hint;
  return command;
}

/**
 * Reads `key: value` lines of YAML front matter: plain, `"double"` or `'single'` quoted scalars;
 * blank lines, `#` comments, and indented or `- ` lines (lists and nested values of keys not used
 * here) are passed over. Anything else is broken front matter.
 * @internal a pure parser checked on its own, without a command folder.
 */
export function parseFrontMatter(block: string): { ok: true; fields: Record<string, string> } | { ok: false; error: string } {
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [index, line] of block.split('\n').entries()) {
    if (!line.trim() || line.trimStart().startsWith('#') || /^[ \t]/.test(line) || line.startsWith('- ')) continue;
    const match = /^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*))?$/.exec(line);
    if (!match) return { ok: false, error: `its front matter line ${index + 2} is not "key: value"` };
    const raw = (match[2] ?? '').trim();
    const value = unquote(raw);
    if (value === undefined) return { ok: false, error: `its front matter value of "${match[1]}" has an unclosed quote` };
    fields[match[1]!] = value;
  }
  return { ok: true, fields };
}

/** A scalar without its quotes; `undefined` for an unclosed quote. A plain value loses a trailing ` # comment`. */
function unquote(raw: string): string | undefined {
  if (raw.startsWith('"')) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(raw)) return undefined;
    try {
      return JSON.parse(raw) as string;
    } catch {
      return raw.slice(1, -1);
    }
  }
  if (raw.startsWith("'")) return /^'(?:[^']|'')*'$/.test(raw) ? raw.slice(1, -1).replace(/''/g, "'") : undefined;
  return raw.replace(/\s+#.*$/, '');
}

/**
 * Words of an argument text: whitespace separates; `"…"` (with `\\"` inside) and `'…'` group,
 * also within a word (`key="a b"`), their quotes removed.
 */
export function splitArguments(text: string): string[] {
  const words: string[] = [];
  for (const [word] of text.matchAll(/(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']+|["'])+/g)) {
    words.push(
      word.replace(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g, (_quoted, double: string | undefined, single: string | undefined) =>
        double !== undefined ? double.replace(/\\(.)/g, '$1') : single!,
      ),
    );
  }
  return words;
}

/**
 * The prompt of a command for what the user typed after it: `$ARGUMENTS` → `args` (trimmed),
 * `$1`…`$9` → its words (missing ones empty); without any placeholder, `args` is appended on a
 * new paragraph when not empty. Pure.
 */
export function expandCommand(body: string, args: string): string {
  const trimmed = args.trim();
  const words = splitArguments(trimmed);
  if (!/\$(ARGUMENTS|[1-9])/.test(body)) return trimmed ? `${body}\n\n${trimmed}` : body;
  return body.replace(/\$(ARGUMENTS|[1-9])/g, (_match, what: string) => (what === 'ARGUMENTS' ? trimmed : (words[Number(what) - 1] ?? '')));
}

/** `text` cut to `max` characters with `…`. */
function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/**
 * A prompt that is a slash command: one text block `/<name>` then optional arguments. Returns the
 * name and the rest, or `undefined`. Names may hold `:` (MCP prompts, `/server:prompt`).
 */
export function parseCommandLine(text: string): { name: string; args: string } | undefined {
  const match = /^\s*\/([A-Za-z0-9][\w.:-]*)(?:\s+([\s\S]*))?$/.exec(text);
  return match ? { name: match[1]!, args: (match[2] ?? '').trim() } : undefined;
}
