/**
 * Argument values against the JSON Schema of a tool's parameters: coerced to the type a parameter
 * declares where the intent is plain, then checked (required parameters, types, enums), and the
 * words for what is wrong. The coercion and validation steps of `check-arguments.ts`; only the top
 * level is checked here (an MCP server checks the rest against its own schema). Pure.
 *
 * Coercion: numbers and booleans sent as strings are common in the output of small models
 * (`"limit": "50"`; vLLM's hermes and qwen3-coder tool parsers convert parameter values by the
 * schema's type for the same reason), and so are arrays and objects sent as JSON text.
 *
 * Source: JSON Schema validation vocabulary https://json-schema.org/draft/2020-12/json-schema-validation
 * (`type`, `enum`, `required`, `minimum`).
 */
import { isRecord, parseJsonOrUndefined } from '../../shared/json-value.js';
import { setOwn } from './argument-names.js';
import { deeperThan, MAX_ARGUMENT_DEPTH } from './repair-arguments.js';

/** A JSON Schema, as a tool declares one. */
export type JsonSchema = Record<string, unknown>;

/** The top level of a tool's parameters schema as the checks read it. */
export interface ObjectSchema {
  properties: Record<string, JsonSchema>;
  required: readonly string[];
}

/** The top level of a parameters schema (`properties` and `required`, each `{}`/`[]` when absent or malformed). */
export function objectSchema(parameters: JsonSchema): ObjectSchema {
  const properties = isRecord(parameters['properties']) ? (parameters['properties'] as Record<string, JsonSchema>) : {};
  const required = Array.isArray(parameters['required']) ? parameters['required'].filter((name): name is string => typeof name === 'string') : [];
  return { properties: Object.fromEntries(Object.entries(properties).filter(([, p]) => isRecord(p))), required };
}

/** The types a property declares (`type`, one or a list), `null` apart. */
function typesOf(property: JsonSchema | undefined): { types: string[]; nullable: boolean } {
  const type = property?.['type'];
  const all = (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === 'string');
  return { types: all.filter((t) => t !== 'null'), nullable: all.includes('null') || property?.['nullable'] === true };
}

/**
 * `given` as a value of `type`, or undefined when it cannot be one: `"3"` → 3 (an integer only when
 * whole), `"true"`/`"false"` (any case) and 1/0 → booleans, numbers and booleans → strings for a
 * string, JSON text of an array or object (nested at most `MAX_ARGUMENT_DEPTH` deep) for one. A
 * value already of the type is returned as is.
 * @internal each coercion is checked on its own, by type.
 */
export function coerceToType(type: string, given: unknown): unknown {
  switch (type) {
    case 'string':
      if (typeof given === 'string') return given;
      return typeof given === 'number' || typeof given === 'boolean' ? String(given) : undefined;
    case 'integer':
    case 'number': {
      let n: number | undefined;
      if (typeof given === 'number') n = given;
      else if (typeof given === 'string' && /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(given)) n = Number(given);
      if (n === undefined || !Number.isFinite(n)) return undefined;
      return type === 'integer' && !Number.isSafeInteger(n) ? undefined : n;
    }
    case 'boolean':
      if (typeof given === 'boolean') return given;
      if (typeof given === 'string' && /^\s*(true|false)\s*$/i.test(given)) return given.trim().toLowerCase() === 'true';
      return given === 1 || given === 0 ? given === 1 : undefined;
    case 'array':
    case 'object': {
      const value = typeof given !== 'string' ? given : deeperThan(given, MAX_ARGUMENT_DEPTH) ? undefined : parseJsonOrUndefined(given.trim());
      return (type === 'array' ? Array.isArray(value) : isRecord(value)) ? value : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Values coerced to the one type their property declares (see {@link coerceToType}); `null` dropped
 * (an omitted parameter) unless the property allows it or the schema does not name it (a parameter
 * passed on as it is, for an MCP server to decide). Anything else is left for the validation.
 * Returns a new object.
 */
export function coerceBySchema(input: Record<string, unknown>, schema: ObjectSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, given] of Object.entries(input)) {
    const property = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    const { types, nullable } = typesOf(property);
    if (given === null) {
      if (nullable || property === undefined) setOwn(out, key, null);
      continue;
    }
    setOwn(out, key, types.length === 1 ? (coerceToType(types[0]!, given) ?? given) : given);
  }
  return out;
}

/** Whether `value` is of the JSON Schema type `type`. */
function isOfType(type: string, value: unknown): boolean {
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'object') return isRecord(value);
  if (type === 'null') return value === null;
  return typeof value === type;
}

/** The parameters that fail the schema's top level: required ones missing, values not of their type or enum, numbers under `minimum`. */
export function failingParameters(input: Record<string, unknown>, schema: ObjectSchema): string[] {
  return Object.keys(schema.properties).filter((key) => {
    const value = input[key];
    if (value === undefined) return schema.required.includes(key);
    const property = schema.properties[key]!;
    const { types, nullable } = typesOf(property);
    if (value === null) return !nullable;
    if (types.length > 0 && !types.some((type) => isOfType(type, value))) return true;
    if (Array.isArray(property['enum']) && !property['enum'].some((option) => JSON.stringify(option) === JSON.stringify(value))) return true;
    return typeof property['minimum'] === 'number' && typeof value === 'number' && value < property['minimum'];
  });
}

/** `"k" is missing` or `"k" must be an integer ≥ 1` for each failing parameter, in the schema's order. */
export function describeProblems(failing: readonly string[], input: Record<string, unknown>, schema: ObjectSchema): string[] {
  return Object.keys(schema.properties)
    .filter((key) => failing.includes(key))
    .map((key) => (input[key] === undefined ? `"${key}" is missing` : `"${key}" must be ${describeType(schema.properties[key]!)}`));
}

function describeType(p: JsonSchema): string {
  if (Array.isArray(p['enum'])) return `one of ${p['enum'].map((option) => JSON.stringify(option)).join(', ')}`;
  const { types } = typesOf(p);
  if (types.length !== 1) return types.length === 0 ? 'another value' : types.map((type) => describeType({ type })).join(' or ');
  const type = types[0];
  if (type === 'integer') return typeof p['minimum'] === 'number' ? `an integer ≥ ${p['minimum']}` : 'an integer';
  if (type === 'boolean') return 'true or false';
  if (type === 'array' || type === 'object') return `an ${type}`;
  return `a ${type}`;
}

/** Most parameters a signature names; an MCP tool may have dozens. */
const SIGNATURE_PARAMETERS = 12;

/** `read_file needs "path" (string); optional: "offset" (integer, 1-based line), "limit" (integer, lines)` */
export function signature(name: string, { properties, required }: ObjectSchema): string {
  const show = ([key, p]: [string, JsonSchema]) => {
    const type = typesOf(p).types.join('|') || 'any';
    return `"${key}" (${p['note'] ? `${type}, ${String(p['note'])}` : type})`;
  };
  const entries = Object.entries(properties);
  const listed = entries.slice(0, SIGNATURE_PARAMETERS);
  const needed = listed.filter(([key]) => required.includes(key)).map(show);
  const optional = listed.filter(([key]) => !required.includes(key)).map(show);
  const parts = [needed.length > 0 ? `${name} needs ${needed.join(', ')}` : `${name} needs no arguments`];
  if (optional.length > 0) parts.push(`optional: ${optional.join(', ')}`);
  if (entries.length > listed.length) parts.push(`and ${entries.length - listed.length} more`);
  return parts.join('; ');
}
