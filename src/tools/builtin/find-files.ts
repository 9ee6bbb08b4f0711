/**
 * `find_files`: the files whose path matches a glob, ignored ones skipped (runs in
 * `tools/search/run-search.ts`, as a search by glob alone).
 */
import { z } from 'zod';
import { linesWord } from '../../context/context-cut.js';
import { resolveToolPath } from '../backends/workspace.js';
import { capForModel } from '../present/output-cap.js';
import { argPath, argText, shorten, textContent } from '../present/present-args.js';
import { formatSearch, searchFiles } from '../search/run-search.js';
import { defineTool } from './tool-module.js';
import { DIRECTORY_ALIASES } from './words.js';

/** The `find_files` tool. */
export const findFilesTool = defineTool({
  name: 'find_files',
  description: 'List the files whose path matches a glob. Skips .git, hidden and ignored files.',
  schema: z.object({
    glob: z.string().describe('Glob on the path, e.g. "*.py" or "src/**/*.ts".'),
    path: z.string().optional().describe('Directory to look in. Default: the working directory.'),
  }),
  aliases: { ...DIRECTORY_ALIASES, pattern: 'glob' },
  kind: 'search',
  permission: 'reads',
  present(args, roots) {
    const dir = argPath(args, roots, '.')!;
    const glob = argText(args, 'glob');
    return { title: glob ? `Find ${shorten(glob, 60)} in ${dir.rel}` : `Find files in ${dir.rel}`, locations: [{ path: dir.abs }] };
  },
  async run(args, ctx) {
    const request = { path: resolveToolPath(args.path ?? '.', ctx.roots), glob: args.glob };
    const result = await searchFiles(request, ctx.roots, ctx.signal, ctx.settings.search);
    const text = formatSearch(result, request, ctx.roots.cwd);
    return {
      failed: false,
      forModel: capForModel(text, ctx.settings.limits).text,
      content: [textContent(text)],
      rawOutput: { files: result.matches.length, moreMatches: result.moreMatches, engine: result.engine },
    };
  },
  cutNote: (info) => `[... ${linesWord(info.omitted)} of file names left out to fit the context window; use a narrower glob or path ...]`,
});
