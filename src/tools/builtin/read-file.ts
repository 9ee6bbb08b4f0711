/**
 * `read_file`: a text file's lines, numbered, paged with `offset` and `limit` (runs in
 * `tools/builtin/file-tools.ts`).
 */
import { z } from 'zod';
import { fileLine, linesWord } from '../../context/context-cut.js';
import { executeReadFile } from './file-tools.js';
import { argLine, argPath, lineRange } from '../present/present-args.js';
import { defineTool } from './tool-module.js';
import { PATH_ALIASES, PATH_DESCRIPTION } from './words.js';
import { grouped } from '../../shared/grouped.js';

/** The `read_file` tool. */
export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a text file. Each line comes as "<number><TAB><text>"; the numbers are not part of the file. Long files are cut: use offset and limit to page.',
  schema: z.object({
    path: z.string().describe(PATH_DESCRIPTION),
    offset: z.int().min(1).optional().describe('First line to read, 1-based. Default 1.').meta({ note: '1-based line' }),
    limit: z.int().min(1).optional().describe('Number of lines to read. Default: to the end.').meta({ note: 'lines' }),
  }),
  aliases: { ...PATH_ALIASES, start_line: 'offset', line: 'offset', max_lines: 'limit', lines: 'limit' },
  kind: 'read',
  permission: 'reads',
  present(args, roots) {
    const file = argPath(args, roots);
    if (!file) return { title: 'Read' };
    const offset = argLine(args, 'offset');
    return { title: `Read ${file.rel}${lineRange(offset, argLine(args, 'limit'))}`, locations: [{ path: file.abs, line: offset ?? 1 }] };
  },
  run: executeReadFile,
  cutNote(info) {
    const from = fileLine(info.firstText);
    const to = fileLine(info.lastText);
    if (from !== undefined && to !== undefined && to >= from) {
      return `[... lines ${grouped(from)}–${grouped(to)} left out to fit the context window; read_file with offset ${from} and limit ${to - from + 1} shows them, or a smaller limit to page ...]`;
    }
    return `[... ${linesWord(info.omitted)} left out to fit the context window; read_file with offset and limit shows them ...]`;
  },
});
