/**
 * Checks the arguments a model sent for a built-in tool, and turns every problem into a sentence
 * the model can act on: which tool, what was wrong, the tool's parameters, and (bounded) what it
 * sent. Tolerant of what weak models send: `""` for no arguments, numbers as strings (`"10"`),
 * booleans as strings (`"true"`), `null` for an omitted optional parameter, JSON encoded twice.
 */
import { BUILTIN_TOOLS, builtinTool, isBuiltinToolName, type ParameterSpec } from './definitions.js';
import { decodeArguments, echoArguments as echo } from './json-arguments.js';
import type { BuiltinToolName } from './tool-types.js';

/** Checked arguments: only known parameters, each of its declared type (unknown properties are dropped). */
export type ToolArguments = Record<string, string | number | boolean>;

/** `read_file` arguments once checked. */
export interface ReadFileArgs { path: string; offset?: number; limit?: number }
/** `write_file` arguments once checked. */
export interface WriteFileArgs { path: string; content: string }
/** `edit_file` arguments once checked. */
export interface EditFileArgs { path: string; old_string: string; new_string: string; replace_all?: boolean }
/** `list_directory` arguments once checked. */
export interface ListDirectoryArgs { path?: string }
/** `search_files` arguments once checked. */
export interface SearchFilesArgs { pattern?: string; path?: string; glob?: string }
/** `run_command` arguments once checked. */
export interface RunCommandArgs { command: string; cwd?: string; timeout_ms?: number }

/** `fetch_url` arguments once checked. */
export interface FetchUrlArgs { url: string }

/** The checked argument shape of each built-in tool. */
export interface BuiltinArgs {
  read_file: ReadFileArgs;
  write_file: WriteFileArgs;
  edit_file: EditFileArgs;
  list_directory: ListDirectoryArgs;
  search_files: SearchFilesArgs;
  run_command: RunCommandArgs;
  fetch_url: FetchUrlArgs;
}

/** The result of {@link parseToolArguments}: the checked arguments, or an error text for the model. */
export type ParsedArguments = { ok: true; args: ToolArguments } | { ok: false; error: string };

/**
 * Parses and checks the raw `arguments` string of a tool call.
 * @param name - the tool name the model called.
 * @param raw - the assembled `function.arguments` text; empty or whitespace means `{}`.
 * @param available - tool names listed when `name` is unknown; default the six built-in tools
 *   (the loop passes its full list, MCP tools included).
 * @returns never throws.
 */
export function parseToolArguments(name: string, raw: string, available?: readonly string[]): ParsedArguments {
  if (!isBuiltinToolName(name)) return { ok: false, error: unknownToolError(name, available) };
  const decoded = decodeArguments(raw);
  if (!decoded.ok) return { ok: false, error: `${name}: the arguments are not valid JSON (${decoded.reason}). ${signature(name)}. You sent: ${echo(raw)}` };
  return validateToolArguments(name, decoded.value, raw);
}

/**
 * Checks an already parsed arguments value against a built-in tool's parameters, coercing what
 * weak models send (`"10"` → 10, `"true"` → true, numbers → strings for string parameters,
 * `null` → omitted for optional ones).
 * @param raw - the text to quote back in an error; default the value as JSON.
 * @returns never throws.
 */
export function validateToolArguments(name: BuiltinToolName, value: unknown, raw?: string): ParsedArguments {
  const sent = () => echo(raw ?? safeJson(value));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `${name}: the arguments must be a JSON object. ${signature(name)}. You sent: ${sent()}` };
  }
  const input = value as Record<string, unknown>;
  const args: ToolArguments = {};
  const problems: string[] = [];
  for (const param of builtinTool(name).params) {
    const given = input[param.name];
    if (given === undefined || given === null) {
      if (param.required) problems.push(`"${param.name}" is missing`);
      continue;
    }
    const coerced = coerce(param, given);
    if (coerced === undefined) problems.push(`"${param.name}" must be ${describeType(param)}`);
    else args[param.name] = coerced;
  }
  if (problems.length > 0) return { ok: false, error: `${name}: ${problems.join('; ')}. ${signature(name)}. You sent: ${sent()}` };
  return { ok: true, args };
}

/** `read_file needs "path" (string); optional: "offset" (integer, 1-based line), "limit" (integer, lines)` */
export function signature(name: BuiltinToolName): string {
  const params = builtinTool(name).params;
  const show = (p: ParameterSpec) => `"${p.name}" (${p.note ? `${p.type}, ${p.note}` : p.type})`;
  const required = params.filter((p) => p.required).map(show);
  const optional = params.filter((p) => !p.required).map(show);
  const parts = [required.length > 0 ? `${name} needs ${required.join(', ')}` : `${name} needs no arguments`];
  if (optional.length > 0) parts.push(`optional: ${optional.join(', ')}`);
  return parts.join('; ');
}

/** The error for a tool name that is not offered, listing what is. */
export function unknownToolError(name: string, available: readonly string[] = BUILTIN_TOOLS.map((t) => t.name)): string {
  return `There is no tool named "${echo(name, 80)}". Available tools: ${available.join(', ')}.`;
}

function coerce(param: ParameterSpec, given: unknown): string | number | boolean | undefined {
  switch (param.type) {
    case 'string':
      if (typeof given === 'string') return given;
      if (typeof given === 'number' || typeof given === 'boolean') return String(given);
      return undefined;
    case 'integer': {
      let n: number | undefined;
      if (typeof given === 'number') n = given;
      else if (typeof given === 'string' && /^\s*[-+]?\d+(\.0*)?\s*$/.test(given)) n = Number(given);
      if (n === undefined || !Number.isSafeInteger(n)) return undefined;
      if (param.minimum !== undefined && n < param.minimum) return undefined;
      return n;
    }
    case 'boolean':
      if (typeof given === 'boolean') return given;
      if (typeof given === 'string') {
        const word = given.trim().toLowerCase();
        if (word === 'true') return true;
        if (word === 'false') return false;
      }
      if (given === 1 || given === 0) return given === 1;
      return undefined;
  }
}

function describeType(param: ParameterSpec): string {
  if (param.type === 'integer') return param.minimum === undefined ? 'an integer' : `an integer ≥ ${param.minimum}`;
  return param.type === 'boolean' ? 'true or false' : 'a string';
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

