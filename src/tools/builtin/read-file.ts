/** `read_file`: a text file's lines, numbered, paged with `offset` and `limit`. */
import { z } from 'zod';
import { fileLine, linesWord } from '../../context/context-cut.js';
import { numberLines, splitLines, target } from './file-access.js';
import { capForModel, counted, readFileNote } from '../present/output-cap.js';
import { argLine, argPath, fenced, fileLocation, lineRange, textContent } from '../present/present-args.js';
import type { BuiltinContext } from './tool-context.js';
import { type ToolOutcome, ToolError } from '../tool.js';
import { defineTool } from './tool-module.js';
import { PATH_ALIASES, PATH_DESCRIPTION } from './words.js';
import { grouped } from '../../shared/grouped.js';

/** The `read_file` arguments. */
const readFileSchema = z.object({
  path: z.string().describe(PATH_DESCRIPTION),
  offset: z.int().min(1).optional().describe('First line to read, 1-based. Default 1.').meta({ note: '1-based line' }),
  limit: z.int().min(1).optional().describe('Number of lines to read. Default: to the end.').meta({ note: 'lines' }),
});

/**
 * `read_file`: the lines `offset`…`offset+limit-1` (default: all), numbered, capped for the model
 * with a note giving the offset to read on; the client is shown the same lines unnumbered and uncapped.
 * When the client reads files and the model gave `offset` or `limit`, only those lines are asked
 * for (`fs/read_text_file` `line` and `limit`); a client that sends more than `limit` lines sent
 * the whole file, which is then cut here.
 * @throws {ToolError} from the backend (missing, binary, too large, outside) or an offset past the end.
 */
async function readFile(args: z.infer<typeof readFileSchema>, ctx: BuiltinContext): Promise<ToolOutcome> {
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

/** The `read_file` tool. */
export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a text file. Each line comes as "<number><TAB><text>"; the numbers are not part of the file. Long files are cut: use offset and limit to page.',
  schema: readFileSchema,
  aliases: { ...PATH_ALIASES, start_line: 'offset', line: 'offset', max_lines: 'limit', lines: 'limit' },
  kind: 'read',
  permission: 'reads',
  present(args, roots) {
    const file = argPath(args, roots);
    if (!file) return { title: 'Read' };
    const offset = argLine(args, 'offset');
    return { title: `Read ${file.rel}${lineRange(offset, argLine(args, 'limit'))}`, locations: [{ path: file.abs, line: offset ?? 1 }] };
  },
  run: readFile,
  cutNote(info) {
    const from = fileLine(info.firstText);
    const to = fileLine(info.lastText);
    if (from !== undefined && to !== undefined && to >= from) {
      return `[... lines ${grouped(from)}–${grouped(to)} left out to fit the context window; read_file with offset ${from} and limit ${to - from + 1} shows them, or a smaller limit to page ...]`;
    }
    return `[... ${linesWord(info.omitted)} left out to fit the context window; read_file with offset and limit shows them ...]`;
  },
});
