/** `edit_file`: replaces exact text in a file (the match itself is `tools/edit/apply-edit.ts`). */
import { z } from 'zod';
import { knownMissing, numberLines, splitLines, target } from './file-access.js';
import { applyEdit } from '../edit/apply-edit.js';
import { counted, countLines } from '../present/output-cap.js';
import { argPath, argText, fileLocation, lineRange } from '../present/present-args.js';
import type { BuiltinContext } from './tool-context.js';
import { type ToolOutcome, ToolError } from '../tool.js';
import { defineTool } from './tool-module.js';
import { PATH_ALIASES, PATH_DESCRIPTION } from './words.js';

/** The `edit_file` arguments. */
const editFileSchema = z.object({
  path: z.string().describe(PATH_DESCRIPTION),
  old_string: z.string().describe('The exact text to replace, without line numbers.'),
  new_string: z.string().describe('The text to put instead.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence. Default false.'),
});

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
async function editFile(args: z.infer<typeof editFileSchema>, ctx: BuiltinContext): Promise<ToolOutcome> {
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

/** The `edit_file` tool. */
export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace exact text in a file. old_string must match the file exactly (whitespace and indentation too) and only once, unless replace_all is true.',
  schema: editFileSchema,
  aliases: { ...PATH_ALIASES, old_str: 'old_string', old_text: 'old_string', new_str: 'new_string', new_text: 'new_string' },
  kind: 'edit',
  permission: 'edits',
  rememberedAs: () => ({ key: 'edit_file', scope: 'file edits' }),
  /** The preview `diff` is old_string → new_string; the final update carries the whole-file diff. */
  present(args, roots) {
    const file = argPath(args, roots);
    if (!file) return { title: 'Edit' };
    const oldText = argText(args, 'old_string');
    const newText = argText(args, 'new_string');
    return {
      title: `Edit ${file.rel}`,
      locations: [{ path: file.abs }],
      ...(oldText === undefined || newText === undefined ? {} : { content: [{ type: 'diff', path: file.abs, oldText, newText }] }),
    };
  },
  shorter: 'Make smaller edits: replace a few lines per edit_file call.',
  run: editFile,
});
