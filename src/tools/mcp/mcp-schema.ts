/**
 * An MCP tool's `inputSchema` made acceptable as OpenAI `function.parameters`, for every provider.
 *
 * Facts (sources in parentheses):
 * - Gateways that validate strictly reject an object schema without `required` (opencode#35529),
 *   so the top level always has `properties` and `required`.
 * - Gemini's OpenAI-compatible endpoint rejects `$schema`, `additionalProperties`,
 *   `exclusiveMinimum`, `exclusiveMaximum`, `propertyNames`, `uniqueItems`, and string `format`
 *   values other than `enum` and `date-time` ("Invalid JSON payload received. Unknown name …";
 *   promptfoo#6902, hideya/langchain-mcp-tools-ts#36). It has no `$ref`/`$defs` either, so for
 *   Gemini local references are inlined (once per path, cycles cut to `{}`).
 * - `strict` is never set: arbitrary MCP schemas do not meet OpenAI's strict-mode rules.
 */
import { isRecord } from '../../shared/json-value.js';
import type { ToolParameters } from '../tool.js';

/** Options of {@link toFunctionParameters}. */
export interface SchemaProfile {
  /** Drop the keywords Gemini rejects and inline `$ref`s. */
  gemini: boolean;
}

/** Keywords Gemini rejects anywhere in a schema. */
const GEMINI_DROPPED = new Set([
  '$schema',
  '$id',
  '$comment',
  'additionalProperties',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'propertyNames',
  'uniqueItems',
  'patternProperties',
  'unevaluatedProperties',
  'dependentSchemas',
  'dependentRequired',
  'if',
  'then',
  'else',
  'not',
  'const',
  'contains',
  'examples',
  '$defs',
  'definitions',
  '$ref',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
]);
/** String formats Gemini accepts. */
const GEMINI_FORMATS = new Set(['enum', 'date-time']);
/** Keywords whose value is a map of names to schemas (the names are not keywords). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** How deep `$ref`s are inlined; past it a reference becomes `{}` (any value). */
const MAX_REF_DEPTH = 8;

/** The schema `#/...` points at inside `root`, or undefined (remote refs are not followed). */
function resolveRef(root: Record<string, unknown>, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A copy of `schema` without the keywords Gemini rejects, its local `$ref`s inlined. */
function forGemini(schema: unknown, root: Record<string, unknown>, refDepth: number): unknown {
  if (Array.isArray(schema)) return schema.map((item) => forGemini(item, root, refDepth));
  if (!isRecord(schema)) return schema;
  if (typeof schema.$ref === 'string') {
    const target = refDepth < MAX_REF_DEPTH ? resolveRef(root, schema.$ref) : undefined;
    // Keywords beside the $ref (a description, say) are kept over the target's.
    const { $ref: _ref, ...beside } = schema;
    return isRecord(target) ? forGemini({ ...target, ...beside }, root, refDepth + 1) : forGemini(beside, root, refDepth);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (GEMINI_DROPPED.has(key)) continue;
    if (key === 'format' && (typeof value !== 'string' || !GEMINI_FORMATS.has(value))) continue;
    if (key === 'type' && Array.isArray(value)) {
      // `type: ["string", "null"]` is not accepted: keep the first non-null type, mark nullable.
      const types = value.filter((t) => t !== 'null');
      if (types.length > 0) out.type = types[0];
      if (types.length < value.length) out.nullable = true;
      continue;
    }
    if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, forGemini(sub, root, refDepth)]));
    } else {
      out[key] = forGemini(value, root, refDepth);
    }
  }
  return out;
}

/**
 * `inputSchema` (an MCP tool's, any JSON) as function parameters: a JSON Schema object whose top
 * level has `type: "object"`, `properties` (an object) and `required` (the names listed that are
 * strings; `[]` when none). With `gemini`, the keywords Gemini rejects are removed at every depth
 * and local `$ref`s inlined. The input is not changed. Pure; never throws.
 */
export function toFunctionParameters(inputSchema: unknown, { gemini }: SchemaProfile): ToolParameters {
  const root = isRecord(inputSchema) ? inputSchema : {};
  const schema = gemini ? (forGemini(root, root, 0) as Record<string, unknown>) : structuredClone(root);
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  const { strict: _strict, ...rest } = schema;
  return { ...rest, type: 'object', properties, required };
}
