/**
 * `read_file`, `write_file` and `edit_file` over a {@link ToolBackend}. Paths are resolved against
 * the session cwd and confined to the workspace (also when the client's `fs/*` does the reading:
 * a model should not read `~/.ssh` just because the editor would let it).
 *
 * The model reads files with line numbers, `N<TAB>text` (Claude Code numbers lines too, `cat -n`
 * style; we skip its padding to save tokens). Numbers make offset/limit paging and "line 42" talk
 * easy; the edit_file description says they are not part of the file.
 */
import { applyEdit } from '../edit/apply-edit.js';
import { capForModel, counted, countLines, readFileNote } from '../present/output-cap.js';
import { fenced, fileLocation, lineRange, textContent } from '../present/present-args.js';
import type { BuiltinContext } from './tool-context.js';
import type { ToolOutcome } from '../tool.js';
import { ToolError } from '../tool.js';
import { confine, relativeForTitle, resolveToolPath } from '../backends/workspace.js';
import { grouped } from '../../shared/grouped.js';

/** `read_file` arguments once checked. */
export interface ReadFileArgs {
  path: string;
  offset?: number | undefined;
  limit?: number | undefined;
}
/** `write_file` arguments once checked. */
export interface WriteFileArgs {
  path: string;
  content: string;
}
/** `edit_file` arguments once checked. */
export interface EditFileArgs {
  path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

/** Lines of `text` without their line ends (`\n` or `\r\n`); a final line end adds no empty line. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  return text.replace(/\r?\n$/, '').split(/\r?\n/);
}

/** `12\ttext` lines, numbered from `first`. */
function numberLines(lines: readonly string[], first: number): string {
  return lines.map((line, i) => `${first + i}\t${line}`).join('\n');
}

/**
 * True when the backend knows the file is not there: then it is not read at all (a client asked
 * for a missing file answers with an error that acpx, for one, prints to the user).
 */
async function knownMissing(abs: string, ctx: BuiltinContext): Promise<boolean> {
  return (await ctx.backend.fileExists?.(abs, ctx.signal)) === false;
}

/** The confined absolute path and its title form. */
async function target(path: string, ctx: BuiltinContext): Promise<{ abs: string; rel: string }> {
  const abs = await confine(resolveToolPath(path, ctx.roots), ctx.roots);
  return { abs, rel: relativeForTitle(abs, ctx.roots.cwd) };
}

/**
 * `read_file`: the lines `offset`…`offset+limit-1` (default: all), numbered, capped for the model
 * with a note giving the offset to read on; the client is shown the same lines unnumbered and uncapped.
 * When the client reads files and the model gave `offset` or `limit`, only those lines are asked
 * for (`fs/read_text_file` `line` and `limit`); a client that sends more than `limit` lines sent
 * the whole file, which is then cut here.
 * @throws {ToolError} from the backend (missing, binary, too large, outside) or an offset past the end.
 */
export async function executeReadFile(args: ReadFileArgs, ctx: BuiltinContext): Promise<ToolOutcome> {
  const { abs, rel } = await target(args.path, ctx);
  const first = args.offset ?? 1;
  const ranged = ctx.backend.where.read === 'client' && (args.offset !== undefined || args.limit !== undefined);
  const all = splitLines(await ctx.backend.readTextFile(abs, ctx.signal, ranged ? { line: first, limit: args.limit } : undefined));
  // The whole file, unless the client sent just the lines asked for (then the count is unknown).
  const whole = !ranged || (args.limit !== undefined && all.length > args.limit);
  const total = whole ? all.length : undefined;
  const start = whole ? first - 1 : 0;
  if (all.length === 0 && first === 1) {
    return {
      failed: false,
      forModel: `${rel} is empty.`,
      content: [textContent('(empty file)')],
      locations: [fileLocation(abs, 1)],
      rawOutput: { path: abs, lines: 0, totalLines: 0 },
    };
  }
  if (start >= all.length)
    throw new ToolError(`offset ${first} is past the end of ${rel}${total !== undefined ? `, which has ${counted(total, 'line')}` : ''}.`);
  const slice = all.slice(start, args.limit === undefined ? undefined : start + args.limit);
  const last = first + slice.length - 1;
  const capped = capForModel(numberLines(slice, first), { ...ctx.settings.limits, note: readFileNote(first - 1) });
  const more = total !== undefined ? ` of ${grouped(total)}` : slice.length === args.limit ? `; more may follow from offset ${last + 1}` : '';
  const partial = first > 1 || total === undefined || last < total;
  const forModel = partial ? `${capped.text}\n[${first === last ? `line ${first}` : `lines ${first}–${last}`}${more}]` : capped.text;
  return {
    failed: false,
    forModel,
    content: [textContent(fenced(slice.join('\n')))],
    locations: [fileLocation(abs, first)],
    rawOutput: { path: abs, firstLine: first, lines: slice.length, ...(total !== undefined ? { totalLines: total } : {}), truncated: capped.truncated },
  };
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

/**
 * `write_file`: writes the whole text; the client gets a diff against the old text (null for a
 * new file, and also when the old file could not be read as text, e.g. binary).
 * @throws {ToolError} outside the workspace, the backend refusing the write.
 */
export async function executeWriteFile(args: WriteFileArgs, ctx: BuiltinContext): Promise<ToolOutcome> {
  const { abs, rel } = await target(args.path, ctx);
  // The old text only feeds the diff: any failure to read it (missing, binary, a client that
  // answers "not found" with an error of its own) means "no old text", except a refusal or a cancel.
  const oldText = (await knownMissing(abs, ctx))
    ? null
    : await ctx.backend.readTextFile(abs, ctx.signal).catch((error: unknown) => {
        if (ctx.signal.aborted || (error instanceof ToolError && (error.code === 'outside_workspace' || error.code === 'is_directory'))) throw error;
        return null;
      });
  await ctx.backend.writeTextFile(abs, args.content, ctx.signal);
  const lines = countLines(args.content);
  const what = oldText === null ? 'new file' : `replaced ${counted(countLines(oldText), 'line')}`;
  return {
    failed: false,
    forModel: `Wrote ${counted(lines, 'line')} to ${rel} (${what}).`,
    content: [{ type: 'diff', path: abs, oldText, newText: args.content }],
    locations: [fileLocation(abs)],
    rawOutput: { path: abs, lines, created: oldText === null },
  };
}

/** Lines of context shown around an edit to the model. */
const SNIPPET_CONTEXT = 3;
/** An edit snippet longer than this many lines is not shown. */
const SNIPPET_MAX_LINES = 40;

/**
 * `edit_file`: exact replacement (see edit.ts); the client gets a diff of the whole file, the
 * model a confirmation with the changed lines numbered. A missing file with an empty `old_string`
 * is created with `new_string`.
 * @throws {ToolError} old_string not found / not unique / empty, and the backend's errors.
 */
export async function executeEditFile(args: EditFileArgs, ctx: BuiltinContext): Promise<ToolOutcome> {
  const { abs, rel } = await target(args.path, ctx);
  let oldText: string | null;
  try {
    if (await knownMissing(abs, ctx)) throw new ToolError(`no such file: ${abs}`, 'not_found');
    oldText = await ctx.backend.readTextFile(abs, ctx.signal);
  } catch (error) {
    if (!(error instanceof ToolError && error.code === 'not_found')) throw error;
    if (args.old_string !== '') throw new ToolError(`${error.message}. To create a file, use write_file.`, 'not_found');
    oldText = null;
  }
  const edit =
    oldText === null
      ? { ok: true as const, text: args.new_string, replacements: 1, at: 0, inserted: args.new_string }
      : applyEdit(oldText, args.old_string, args.new_string, args.replace_all ?? false, rel);
  if (!edit.ok) throw new ToolError(edit.error);
  await ctx.backend.writeTextFile(abs, edit.text, ctx.signal);
  const firstLine = countLines(edit.text.slice(0, edit.at)) + (edit.at === 0 || edit.text.charAt(edit.at - 1) === '\n' ? 1 : 0);
  const note = 'note' in edit && edit.note ? ` Note: ${edit.note}.` : '';
  const head = oldText === null ? `Created ${rel}.` : `Edited ${rel}: ${counted(edit.replacements, 'replacement')}.${note}`;
  return {
    failed: false,
    forModel: head + snippet(edit.text, firstLine, Math.max(1, splitLines(edit.inserted).length)),
    content: [{ type: 'diff', path: abs, oldText, newText: edit.text }],
    locations: [fileLocation(abs, firstLine)],
    rawOutput: { path: abs, replacements: edit.replacements, line: firstLine, created: oldText === null },
  };
}

/** The changed lines with a little context, numbered; empty when too long to be worth it. */
function snippet(text: string, firstLine: number, changedLines: number): string {
  if (changedLines > SNIPPET_MAX_LINES) return '';
  const lines = splitLines(text);
  const from = Math.max(1, firstLine - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, firstLine + changedLines - 1 + SNIPPET_CONTEXT);
  if (to < from) return '';
  return `\nThe changed part now reads${lineRange(from, to - from + 1)}:\n${numberLines(lines.slice(from - 1, to), from)}`;
}
