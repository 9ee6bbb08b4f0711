/**
 * The one argument pipeline, used by every kind of tool (built-in, MCP, the plan), driven by the
 * tool's JSON Schema: **parse** the raw text, repairing what weak models get wrong without changing
 * a value (`repair-arguments.ts`); **unwrap** a whole call sent as the arguments
 * (`call-envelope.ts`); **rename** parameters spelled another way (`argument-names.ts`); **coerce**
 * values to the declared types and **validate** (`argument-types.ts`, then the tool's own last
 * check: the zod schema of a built-in, the entries of a plan). Every problem becomes one sentence
 * the model can act on: which tool, what to fix, the tool's parameters, and (bounded) what it
 * sent. Every change made to read the call is told in a note. Pure; never throws.
 */
import { isRecord } from '../../shared/json-value.js';
import type { CheckedArguments } from '../tool.js';
import { findEnvelope } from './call-envelope.js';
import { type AliasTable, normaliseParameterNames } from './argument-names.js';
import { coerceBySchema, describeProblems, failingParameters, type ObjectSchema, signature } from './argument-types.js';
import { counted } from '../present/output-cap.js';
import { cutOffMessage, readArgumentsText } from './repair-arguments.js';
import { resolveToolName } from './tool-name-resolve.js';

/** How many characters of the model's raw arguments are quoted back in an error: 200. */
const ECHO_LIMIT = 200;

/** The tool's own last check: the arguments as it takes them, or the problems in words (`"offset" must be an integer ≥ 1`). */
type ArgumentValidation = (input: Record<string, unknown>) => { ok: true; value: Record<string, unknown> } | { ok: false; problems: string[] };

/** What the check of one tool's arguments reads. */
export interface ArgumentSpec {
  /** The name the model calls the tool by (the words of an error start with it). */
  name: string;
  /** The top level of the tool's parameters schema: the names, types and required parameters. */
  schema: ObjectSchema;
  /** Other names of parameters, alias → parameter (a built-in tool module's `aliases`). */
  aliases?: AliasTable | undefined;
  /** Parameters the schema does not name: dropped with a note, or passed on as they are (an MCP server decides). @defaultValue 'drop' */
  unknown?: 'drop' | 'keep';
  /** The last check after the schema's top level. @defaultValue the schema's top level alone */
  validate?: ArgumentValidation | undefined;
  /** How to write a call of this tool shorter, said when one was cut off. @defaultValue "Send shorter arguments." */
  shorter?: string | undefined;
}

/**
 * Checks the arguments of one call.
 * @param raw - the assembled `function.arguments` text (empty or whitespace means `{}`), or a value
 *   already parsed (a call read from text may carry one).
 * @param cutOff - the model's answer stopped at its length limit while writing this call: it is
 *   refused (as is text ending inside a string, array or object), telling the model to write it shorter.
 */
export function checkArguments(spec: ArgumentSpec, raw: unknown, cutOff = false): CheckedArguments {
  const { name, schema } = spec;
  const text = typeof raw === 'string' ? raw : undefined;
  const fail = (problem: string): CheckedArguments => ({
    ok: false,
    error: `${name}: ${problem}. ${signature(name, schema)}. You sent: ${echoArguments(text ?? safeJson(raw))}`,
  });
  const cut: CheckedArguments = { ok: false, error: cutOffMessage(name, spec.shorter) };
  // Text that stops inside a value without the length limit: the answer simply ended there.
  const stopped: CheckedArguments = { ok: false, error: cutOffMessage(name, spec.shorter, false) };
  const notes: string[] = [];
  // 1. parse and repair
  let value = raw;
  let closedAtEnd = false;
  if (cutOff) return cut;
  if (text !== undefined) {
    const read = readArgumentsText(text);
    if (!read.ok) return read.truncated ? stopped : fail(`the arguments are not valid JSON (${read.reason})`);
    value = read.value;
    closedAtEnd = read.closedAtEnd === true;
    if (read.repaired) notes.push(`the arguments were not valid JSON (${read.repaired.join(', ')}) and were repaired`);
  }
  // 2. unwrap a whole call sent as the arguments; a bracket added at the end is accepted only there
  const envelope = findEnvelope(value, Object.keys(schema.properties));
  if (envelope && resolveToolName(envelope.name, [name])) {
    const inner = typeof envelope.arguments === 'string' ? readArgumentsText(envelope.arguments) : { ok: true as const, value: envelope.arguments };
    if (!inner.ok) return inner.truncated ? stopped : fail(`the arguments are not valid JSON (${inner.reason})`);
    value = inner.value;
    notes.push('the arguments held the whole call; its own arguments were used');
  } else if (closedAtEnd) return stopped;
  if (value === null) value = {};
  const lists = Object.keys(schema.properties).filter((key) => schema.properties[key]!['type'] === 'array');
  if (Array.isArray(value) && lists.length === 1 && Object.keys(schema.properties).length === 1) {
    notes.push(`the list was read as "${lists[0]}"`);
    value = { [lists[0]!]: value };
  }
  if (!isRecord(value)) return fail('the arguments must be a JSON object');
  // 3. names
  const named = normaliseParameterNames(value, Object.keys(schema.properties), spec.aliases, spec.unknown === 'keep');
  for (const [from, to] of named.renamed) notes.push(`"${from}" was read as "${to}"`);
  for (const key of named.ignored)
    if (value[key] !== null && value[key] !== undefined && !Object.hasOwn(named.value, key)) notes.push(`the unknown parameter "${key}" was ignored`);
  // 4. coercion, 5. validation
  const input = coerceBySchema(named.value, schema);
  const valid = spec.validate ? spec.validate(input) : validateBySchema(input, schema);
  if (!valid.ok) return fail(valid.problems.join('; '));
  return { ok: true, args: valid.value, notes };
}

/** The schema's top level as the last check (MCP tools: the server checks the rest). */
function validateBySchema(input: Record<string, unknown>, schema: ObjectSchema): ReturnType<ArgumentValidation> {
  const failing = failingParameters(input, schema);
  return failing.length === 0 ? { ok: true, value: input } : { ok: false, problems: describeProblems(failing, input, schema) };
}

/** `text` cut to `limit` characters, saying how many more there were. */
export function echoArguments(text: string, limit = ECHO_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…(${counted(text.length - limit, 'more character')})`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
