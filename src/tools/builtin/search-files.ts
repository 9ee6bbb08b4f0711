/**
 * `search_files`: a regular expression over the workspace's text files, or the files a glob names
 * (runs in `tools/search/run-search.ts`: ripgrep, else a worker thread).
 */
import { z } from 'zod';
import { linesWord } from '../../context/context-cut.js';
import { formatSearch, searchFiles } from '../search/run-search.js';
import { capForModel } from '../present/output-cap.js';
import { argPath, argText, shorten, textContent } from '../present/present-args.js';
import { resolveToolPath } from '../backends/workspace.js';
import { defineTool } from './tool-module.js';
import { DIRECTORY_ALIASES } from './words.js';

/** The `search_files` tool. */
export const searchFilesTool = defineTool({
  name: 'search_files',
  description:
    'Search file contents with a regex, or list files by glob alone. Prints "path:line: text" per match. Skips .git, hidden, ignored and binary files.',
  schema: z.object({
    pattern: z.string().optional().describe('Regex, e.g. "function\\s+main"; start with (?i) to ignore case. No look-around or back-references.'),
    path: z.string().optional().describe('Directory or file to search. Default: the working directory.'),
    glob: z.string().optional().describe('Only files whose path matches, e.g. "*.ts" or "src/**/*.py".'),
  }),
  aliases: { ...DIRECTORY_ALIASES, regex: 'pattern', query: 'pattern', include: 'glob' },
  kind: 'search',
  permission: 'reads',
  present(args, roots) {
    const dir = argPath(args, roots, '.')!;
    const glob = argText(args, 'glob');
    const pattern = argText(args, 'pattern') ?? '';
    if (!pattern.trim() && glob) return { title: `Find ${shorten(glob, 60)} in ${dir.rel}`, locations: [{ path: dir.abs }] };
    return { title: `Search ${JSON.stringify(shorten(pattern, 60))} in ${dir.rel}${glob ? ` (${shorten(glob, 60)})` : ''}`, locations: [{ path: dir.abs }] };
  },
  async run(args, ctx) {
    const request = { pattern: args.pattern, path: resolveToolPath(args.path ?? '.', ctx.roots), glob: args.glob };
    const result = await searchFiles(request, ctx.roots, ctx.signal, ctx.settings.search);
    const text = formatSearch(result, request, ctx.roots.cwd);
    return {
      failed: false,
      forModel: capForModel(text, ctx.settings.limits).text,
      content: [textContent(text)],
      rawOutput: {
        matches: result.matches.length,
        filesSearched: result.filesSearched,
        moreMatches: result.moreMatches,
        timedOut: result.timedOut,
        engine: result.engine,
      },
    };
  },
  cutNote: (info) => `[... ${linesWord(info.omitted)} of matches left out to fit the context window; search with a narrower pattern, path or glob ...]`,
});
