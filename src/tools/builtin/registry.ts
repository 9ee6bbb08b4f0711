/**
 * The registry of built-in tools: one list of tool modules (`tools/builtin/<tool>.ts`), in the
 * order they are offered, and what is derived from it: their names and the notes their cut
 * results carry. `builtin-tools.ts` makes them `Tool`s for a session.
 *
 * Adding a tool: write its module, add it to {@link BUILTIN_TOOLS}.
 */
import type { CutNote } from '../../context/context-cut.js';
import { PLAN_TOOL_NAME } from '../policy/plan-tool.js';
import { editFileTool } from './edit-file.js';
import { fetchUrlTool } from './fetch-url.js';
import { listDirectoryTool } from './list-directory.js';
import { readFileTool } from './read-file.js';
import { runCommandTool } from './run-command.js';
import { searchFilesTool } from './search-files.js';
import type { AnyBuiltinTool } from './tool-module.js';
import { writeFileTool } from './write-file.js';

/** The built-in tools, in the order they are offered. */
// biome-ignore format: one tool per line, so that adding one is one line here
export const BUILTIN_TOOLS = [
  readFileTool,
  writeFileTool,
  editFileTool,
  listDirectoryTool,
  searchFilesTool,
  runCommandTool,
  fetchUrlTool,
] as const;

/**
 * The built-in tools, by the name the model calls them.
 * @internal the tests name built-in tools with it.
 */
export type BuiltinToolName = (typeof BUILTIN_TOOLS)[number]['name'];

const byName = new Map<string, AnyBuiltinTool>(BUILTIN_TOOLS.map((tool) => [tool.name, tool]));

/** The built-in tool names, the plan tool's included (the names MCP tools are named apart from, and the README lists). */
export const BUILTIN_TOOL_NAMES: ReadonlySet<string> = new Set([...byName.keys(), PLAN_TOOL_NAME]);

/**
 * The module of a built-in tool.
 * @internal tests look a module up by its name.
 * @throws {Error} when `name` is not a built-in tool (a bug of the caller).
 */
export function builtinTool(name: BuiltinToolName): AnyBuiltinTool {
  const tool = byName.get(name);
  if (!tool) throw new Error(`not a built-in tool: ${name}`);
  return tool;
}

/** The note a cut result of the built-in tool `name` carries (its module's `cutNote`), or undefined. */
export function builtinCutNote(name: string): CutNote | undefined {
  return byName.get(name)?.cutNote;
}
