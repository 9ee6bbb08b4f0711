/**
 * `search_files`, always local (ACP has no search method): a JavaScript regular expression over
 * the text files under a directory, `.git` and `.gitignore`d paths skipped, bounded in files,
 * sizes and matches, and abortable between files.
 *
 * Symlinks are not followed while walking (as ripgrep does by default): no loops, no way out of
 * the workspace. A path given explicitly is confined like any other.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { compileGlob } from '../glob.js';
import { ToolError, type WorkspaceRoots } from '../tool-types.js';
import { confine, relativeForTitle } from '../workspace.js';
import { IgnoreStack } from './ignore-rules.js';
import { looksBinary } from './text-decode.js';

/** Bounds of a search. */
export interface SearchLimits {
  /** Most matches reported. @defaultValue 200 */
  maxMatches: number;
  /** Most files looked at; the walk stops there. @defaultValue 20_000 */
  maxFiles: number;
  /** Larger files are skipped, in bytes. @defaultValue 1 MiB */
  maxFileBytes: number;
  /** Matched lines are trimmed and cut to this many characters. @defaultValue 300 */
  maxLineChars: number;
}

/** The defaults of {@link SearchLimits}. */
export const DEFAULT_SEARCH_LIMITS: SearchLimits = { maxMatches: 200, maxFiles: 20_000, maxFileBytes: 1024 * 1024, maxLineChars: 300 };

/** What to search. */
export interface SearchRequest {
  /** JavaScript regular expression source; a leading `(?i)` makes it case-insensitive. */
  pattern: string;
  /** Absolute directory or file to search. */
  path: string;
  /** Optional glob on the path relative to `path` (see glob.ts). */
  glob?: string;
}

/** One matching line. */
export interface SearchMatch {
  /** The file, absolute. */
  file: string;
  /** 1-based line number. */
  line: number;
  /** The line, trimmed and cut. */
  text: string;
}

/** The outcome of a search. */
export interface SearchResult {
  matches: SearchMatch[];
  /** Files read and tested. */
  filesSearched: number;
  /** True when more matches existed than reported. */
  moreMatches: boolean;
  /** True when the walk stopped at `maxFiles`. */
  walkLimitHit: boolean;
}

/**
 * Compiles the model's pattern.
 * @throws {ToolError} naming the problem when the pattern is not a valid JavaScript regular expression.
 */
export function compilePattern(pattern: string): RegExp {
  let source = pattern;
  let flags = '';
  // Models trained on ripgrep/PCRE write inline (?i); JavaScript (before Node 23) does not know it.
  if (source.startsWith('(?i)')) {
    source = source.slice(4);
    flags = 'i';
  }
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw new ToolError(`invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}. The pattern is a JavaScript regex; escape ( ) [ ] { } . * + ? | \\ to match them literally.`);
  }
}

/**
 * Searches `request.path` (confined to `roots` here).
 * @throws {ToolError} invalid pattern, outside the workspace, no such path; the signal's reason when aborted.
 */
export async function searchFiles(request: SearchRequest, roots: WorkspaceRoots, signal: AbortSignal, limits: Partial<SearchLimits> = {}): Promise<SearchResult> {
  const bounds = { ...DEFAULT_SEARCH_LIMITS, ...limits };
  const regex = compilePattern(request.pattern);
  const globTest = request.glob?.trim() ? compileGlob(request.glob) : undefined;
  const base = await confine(request.path, roots);
  const info = await stat(base).catch(() => undefined);
  if (!info) throw new ToolError(`no such file or directory: ${base}`);
  const result: SearchResult = { matches: [], filesSearched: 0, moreMatches: false, walkLimitHit: false };

  const searchOne = async (file: string): Promise<boolean> => {
    signal.throwIfAborted();
    result.filesSearched++;
    const size = (await stat(file).catch(() => undefined))?.size ?? 0;
    if (size > bounds.maxFileBytes) return true;
    const bytes = await readFile(file).catch(() => undefined);
    if (!bytes || looksBinary(bytes)) return true;
    const lines = bytes.toString('utf8').split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const text = lines[i] ?? '';
      if (!regex.test(text)) continue;
      if (result.matches.length >= bounds.maxMatches) {
        result.moreMatches = true;
        return false;
      }
      result.matches.push({ file, line: i + 1, text: cutLine(text, bounds.maxLineChars) });
    }
    return true;
  };

  if (!info.isDirectory()) {
    await searchOne(base);
    return result;
  }
  // Depth-first, entries in name order, so results are stable from run to run.
  const pending: { dir: string; rules: IgnoreStack }[] = [{ dir: base, rules: await IgnoreStack.forDirectory(base, roots) }];
  while (pending.length > 0) {
    const { dir, rules } = pending.pop()!;
    signal.throwIfAborted();
    const dirents = await readdir(dir, { withFileTypes: true }).catch(() => []);
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const dirent of dirents) {
      const full = path.join(dir, dirent.name);
      if (dirent.isSymbolicLink()) continue;
      if (dirent.isDirectory()) {
        if (!rules.ignores(full, true)) subdirs.push(full);
        continue;
      }
      if (!dirent.isFile() || rules.ignores(full, false)) continue;
      if (globTest && !globTest(path.relative(base, full).split(path.sep).join('/'))) continue;
      if (result.filesSearched >= bounds.maxFiles) {
        result.walkLimitHit = true;
        return result;
      }
      if (!(await searchOne(full))) return result;
    }
    for (const sub of subdirs.reverse()) pending.push({ dir: sub, rules: await rules.enter(sub) });
  }
  return result;
}

/**
 * The result as text: `relative/path:line: text` a line (paths relative to `cwd`), then what was
 * cut; or a sentence saying nothing matched.
 */
export function formatSearch(result: SearchResult, request: SearchRequest, cwd: string): string {
  const where = relativeForTitle(request.path, cwd);
  if (result.matches.length === 0) {
    const limit = result.walkLimitHit ? ' (stopped at the file limit; narrow the path)' : '';
    return `No matches for ${JSON.stringify(request.pattern)} in ${where}${request.glob ? ` (glob ${request.glob})` : ''}; ${result.filesSearched} files searched${limit}.`;
  }
  const lines = result.matches.map((m) => `${relativeForTitle(m.file, cwd)}:${m.line}: ${m.text}`);
  if (result.moreMatches) lines.push(`[more matches not shown; narrow the pattern or path (the first ${result.matches.length} are above)]`);
  if (result.walkLimitHit) lines.push(`[stopped after ${result.filesSearched} files; narrow the path or glob]`);
  return lines.join('\n');
}

/** The line trimmed, cut to `max` characters with `…` (never between a surrogate pair). */
export function cutLine(text: string, max: number): string {
  const trimmed = text.trim();
  if (trimmed.length <= max) return trimmed;
  let end = max;
  const code = trimmed.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${trimmed.slice(0, end)}…`;
}
