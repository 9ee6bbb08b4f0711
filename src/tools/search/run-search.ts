/**
 * `search_files`, always local (ACP has no search method): the lines of text files matching a
 * regular expression under a directory, or with a glob and no pattern the files it matches. Run
 * by ripgrep when it is installed (search-rg.ts), else by the JavaScript search in a worker thread
 * (search-worker.ts) fed by the walk of walk-files.ts; either way the model's pattern and glob never run on
 * the main thread, a cancel ends the search at once, and a time budget bounds it.
 *
 * Both engines skip `.git`, hidden files and what `.gitignore`, `.ignore` and `.git/info/exclude`
 * ignore, do not follow symlinks while walking, skip binary files (a NUL byte) and files over
 * `maxFileBytes`, and let a glob name files the ignore rules would skip (as ripgrep's `-g` does).
 * A path given explicitly is confined to the workspace like any other.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { globSpec, type GlobSpec } from './glob.js';
import { ToolError, type WorkspaceRoots } from '../tool.js';
import { confine, relativeForTitle } from '../backends/workspace.js';
import { translatePattern } from './search-pattern.js';
import { findRipgrep, runRipgrep } from './search-rg.js';
import { runWorkerSearch, type AskGlob } from './search-worker.js';
import { single, walkFiles } from './walk-files.js';
import { SNIFF_BYTES } from '../backends/text-decode.js';
import { grouped } from '../../shared/grouped.js';

/**
 * Bounds of a search.
 * @internal the tests set limits with it.
 */
export interface SearchLimits {
  /** Most matching lines (or listed files) reported. @defaultValue 200 */
  maxMatches: number;
  /** Larger files are skipped, in bytes. @defaultValue 1 MiB */
  maxFileBytes: number;
  /** Matched lines are trimmed and cut to this many characters. @defaultValue 300 */
  maxLineChars: number;
  /** Time a search may take, in ms; then it stops and says how far it got. @defaultValue 10_000 */
  timeBudgetMs: number;
}

/** The defaults of {@link SearchLimits}. */
const DEFAULT_SEARCH_LIMITS: SearchLimits = { maxMatches: 200, maxFileBytes: 1024 * 1024, maxLineChars: 300, timeBudgetMs: 10_000 };

/** What to search. */
export interface SearchRequest {
  /** Regular expression (search-pattern.ts's dialect); absent or blank lists the files `glob` matches. */
  pattern?: string | undefined;
  /** Absolute directory or file to search. */
  path: string;
  /** Optional glob on the path relative to `path` (see glob.ts); required without a pattern. */
  glob?: string | undefined;
}

/** How to search. */
export interface SearchOptions {
  /** `OPENAI_ACP_RIPGREP`: unset or `auto` (rg on the PATH), `off`, or the rg executable. */
  ripgrep?: string | undefined;
  /** Bounds; each defaults to {@link DEFAULT_SEARCH_LIMITS}. */
  limits?: Partial<SearchLimits>;
}

/** One matching line, or one listed file (`line` 0, `text` empty). */
interface SearchMatch {
  /** The file, absolute. */
  file: string;
  /** 1-based line number; 0 for a listed file. */
  line: number;
  /** The line, trimmed and cut. */
  text: string;
}

/** The outcome of a search. */
export interface SearchResult {
  /** Matches sorted by file and line. */
  matches: SearchMatch[];
  /** Files read and tested (listing: files matched); `undefined` when ripgrep was stopped before saying. */
  filesSearched: number | undefined;
  /** True when more matches existed than reported. */
  moreMatches: boolean;
  /** True when the time budget ran out first: the matches are those found until then. */
  timedOut: boolean;
  /** Which engine ran. */
  engine: 'ripgrep' | 'javascript';
  /** The time budget, in ms (for the words when it ran out). */
  budgetMs: number;
}

/**
 * Searches `request.path` (confined to `roots` here).
 * @throws {ToolError} an unsupported or invalid pattern or glob, neither given, outside the
 *   workspace, no such path; the signal's reason when aborted.
 */
export async function searchFiles(request: SearchRequest, roots: WorkspaceRoots, signal: AbortSignal, options: SearchOptions = {}): Promise<SearchResult> {
  const bounds = { ...DEFAULT_SEARCH_LIMITS, ...options.limits };
  const patternText = request.pattern?.trim() ? request.pattern : undefined;
  const globText = request.glob?.trim() || undefined;
  if (patternText === undefined && globText === undefined)
    throw new ToolError('search_files needs a pattern (to search file contents) or a glob (to list files by name), or both.');
  const pattern = patternText === undefined ? undefined : translatePattern(patternText);
  const glob = globText === undefined ? undefined : checkedGlob(globText);
  const base = await confine(request.path, roots);
  const info = await stat(base).catch(() => undefined);
  if (!info) throw new ToolError(`no such file or directory: ${base}`);
  // A FIFO or a device is never opened: reading one could wait forever.
  if (!info.isDirectory() && !info.isFile()) throw new ToolError(`${base} is not a regular file or a directory; not searched`);
  signal.throwIfAborted();
  // One file is searched here whatever is installed: rg would search a binary file it was named.
  const rg = info.isDirectory() ? await findRipgrep(options.ripgrep) : { path: undefined };
  if (rg.path !== undefined) {
    const found = await runRipgrep(
      {
        rg: rg.path,
        pattern: pattern?.rg,
        path: base,
        glob: globText,
        maxFileBytes: bounds.maxFileBytes,
        maxMatches: bounds.maxMatches,
        budgetMs: bounds.timeBudgetMs,
      },
      signal,
    );
    const matches = found.matches.map(([file, line, text]) => ({
      file: path.resolve(base, file),
      line,
      text: pattern ? cutLine(text, bounds.maxLineChars) : '',
    }));
    return {
      ...found,
      matches: sortMatches(matches),
      filesSearched: found.filesSearched ?? (pattern ? undefined : matches.length),
      engine: 'ripgrep',
      budgetMs: bounds.timeBudgetMs,
    };
  }
  const setup = {
    regex: pattern && { source: pattern.js, flags: pattern.jsFlags },
    glob,
    maxFileBytes: bounds.maxFileBytes,
    maxLineChars: bounds.maxLineChars,
    maxMatches: bounds.maxMatches,
    sniffBytes: SNIFF_BYTES,
  };
  const files = (ask: AskGlob) => (info.isDirectory() ? walkFiles(base, roots, glob && { negate: glob.negate, ask }) : single(base));
  const found = await runWorkerSearch(setup, files, signal, bounds.timeBudgetMs);
  const matches = found.matches.map(([file, line, text]) => ({ file, line, text }));
  return {
    filesSearched: found.filesSearched,
    moreMatches: found.moreMatches,
    timedOut: found.timedOut,
    matches: sortMatches(matches),
    engine: 'javascript',
    budgetMs: bounds.timeBudgetMs,
  };
}

function checkedGlob(glob: string): GlobSpec {
  const spec = globSpec(glob);
  try {
    new RegExp(spec.source);
  } catch (error) {
    throw new ToolError(`invalid glob ${JSON.stringify(glob.length > 200 ? `${glob.slice(0, 200)}…` : glob)}: ${(error as Error).message}`);
  }
  return spec;
}

function sortMatches(matches: SearchMatch[]): SearchMatch[] {
  return matches.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
}

/**
 * The result as text: `relative/path:line: text` a line (paths relative to `cwd`), or one path a
 * line when listing; then what was cut or where the time ran out; or a sentence saying nothing matched.
 */
export function formatSearch(result: SearchResult, request: SearchRequest, cwd: string): string {
  const where = relativeForTitle(request.path, cwd);
  const listing = !request.pattern?.trim();
  const count = result.filesSearched;
  const searched = count === undefined ? '' : `${grouped(count)} file${count === 1 ? '' : 's'}`;
  const seconds = result.budgetMs / 1000;
  const budget = seconds >= 10 || Number.isInteger(seconds) ? String(Math.round(seconds)) : seconds.toFixed(1);
  const stopped = result.timedOut ? `[stopped after ${budget} s${searched ? ` and ${searched}` : ''}; narrow the path or glob]` : '';
  if (result.matches.length === 0) {
    const what = listing
      ? `No files in ${where} match the glob ${JSON.stringify(request.glob)}`
      : `No matches for ${JSON.stringify(request.pattern)} in ${where}${request.glob ? ` (glob ${request.glob})` : ''}`;
    return `${what}${searched && !listing ? `; ${searched} searched` : ''}.${stopped ? ` ${stopped}` : ''}`;
  }
  const lines = result.matches.map((m) => (listing ? relativeForTitle(m.file, cwd) : `${relativeForTitle(m.file, cwd)}:${m.line}: ${m.text}`));
  if (result.moreMatches)
    lines.push(
      listing
        ? `[more files not shown; narrow the glob or path (the first ${result.matches.length} are above)]`
        : `[more matches not shown; narrow the pattern or path (the first ${result.matches.length} are above)]`,
    );
  if (stopped) lines.push(stopped);
  return lines.join('\n');
}

/**
 * The line trimmed, cut to `max` characters with `…` (never between a surrogate pair).
 * @internal the cut of a long matched line is checked on its own.
 */
export function cutLine(text: string, max: number): string {
  const trimmed = text.trim();
  if (trimmed.length <= max) return trimmed;
  let end = max;
  const code = trimmed.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${trimmed.slice(0, end)}…`;
}
