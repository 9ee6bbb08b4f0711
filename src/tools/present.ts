/**
 * How a built-in tool call is shown before it runs (the `tool_call` fields), and the small content
 * builders the tools share. Pure: nothing here touches the disk.
 * Titles follow Claude Code's ACP agent (`src/tools.ts`): `Read src/a.ts (lines 10–20)`, the
 * command line for commands.
 */
import type { ToolCallContent, ToolCallLocation } from '@agentclientprotocol/sdk/unstable';
import { builtinTool, isBuiltinToolName } from './definitions.js';
import type { BuiltinToolName, ToolPresentation, WorkspaceRoots } from './tool-types.js';
import { relativeForTitle, resolveToolPath } from './workspace.js';

/** Longest command shown as a title, in characters: 80. */
export const MAX_TITLE_COMMAND = 80;

/**
 * The `tool_call` fields for a built-in tool call. Arguments may be unchecked (a call with bad
 * arguments is still announced): missing or odd values give a plainer title, never a throw.
 *
 * `write_file` and `edit_file` carry a preview `diff` (Claude Code does the same): for write_file
 * `oldText` is null since the old file is not read here; edit_file shows old_string → new_string.
 * The final `tool_call_update` carries the real whole-file diff.
 */
export function presentToolCall(name: BuiltinToolName | string, args: Record<string, unknown>, roots: WorkspaceRoots): ToolPresentation {
  if (!isBuiltinToolName(name)) return { title: name, kind: 'other' };
  const kind = builtinTool(name).kind;
  const str = (key: string): string | undefined => (typeof args[key] === 'string' ? (args[key] as string) : typeof args[key] === 'number' ? String(args[key]) : undefined);
  const int = (key: string): number | undefined => {
    const n = typeof args[key] === 'string' ? Number(args[key]) : args[key];
    return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : undefined;
  };
  const target = (fallback?: string) => {
    const given = str('path') ?? fallback;
    if (given === undefined || given === '') return undefined;
    const abs = resolveToolPath(given, roots);
    return { abs, rel: relativeForTitle(abs, roots.cwd) };
  };

  switch (name) {
    case 'read_file': {
      const file = target();
      if (!file) return { title: 'Read', kind };
      const offset = int('offset');
      const limit = int('limit');
      return { title: `Read ${file.rel}${lineRange(offset, limit)}`, kind, locations: [{ path: file.abs, line: offset ?? 1 }] };
    }
    case 'write_file': {
      const file = target();
      if (!file) return { title: 'Write', kind };
      const content = str('content');
      return {
        title: `Write ${file.rel}`,
        kind,
        locations: [{ path: file.abs }],
        ...(content === undefined ? {} : { content: [{ type: 'diff', path: file.abs, oldText: null, newText: content }] }),
      };
    }
    case 'edit_file': {
      const file = target();
      if (!file) return { title: 'Edit', kind };
      const oldText = str('old_string');
      const newText = str('new_string');
      return {
        title: `Edit ${file.rel}`,
        kind,
        locations: [{ path: file.abs }],
        ...(oldText === undefined || newText === undefined ? {} : { content: [{ type: 'diff', path: file.abs, oldText, newText }] }),
      };
    }
    case 'list_directory': {
      const dir = target('.')!;
      return { title: `List ${dir.rel}`, kind, locations: [{ path: dir.abs }] };
    }
    case 'search_files': {
      const dir = target('.')!;
      const glob = str('glob');
      const pattern = str('pattern') ?? '';
      if (!pattern.trim() && glob) return { title: `Find ${shorten(glob, 60)} in ${dir.rel}`, kind, locations: [{ path: dir.abs }] };
      return { title: `Search ${JSON.stringify(shorten(pattern, 60))} in ${dir.rel}${glob ? ` (${shorten(glob, 60)})` : ''}`, kind, locations: [{ path: dir.abs }] };
    }
    case 'run_command': {
      const command = str('command');
      return { title: command ? shorten(command.replace(/\s*\n\s*/g, ' ').trim(), MAX_TITLE_COMMAND) : 'Run command', kind };
    }
    case 'fetch_url': {
      const url = str('url');
      return { title: url ? `Fetch ${shorten(url.trim(), MAX_TITLE_COMMAND)}` : 'Fetch', kind };
    }
  }
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
