/**
 * The small builders the built-in tools' presentations and results share: argument values read
 * leniently for a title, line ranges, shortened text, content blocks. Pure: nothing here touches
 * the disk. Titles follow Claude Code's ACP agent (`src/tools.ts`): `Read src/a.ts (lines 10–20)`,
 * the command line for commands.
 */
import type { ToolCallContent, ToolCallLocation } from '@agentclientprotocol/sdk/unstable';
import type { WorkspaceRoots } from '../tool.js';
import { relativeForTitle, resolveToolPath } from '../backends/workspace.js';

/** Longest command shown as a title, in characters: 80. */
export const MAX_TITLE_COMMAND = 80;

/** `args[key]` as text when it is a string or a number (a title never throws on odd values). */
export function argText(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** `args[key]` as a whole number ≥ 1 (a numeric string counts), else undefined. */
export function argLine(args: Record<string, unknown>, key: string): number | undefined {
  const n = typeof args[key] === 'string' ? Number(args[key]) : args[key];
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : undefined;
}

/**
 * The `path` argument (or `fallback` when it is absent) as an absolute path and as shown in a
 * title (relative to the cwd when inside it); undefined when there is neither.
 */
export function argPath(args: Record<string, unknown>, roots: WorkspaceRoots, fallback?: string): { abs: string; rel: string } | undefined {
  const given = argText(args, 'path') ?? fallback;
  if (given === undefined || given === '') return undefined;
  const abs = resolveToolPath(given, roots);
  return { abs, rel: relativeForTitle(abs, roots.cwd) };
}

/** ` (lines 10–19)`, ` (from line 10)`, ` (lines 1–5)`, or `` for the whole file. */
export function lineRange(offset: number | undefined, limit: number | undefined): string {
  if (limit !== undefined) {
    const first = offset ?? 1;
    return limit === 1 ? ` (line ${first})` : ` (lines ${first}–${first + limit - 1})`;
  }
  return offset !== undefined && offset > 1 ? ` (from line ${offset})` : '';
}

/** `text` cut to `max` characters with `…` at the end (never inside a surrogate pair). */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** A `content` block holding text. */
export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

/**
 * `text` in a Markdown code fence longer than any backtick run inside it, so the client shows it
 * verbatim (what Claude Code's agent does with file text and command output).
 */
export function fenced(text: string, language = ''): string {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${fence}`;
}

/** One location for a file (and line). */
export function fileLocation(path: string, line?: number): ToolCallLocation {
  return line === undefined ? { path } : { path, line };
}
