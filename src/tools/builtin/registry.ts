/**
 * The registry of built-in tools: one list of tool modules (`tools/builtin/<tool>.ts`), in the
 * order they are offered, and what is derived from it: the names, the request's `tools` entries
 * (parameters generated from each tool's zod schema), the read-only set, and a call's presentation.
 *
 * Adding a tool: write its module, add it to {@link BUILTIN_TOOLS}.
 *
 * Names match `^[a-zA-Z0-9_-]{1,64}$`; every `parameters` is an `object` schema with `required`
 * listed and no `strict` (several providers reject or ignore it). Descriptions are kept short:
 * small local models read them on every request.
 */
import type { CutNote } from '../../context/context-cut.js';
import { editFileTool } from './edit-file.js';
import { fetchUrlTool } from './fetch-url.js';
import { listDirectoryTool } from './list-directory.js';
import { readFileTool } from './read-file.js';
import { runCommandTool } from './run-command.js';
import { searchFilesTool } from './search-files.js';
import { fullJsonSchema, wireSchema, type AnyBuiltinTool, type JsonSchema } from './tool-module.js';
import { writeFileTool } from './write-file.js';
import { PLAN_TOOL_NAME } from '../plan/plan-tool.js';
import type { ToolPresentation, WorkspaceRoots } from '../tool-types.js';

/** The built-in tools, in the order they are offered. */
export const BUILTIN_TOOLS = [readFileTool, writeFileTool, editFileTool, listDirectoryTool, searchFilesTool, runCommandTool, fetchUrlTool] as const;

/** A built-in tool's module. */
export type BuiltinToolModule = (typeof BUILTIN_TOOLS)[number];
/** The built-in tools, by the name the model calls them. */
export type BuiltinToolName = BuiltinToolModule['name'];

/** One entry of the Chat Completions request's `tools` array. */
export interface ChatToolDefinition {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: {
      type: 'object';
      properties: Record<string, JsonSchema & { type: string; description: string }>;
      required: string[];
    };
  };
}

const byName = new Map<string, AnyBuiltinTool>(BUILTIN_TOOLS.map((tool) => [tool.name, tool]));

/** The built-in tool names, the plan tool's included (the names MCP tools are named apart from). */
export const BUILTIN_TOOL_NAMES: ReadonlySet<string> = new Set([...byName.keys(), PLAN_TOOL_NAME]);

/** True when `name` is one of the built-in tools of {@link BUILTIN_TOOLS} (the plan tool is not: it has its own module). */
export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return byName.has(name);
}

/** The module of the built-in tool called `name`, or undefined. */
export function findBuiltinTool(name: string): AnyBuiltinTool | undefined {
  return byName.get(name);
}

/**
 * The module of a built-in tool.
 * @throws {Error} when `name` is not a built-in tool (a bug of the caller: check with {@link isBuiltinToolName}).
 */
export function builtinTool(name: BuiltinToolName): AnyBuiltinTool {
  const tool = byName.get(name);
  if (!tool) throw new Error(`not a built-in tool: ${name}`);
  return tool;
}

const chatTools = new Map<AnyBuiltinTool, ChatToolDefinition>();

/** The request `tools` entry of a tool module: its schema's JSON Schema trimmed to what providers accept (made once). */
export function toChatTool(tool: AnyBuiltinTool): ChatToolDefinition {
  let made = chatTools.get(tool);
  if (!made) {
    const parameters = wireSchema(fullJsonSchema(tool)) as ChatToolDefinition['function']['parameters'];
    made = { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
    chatTools.set(tool, made);
  }
  return structuredClone(made);
}

/**
 * The request `tools` entries for the built-in tools, in offering order.
 * @param names - which tools to include; default all (pass {@link readOnlyToolNames}() for the read-only mode).
 */
export function builtinChatTools(names: readonly BuiltinToolName[] = BUILTIN_TOOLS.map((t) => t.name)): ChatToolDefinition[] {
  return BUILTIN_TOOLS.filter((t) => names.includes(t.name)).map(toChatTool);
}

/**
 * The tools that change nothing: those of permission class `reads`, and `fetches` (which ask for
 * permission in the modes that offer only these).
 */
export function readOnlyToolNames(): BuiltinToolName[] {
  return BUILTIN_TOOLS.filter((t) => t.permission === 'reads' || t.permission === 'fetches').map((t) => t.name);
}

/** The note a cut result of the built-in tool `name` carries (its module's `cutNote`), or undefined. */
export function builtinCutNote(name: string): CutNote | undefined {
  return byName.get(name)?.cutNote;
}

/**
 * The `tool_call` fields for a built-in tool call, from its module; `{title: name, kind: 'other'}`
 * for any other name. Arguments may be unchecked: never throws.
 */
export function presentToolCall(name: string, args: Record<string, unknown>, roots: WorkspaceRoots): ToolPresentation {
  const tool = byName.get(name);
  if (!tool) return { title: name, kind: 'other' };
  const { title, ...shown } = tool.present(args, roots);
  return { title, kind: tool.kind, ...shown };
}
