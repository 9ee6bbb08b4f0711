/** `write_file`: creates a file or replaces its whole content (runs in `tools/file-tools.ts`). */
import { z } from 'zod';
import { executeWriteFile } from '../file-tools.js';
import { argPath, argText } from '../present.js';
import { defineTool } from './tool-module.js';
import { PATH_DESCRIPTION } from './words.js';

/** The `write_file` tool. */
export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Create a file or replace its whole content. Parent directories are created. Prefer edit_file to change part of a file.',
  schema: z.object({
    path: z.string().describe(PATH_DESCRIPTION),
    content: z.string().describe('The complete new file content.'),
  }),
  kind: 'edit',
  permission: 'edits',
  rememberedAs: () => ({ key: 'write_file', scope: 'file writes' }),
  /**
   * A preview `diff` (as Claude Code's agent shows): `oldText` is null since the old file is not
   * read here; the final `tool_call_update` carries the real whole-file diff.
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
  run: executeWriteFile,
});
