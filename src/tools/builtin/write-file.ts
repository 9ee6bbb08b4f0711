/** `write_file`: creates a file or replaces its whole content (runs in `tools/builtin/file-tools.ts`). */
import { z } from 'zod';
import { executeWriteFile, previewOldText } from './file-tools.js';
import { argPath, argText } from '../present/present-args.js';
import { defineTool } from './tool-module.js';
import { PATH_ALIASES, PATH_DESCRIPTION } from './words.js';

/** The `write_file` tool. */
export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Create a file or replace its whole content. Parent directories are created. Prefer edit_file to change part of a file.',
  schema: z.object({
    path: z.string().describe(PATH_DESCRIPTION),
    content: z.string().describe('The complete new file content.'),
  }),
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
  run: executeWriteFile,
});
