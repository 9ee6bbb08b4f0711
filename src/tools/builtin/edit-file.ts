/**
 * `edit_file`: replaces exact text in a file (runs in `tools/builtin/file-tools.ts`; the match itself is
 * `tools/edit/apply-edit.ts`).
 */
import { z } from 'zod';
import { executeEditFile } from './file-tools.js';
import { argPath, argText } from '../present/present-args.js';
import { defineTool } from './tool-module.js';
import { PATH_ALIASES, PATH_DESCRIPTION } from './words.js';

/** The `edit_file` tool. */
export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace exact text in a file. old_string must match the file exactly (whitespace and indentation too) and only once, unless replace_all is true.',
  schema: z.object({
    path: z.string().describe(PATH_DESCRIPTION),
    old_string: z.string().describe('The exact text to replace, without line numbers.'),
    new_string: z.string().describe('The text to put instead.'),
    replace_all: z.boolean().optional().describe('Replace every occurrence. Default false.'),
  }),
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
  run: executeEditFile,
});
