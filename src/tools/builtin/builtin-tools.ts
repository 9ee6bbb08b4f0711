/**
 * The built-in tool modules as `Tool`s (`tools/tool.ts`) bound to one session's workspace: the
 * request's `parameters` generated from each module's zod schema (trimmed to what providers
 * accept), its arguments checked by the one pipeline with the zod schema as the last step, its
 * permission, presentation and run with the workspace and settings filled in.
 *
 * Source: zod 4 JSON Schema output https://zod.dev/json-schema.
 */
import { describeProblems, type JsonSchema, type ObjectSchema, objectSchema } from '../calls/argument-types.js';
import { type ArgumentSpec, checkArguments } from '../calls/check-arguments.js';
import type { ToolBackend } from '../backends/tool-backend.js';
import { isWithin, resolveToolPath } from '../backends/workspace.js';
import type { ChatToolDefinition, PermissionSubject, Tool, ToolParameters, WorkspaceRoots } from '../tool.js';
import { BUILTIN_TOOLS } from './registry.js';
import type { ToolSettings } from './tool-context.js';
import { type AnyBuiltinTool, fullJsonSchema, wireSchema } from './tool-module.js';

/** Where a session's built-in tools act, and with which settings. */
interface Workspace {
  /** Where reads, writes and commands go (client or local, maybe keeping checkpoints). */
  backend: ToolBackend;
  /** The session's workspace roots. */
  roots: WorkspaceRoots;
  /** The tools' settings (`toolSettings`). */
  settings: ToolSettings;
}

/** The built-in tools of a session, in the order they are offered. */
export function builtinTools(workspace: Workspace): Tool[] {
  return BUILTIN_TOOLS.map((module) => asTool(module, workspace));
}

/** One built-in tool module as a `Tool` acting in `workspace`. */
function asTool(module: AnyBuiltinTool, workspace: Workspace): Tool {
  const { backend, roots, settings } = workspace;
  const spec = argumentSpec(module);
  const present = module.presentFromWorkspace?.bind(module);
  return {
    name: module.name,
    description: module.description,
    parameters: wireParameters(module),
    check: (raw, cutOff) => checkArguments(spec, raw, cutOff),
    permission: (args) => builtinSubject(module, args, roots),
    present(args) {
      const { title, ...shown } = module.present(args, roots);
      return { title, kind: module.kind, ...shown };
    },
    ...(present ? { presentFromWorkspace: (args, shown, signal) => present(args, shown, { backend, roots, signal }) } : {}),
    run: (args, ctx) => module.run(args, { backend, roots, settings, signal: ctx.signal, onTerminal: ctx.onTerminal, runsUnasked: ctx.runsUnasked }),
  };
}

/** A built-in tool's request entry: every parameter typed and described (see `wireSchema`). */
type BuiltinChatTool = ChatToolDefinition & {
  function: { parameters: ToolParameters & { properties: Record<string, JsonSchema & { type: string; description: string }> } };
};

/**
 * The request `tools` entry of a tool module.
 * @internal the context tests plan requests with the real definitions, without a session.
 */
export function toChatTool(module: AnyBuiltinTool): BuiltinChatTool {
  return { type: 'function', function: { name: module.name, description: module.description, parameters: wireParameters(module) } } as BuiltinChatTool;
}

const specs = new WeakMap<AnyBuiltinTool, ArgumentSpec>();

/** How the pipeline checks a module's arguments: its full JSON Schema (bounds and notes kept), aliases, advice, and the zod schema last (made once). */
function argumentSpec(module: AnyBuiltinTool): ArgumentSpec {
  let spec = specs.get(module);
  if (!spec) {
    const schema = objectSchema(fullJsonSchema(module));
    spec = { name: module.name, schema, aliases: module.aliases, shorter: module.shorter, validate: (input) => zodCheck(module, input, schema) };
    specs.set(module, spec);
  }
  return spec;
}

/** The zod schema's verdict: its output, or the problems worded per parameter from the JSON Schema. */
function zodCheck(module: AnyBuiltinTool, input: Record<string, unknown>, schema: ObjectSchema) {
  const result = module.schema.safeParse(input);
  if (result.success) return { ok: true as const, value: result.data as Record<string, unknown> };
  const problems = describeProblems(
    result.error.issues.map((issue) => String(issue.path[0] ?? '')),
    input,
    schema,
  );
  return { ok: false as const, problems: problems.length > 0 ? problems : [result.error.issues.map((issue) => issue.message).join('; ')] };
}

const parameters = new WeakMap<AnyBuiltinTool, ToolParameters>();

/** The module's JSON Schema trimmed to what providers accept, made once and frozen (every request shares it). */
function wireParameters(module: AnyBuiltinTool): ToolParameters {
  let made = parameters.get(module);
  if (!made) {
    made = deepFreeze(wireSchema(fullJsonSchema(module))) as ToolParameters;
    parameters.set(module, made);
  }
  return made;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

/**
 * What a built-in tool call needs permission for: the tool's class, the key and words of its
 * `rememberedAs` (default: its name), and for `edits` whether its `path` is inside the cwd.
 * @internal the permission policy's tests build subjects with it.
 */
export function builtinSubject(tool: AnyBuiltinTool, args: Record<string, unknown>, roots: WorkspaceRoots): PermissionSubject {
  const remembered = tool.rememberedAs?.(args) ?? { key: tool.name, scope: tool.name };
  const subject: PermissionSubject = { permission: tool.permission, key: remembered.key, scope: remembered.scope };
  if (tool.permission === 'edits' && typeof args['path'] === 'string') subject.insideCwd = isWithin(resolveToolPath(args['path'], roots), roots.cwd);
  return subject;
}
