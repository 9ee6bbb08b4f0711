/**
 * The shape of a built-in tool: one module per tool (`tools/builtin/<tool>.ts`) exports one
 * {@link BuiltinTool}, and `tools/builtin/registry.ts` lists them. Everything about a tool is here:
 * what the model reads (name, description, the parameters generated from its zod schema), what
 * the modes allow (its permission class), how the client shows it, and how it runs. The loop sees
 * it as a `Tool` (`tools/tool.ts`), through `builtin-tools.ts`.
 *
 * Source: zod 4 JSON Schema output https://zod.dev/json-schema; the request's `tools` entries
 * https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools.
 */
import type { ToolKind } from '@agentclientprotocol/sdk/unstable';
import { z } from 'zod';
import type { CutNote } from '../../context/context-cut.js';
import type { BuiltinContext } from './tool-context.js';
import type { JsonSchema } from '../calls/argument-types.js';
import type { PermissionClass, ToolOutcome, ToolPresentation, WorkspaceRoots } from '../tool.js';

/** What a remembered `allow_always` / `reject_always` is stored under, and those words for the option names. */
interface RememberedAs {
  /** The key in the session's remembered choices (saved with the session: keep keys stable). */
  key: string;
  /** What "always" covers, e.g. `"git" commands`, `file edits`. */
  scope: string;
}

/**
 * One built-in tool. `Name` is the literal name the model calls; `Schema` a zod object whose
 * fields carry `.describe()` (the description the model reads) and optionally
 * `.meta({ note })` (a few words for argument errors: `"offset" (integer, 1-based line)`).
 */
export interface BuiltinTool<Name extends string = string, Schema extends z.ZodObject = z.ZodObject> {
  /** The function name, `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly name: Name;
  /** The function `description` the model reads: short, it is sent with every request. */
  readonly description: string;
  /** The arguments, checked by `tools/calls/check-arguments.ts` (the zod schema last); the request's `parameters` are generated from it. */
  readonly schema: Schema;
  /** Other parameter names accepted for a field, alias → field name (applied only when the field itself is absent). */
  readonly aliases?: Readonly<Record<string, string>>;
  /** ACP `ToolKind` of the `tool_call`. */
  readonly kind: ToolKind;
  /** What the session modes allow (see `tools/policy/permission.ts`). */
  readonly permission: PermissionClass;
  /** The remembered-choice key and its words, from the call's arguments. Absent: the tool name, for any call. */
  rememberedAs?(args: Record<string, unknown>): RememberedAs;
  /**
   * The `tool_call` title, locations and preview content. `args` are checked when the check
   * passed, else `{}`: missing values give a plainer title, never a throw. Pure.
   */
  present(args: Record<string, unknown>, roots: WorkspaceRoots): Omit<ToolPresentation, 'kind'>;
  /**
   * The presentation completed from the workspace before the permission question (write_file: the
   * text it would replace, so an overwrite is not shown as a new file). Absent: `present` alone.
   * Never throws; `args` are checked.
   */
  presentFromWorkspace?(
    args: Record<string, unknown>,
    shown: ToolPresentation,
    ctx: Pick<BuiltinContext, 'backend' | 'roots' | 'signal'>,
  ): Promise<ToolPresentation>;
  /** How to write a call of this tool shorter, said when one was cut off at the answer's length limit. Absent: "Send shorter arguments." */
  readonly shorter?: string;
  /**
   * Runs a call with checked arguments.
   * @throws {ToolError} anything the model should hear about (the call is shown failed); the
   *   signal's reason when aborted; anything else is a bug of ours.
   */
  run(args: z.output<Schema>, ctx: BuiltinContext): Promise<ToolOutcome>;
  /** The note put where the context planner cuts a long result of this tool, saying how to get the rest. Absent: a generic note. */
  readonly cutNote?: CutNote;
}

/** Any built-in tool, as the registry holds them. */
export type AnyBuiltinTool = BuiltinTool<string, z.ZodObject>;

/** Declares a tool module, keeping its literal name and schema types. */
export function defineTool<const Name extends string, Schema extends z.ZodObject>(tool: BuiltinTool<Name, Schema>): BuiltinTool<Name, Schema> {
  return tool;
}

/** The zod schema as JSON Schema, every keyword kept (notes and bounds included): what argument errors are worded from. */
export function fullJsonSchema(tool: AnyBuiltinTool): JsonSchema {
  return z.toJSONSchema(tool.schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** The keywords sent to the model, in this order; the rest (`$schema`, bounds, `additionalProperties`, notes) stays with us. */
const WIRE_KEYWORDS = ['type', 'description', 'enum', 'items', 'properties', 'required'] as const;

/**
 * A JSON Schema trimmed to what every provider accepts: `type`, `description`, `enum`, `items`,
 * `properties`, `required`, at every depth, in that order (some OpenAI-compatible gateways reject
 * other keywords; Gemini rejects several; the bounds are checked by us and said in the descriptions).
 */
export function wireSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const key of WIRE_KEYWORDS) {
    const value = schema[key];
    if (value === undefined) continue;
    if (key === 'items') out[key] = wireSchema(value as JsonSchema);
    else if (key === 'properties')
      out[key] = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([name, sub]) => [name, wireSchema(sub)]));
    else out[key] = value;
  }
  // An object always lists `required`, even empty (as the request schemas always have).
  if (out['type'] === 'object' && out['properties'] !== undefined && out['required'] === undefined) out['required'] = [];
  return out;
}
