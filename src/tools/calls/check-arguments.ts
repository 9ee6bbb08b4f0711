/**
 * The one place a built-in tool call's arguments are checked, in four steps, each a function of
 * its own: **parse** the raw text (`json-arguments.ts`, shared with MCP tools), **rename aliases**
 * of parameter names (the tool module's `aliases`), **coerce** by the schema what weak models send
 * (`"10"` → 10, `"true"` → true, numbers for strings, `null` for an omitted optional parameter),
 * then **validate** with the tool's zod schema. Every problem becomes one sentence the model can
 * act on: which tool, which fields, what was expected, the tool's parameters, and (bounded) what it
 * sent. Unknown parameters are dropped with a note. Pure; never throws.
 */
import { coerceToType, normaliseParameterNames } from './argument-aliases.js';
import { fullJsonSchema, type AnyBuiltinTool, type JsonSchema } from '../builtin/tool-module.js';
import { decodeArguments, echoArguments as echo } from './json-arguments.js';
import { cutOffMessage } from './repair-arguments.js';

/** Checked arguments (only the schema's fields), and notes for the model on what was changed or ignored. */
export type CheckedArguments = { ok: true; args: Record<string, unknown>; notes: string[] } | { ok: false; error: string };

/**
 * Checks the arguments of a call to `tool`.
 * @param raw - the assembled `function.arguments` text (empty or whitespace means `{}`), or an
 *   already parsed value.
 * @param cutOff - the model's answer stopped at its length limit while writing this call: it is
 *   refused (as is text ending inside a string, array or object), telling the model to write it shorter.
 */
export function checkArguments(tool: AnyBuiltinTool, raw: string | unknown, cutOff = false): CheckedArguments {
  const text = typeof raw === 'string' ? raw : undefined;
  const sent = () => echo(text ?? safeJson(raw));
  const notes: string[] = [];
  // 1. parse
  let value = raw;
  if (text !== undefined) {
    const decoded = decodeArguments(text, cutOff);
    if (!decoded.ok && decoded.truncated) return { ok: false, error: cutOffMessage(tool.name, tool.shorter) };
    if (!decoded.ok) return { ok: false, error: `${tool.name}: the arguments are not valid JSON (${decoded.reason}). ${signature(tool)}. You sent: ${sent()}` };
    value = decoded.value;
    notes.push(...(decoded.notes ?? []));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `${tool.name}: the arguments must be a JSON object. ${signature(tool)}. You sent: ${sent()}` };
  }
  const schema = jsonSchemaOf(tool);
  // 2. aliases, 3. coercion
  const input = coerceBySchema(renameAliases(value as Record<string, unknown>, tool.aliases, notes, Object.keys(schema.properties)), schema);
  for (const key of Object.keys(input)) if (!Object.hasOwn(schema.properties, key)) notes.push(`the unknown parameter "${key}" was ignored`);
  // 4. validation
  const result = tool.schema.safeParse(input);
  if (result.success) return { ok: true, args: result.data as Record<string, unknown>, notes };
  const failing = new Set(result.error.issues.map((issue) => String(issue.path[0] ?? '')));
  const problems = Object.keys(schema.properties)
    .filter((key) => failing.has(key))
    .map((key) => (input[key] === undefined ? `"${key}" is missing` : `"${key}" must be ${describeType(schema.properties[key]!)}`));
  if (problems.length === 0) problems.push(result.error.issues.map((issue) => issue.message).join('; '));
  return { ok: false, error: `${tool.name}: ${problems.join('; ')}. ${signature(tool)}. You sent: ${sent()}` };
}

/**
 * Step 2: parameters sent under another name renamed to the field, only when the field itself is
 * absent; each renaming noted. Another name is an alias from `aliases` (alias → field) or, when
 * `fields` is given, a field or alias spelled another way (`oldString`, `Old-String` for
 * `old_string`). Returns a new object; keys that name nothing are kept for the check to note.
 */
export function renameAliases(
  input: Record<string, unknown>,
  aliases: Readonly<Record<string, string>> | undefined,
  notes: string[],
  fields: readonly string[] = [],
): Record<string, unknown> {
  const present = Object.keys(input).filter((key) => input[key] !== undefined && input[key] !== null);
  const known = [...new Set([...fields, ...Object.values(aliases ?? {})])];
  const named = normaliseParameterNames(Object.fromEntries(present.map((key) => [key, input[key]])), known, aliases);
  if (named.renamed.length === 0) return input;
  const out = { ...input };
  for (const [from, to] of named.renamed) {
    out[to] = out[from];
    delete out[from];
    notes.push(`"${from}" was read as "${to}"`);
  }
  return out;
}

/** The top level of a tool's JSON Schema as the checks read it. */
interface ObjectSchema {
  properties: Record<string, JsonSchema>;
  required: string[];
}

/**
 * Step 3: values coerced to the type their property declares, where the intent is plain: a
 * whole-number string for an integer, `true`/`false` (any case) or 1/0 for a boolean, a number or
 * boolean for a string; `null` dropped (an omitted parameter). Anything else is left for the
 * validation to refuse. Returns a new object.
 */
export function coerceBySchema(input: Record<string, unknown>, schema: ObjectSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, given] of Object.entries(input)) {
    if (given === null) continue;
    const type = schema.properties[key]?.['type'];
    out[key] = type === 'integer' || type === 'number' || type === 'boolean' || type === 'string' ? (coerceToType(type, given) ?? given) : given;
  }
  return out;
}

const schemas = new WeakMap<AnyBuiltinTool, ObjectSchema>();

/** The tool's full JSON Schema (bounds and notes kept), made once. */
function jsonSchemaOf(tool: AnyBuiltinTool): ObjectSchema {
  let schema = schemas.get(tool);
  if (!schema) {
    const full = fullJsonSchema(tool);
    schema = { properties: (full['properties'] ?? {}) as Record<string, JsonSchema>, required: (full['required'] ?? []) as string[] };
    schemas.set(tool, schema);
  }
  return schema;
}

/** `read_file needs "path" (string); optional: "offset" (integer, 1-based line), "limit" (integer, lines)` */
export function signature(tool: AnyBuiltinTool): string {
  const { properties, required } = jsonSchemaOf(tool);
  const show = ([name, p]: [string, JsonSchema]) => `"${name}" (${p['note'] ? `${String(p['type'])}, ${String(p['note'])}` : String(p['type'])})`;
  const entries = Object.entries(properties);
  const needed = entries.filter(([name]) => required.includes(name)).map(show);
  const optional = entries.filter(([name]) => !required.includes(name)).map(show);
  const parts = [needed.length > 0 ? `${tool.name} needs ${needed.join(', ')}` : `${tool.name} needs no arguments`];
  if (optional.length > 0) parts.push(`optional: ${optional.join(', ')}`);
  return parts.join('; ');
}

/** The error for a tool name that is not offered, listing what is. */
export function unknownToolError(name: string, available: readonly string[]): string {
  return `There is no tool named "${echo(name, 80)}". Available tools: ${available.join(', ')}.`;
}

function describeType(p: JsonSchema): string {
  if (p['type'] === 'integer') return typeof p['minimum'] === 'number' ? `an integer ≥ ${p['minimum']}` : 'an integer';
  if (p['type'] === 'boolean') return 'true or false';
  if (p['type'] === 'string') return 'a string';
  return `of type ${String(p['type'])}`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
