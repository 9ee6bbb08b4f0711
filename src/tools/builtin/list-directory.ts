/** `list_directory`: one directory's entries, ignored ones skipped (runs in `tools/search/list-entries.ts`). */
import { z } from 'zod';
import { formatListing, listDirectory } from '../search/list-entries.js';
import { capForModel } from '../present/output-cap.js';
import { argPath, textContent } from '../present/present-args.js';
import { resolveToolPath } from '../backends/workspace.js';
import { defineTool } from './tool-module.js';
import { DIRECTORY_ALIASES } from './words.js';

/** The `list_directory` tool. */
export const listDirectoryTool = defineTool({
  name: 'list_directory',
  description: 'List a directory. Directories end with "/". Skips .git and what .gitignore ignores.',
  schema: z.object({
    path: z.string().optional().describe('Directory, absolute or relative to the working directory. Default: the working directory.'),
  }),
  aliases: DIRECTORY_ALIASES,
  kind: 'search',
  permission: 'reads',
  present(args, roots) {
    const dir = argPath(args, roots, '.')!;
    return { title: `List ${dir.rel}`, locations: [{ path: dir.abs }] };
  },
  async run(args, ctx) {
    const listing = await listDirectory(resolveToolPath(args.path ?? '.', ctx.roots), ctx.roots, ctx.signal);
    const text = formatListing(listing, ctx.roots.cwd);
    return {
      failed: false,
      forModel: capForModel(text, ctx.settings.limits).text,
      content: [textContent(text)],
      locations: [{ path: listing.dir }],
      rawOutput: { path: listing.dir, entries: listing.entries.length, more: listing.more, ignored: listing.ignored },
    };
  },
});
