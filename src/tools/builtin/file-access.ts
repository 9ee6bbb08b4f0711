/**
 * What `read_file`, `write_file` and `edit_file` share over a {@link ToolBackend}: paths resolved
 * against the session cwd and confined to the workspace (also when the client's `fs/*` does the
 * reading: a model should not read `~/.ssh` just because the editor would let it), and lines.
 *
 * The model reads files with line numbers, `N<TAB>text` (Claude Code numbers lines too, `cat -n`
 * style; we skip its padding to save tokens). Numbers make offset/limit paging and "line 42" talk
 * easy; the edit_file description says they are not part of the file.
 */
import type { BuiltinContext } from './tool-context.js';
import { confine, relativeForTitle, resolveToolPath } from '../backends/workspace.js';

/** Lines of `text` without their line ends (`\n` or `\r\n`); a final line end adds no empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  return text.replace(/\r?\n$/, '').split(/\r?\n/);
}

/** `12\ttext` lines, numbered from `first`. */
export function numberLines(lines: readonly string[], first: number): string {
  return lines.map((line, i) => `${first + i}\t${line}`).join('\n');
}

/**
 * True when the backend knows the file is not there: then it is not read at all (a client asked
 * for a missing file answers with an error that acpx, for one, prints to the user).
 */
export async function knownMissing(abs: string, ctx: BuiltinContext): Promise<boolean> {
  return (await ctx.backend.fileExists?.(abs, ctx.signal)) === false;
}

/** The confined absolute path and its title form. */
export async function target(path: string, ctx: BuiltinContext): Promise<{ abs: string; rel: string }> {
  const abs = await confine(resolveToolPath(path, ctx.roots), ctx.roots);
  return { abs, rel: relativeForTitle(abs, ctx.roots.cwd) };
}

/**
 * The text a `write_file` would replace, for the diff of its permission request (so an overwrite
 * is not shown as a new file, `oldText: null`, and approved unseen); null for a new file or one
 * that cannot be read as text. Never throws: a refusal or a cancel shows up when the call runs.
 */
export async function previewOldText(path: string, ctx: Pick<BuiltinContext, 'backend' | 'roots' | 'signal'>): Promise<string | null> {
  try {
    const { abs } = await target(path, ctx as BuiltinContext);
    if (await knownMissing(abs, ctx as BuiltinContext)) return null;
    return await ctx.backend.readTextFile(abs, ctx.signal);
  } catch {
    return null;
  }
}
