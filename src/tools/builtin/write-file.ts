/** `write_file`: creates a file or replaces its whole content. */
import { z } from 'zod';
import { knownMissing, previewOldText, target } from './file-access.js';
import { counted, countLines } from '../present/output-cap.js';
import { argPath, argText, fileLocation } from '../present/present-args.js';
import type { BuiltinContext } from './tool-context.js';
import { type ToolOutcome, ToolError } from '../tool.js';
import { defineTool } from './tool-module.js';
import { PATH_ALIASES, PATH_DESCRIPTION } from './words.js';

/** The `write_file` arguments. */
const writeFileSchema = z.object({
  path: z.string().describe(PATH_DESCRIPTION),
  content: z.string().describe('The complete new file content.'),
});

/**
 * `write_file`: writes the whole text; the client gets a diff against the old text (null for a
 * new file, and also when the old file could not be read as text, e.g. binary).
 * @throws {ToolError} outside the workspace, the backend refusing the write.
 */
async function writeFile(args: z.infer<typeof writeFileSchema>, ctx: BuiltinContext): Promise<ToolOutcome> {
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

/** The `write_file` tool. */
export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Create a file or replace its whole content. Parent directories are created. Prefer edit_file to change part of a file.',
  schema: writeFileSchema,
  aliases: { ...PATH_ALIASES, contents: 'content', text: 'content', file_text: 'content' },
  kind: 'edit',
  permission: 'edits',
  rememberedAs: () => ({ key: 'write_file', scope: 'file writes' }),
  /**
   * A preview `diff` (as Claude Code's agent shows): `oldText` is null here (nothing is read
   * here; `presentFromWorkspace` puts in the text the file holds); the final `tool_call_update`
   * carries the real whole-file diff.
   */
  present(args, roots) {
    const file = argPath(args, roots);
    if (!file) return { title: 'Write' };
    const content = argText(args, 'content');
    return {
      title: `Write ${file.rel}`,
      locations: [{ path: file.abs }],
      ...(content === undefined ? {} : { content: [{ type: 'diff', path: file.abs, oldText: null, newText: content }] }),
    };
  },
  /** The preview diff against the text the file holds now (Neovim's CodeCompanion drew `oldText: null` as a new file). */
  async presentFromWorkspace(args, shown, ctx) {
    if (typeof args['path'] !== 'string' || !shown.content || ctx.signal.aborted) return shown;
    const oldText = await previewOldText(args['path'], ctx);
    return oldText === null ? shown : { ...shown, content: shown.content.map((c) => (c.type === 'diff' ? { ...c, oldText } : c)) };
  },
  shorter: 'Write the file in parts: write_file with the first part, then edit_file to append the rest in smaller pieces.',
  run: writeFile,
});
