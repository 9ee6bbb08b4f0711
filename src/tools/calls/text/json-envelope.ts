/**
 * Calls written as JSON envelopes inside a model's text: `{"name": …, "arguments" | "parameters" |
 * "args": {…}}` (Hermes, Qwen through Ollama, Llama 3.x's `parameters`), the OpenAI call shape
 * `{"type": "function", "function": {…}}`, Cohere's `{"tool_name", "parameters"}`, several in an
 * array, or one after another (whitespace, `,` or `; ` between them, as Llama 3.x joins parallel
 * calls). Envelopes written with Python quotes (older Mistral) are read as Python literals.
 *
 * The envelope is taken apart without parsing the arguments: the arguments go on as the exact text
 * the model wrote (or the JSON text inside a string), so invalid escapes, duplicate keys and the
 * like reach the argument check unchanged, and its repair decides. Pure.
 */
import { pythonLiteral } from './python-literal.js';
import type { OfferedTools, TextCall, TextCallFormat } from './text-call.js';
import { skipSpace, valueSpan } from './value-span.js';

/** Keys that name the tool. */
const NAME_KEYS: ReadonlySet<string> = new Set(['name', 'tool_name', 'tool', 'function_name']);
/** Keys that hold the arguments. */
const ARGUMENT_KEYS: ReadonlySet<string> = new Set(['arguments', 'parameters', 'args', 'input', 'tool_input', 'tool_arguments', 'tool_args']);
/** Other keys a call may carry (ids and the like), ignored. */
const OTHER_KEYS: ReadonlySet<string> = new Set(['id', 'type', 'call_id', 'tool_call_id', 'index']);

/** The top-level keys of an object written in text, each with where its value is (raw text bounds). */
interface ObjectKeys {
  keys: Map<string, { start: number; end: number; open: boolean }>;
  /** The index after the object (its `}`, or where reading stopped when it is missing). */
  end: number;
  /** True when the text ended inside a value. */
  open: boolean;
  /** True when the text ended after a value, before the object's `}`: more keys may have followed. */
  ended?: true;
}

/**
 * The keys of the object written at `start` (its `{`) up to `limit`, or `undefined` when that is
 * not an object with quoted (or bare-word) keys. A missing final `}` is tolerated: the object
 * then ends after its last complete value.
 */
function objectKeys(text: string, start: number, limit: number): ObjectKeys | undefined {
  const keys: ObjectKeys['keys'] = new Map();
  let i = skipSpace(text, start + 1, limit);
  while (i < limit && text[i] !== '}') {
    let key: string;
    if (text[i] === '"' || text[i] === "'") {
      const span = valueSpan(text, i, limit);
      if (span.open) return { keys, end: limit, open: true };
      const decoded = decodeString(text.slice(i, span.end));
      if (decoded === undefined) return undefined;
      key = decoded;
      i = span.end;
    } else {
      const word = /^[A-Za-z_]\w*/.exec(text.slice(i, Math.min(limit, i + 64)));
      if (!word) return undefined;
      key = word[0];
      i += key.length;
    }
    i = skipSpace(text, i, limit);
    if (text[i] !== ':') return i >= limit ? { keys, end: limit, open: true } : undefined;
    i = skipSpace(text, i + 1, limit);
    if (i >= limit) return { keys, end: limit, open: true };
    const span = valueSpan(text, i, limit);
    if (span.tooDeep) return undefined;
    keys.set(key, { start: i, end: span.end, open: span.open });
    if (span.open) return { keys, end: limit, open: true };
    i = skipSpace(text, span.end, limit);
    if (text[i] === ',') i = skipSpace(text, i + 1, limit);
    // A `]` where the `}` should be: the object's brace is missing inside a list (the list goes on at the `]`).
    else if (text[i] === ']') return { keys, end: i, open: false };
    else if (i < limit && text[i] !== '}') return undefined;
  }
  if (i >= limit && limit === text.length) return { keys, end: limit, open: false, ended: true };
  return { keys, end: i < limit ? i + 1 : limit, open: false };
}

/** A JSON or Python string literal's value, or `undefined`. */
function decodeString(raw: string): string | undefined {
  if (raw.startsWith('"')) {
    try {
      const value = JSON.parse(raw) as unknown;
      if (typeof value === 'string') return value;
    } catch {
      // read as Python below
    }
  }
  const value = pythonLiteral(raw)?.value;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The arguments text of an envelope from the raw text of its value: an object as written (read as
 * a Python literal only when JSON cannot read it and Python can), the JSON text inside a string,
 * `{}` for `null` or nothing; anything else as written (the argument check refuses it).
 */
function argumentsText(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === 'null' || raw.trim() === 'None') return '{}';
  const first = raw[0];
  if (first === '"' || first === "'") return decodeString(raw) ?? raw;
  if (first === '{' && raw.includes("'")) {
    try {
      JSON.parse(raw);
    } catch {
      const python = pythonLiteral(raw);
      if (python && typeof python.value === 'object' && python.value !== null) return JSON.stringify(python.value);
    }
  }
  return raw;
}

/**
 * The call the object at `start` (its `{`) is, up to `limit`, or `undefined` when it is not an
 * envelope: a name key with a non-empty string, at most one arguments key, and no key other
 * than those and ids. The OpenAI shape (`function` an object, beside `type`/`id`) is unwrapped.
 * @returns the call and the index after the object.
 */
function envelopeAt(text: string, start: number, limit: number, format: TextCallFormat, tools?: OfferedTools): { call: TextCall; end: number } | undefined {
  const object = objectKeys(text, start, limit);
  if (!object) return undefined;
  const names = [...object.keys.keys()];
  const inner = object.keys.get('function');
  if (inner && text[inner.start] === '{' && names.every((key) => key === 'function' || OTHER_KEYS.has(key))) {
    const call = envelopeAt(text, inner.start, inner.open ? limit : inner.end, format, tools);
    return call && { call: call.call, end: object.end };
  }
  const nameKey = names.find((key) => NAME_KEYS.has(key)) ?? (names.includes('function') ? 'function' : undefined);
  const argumentKeys = names.filter((key) => ARGUMENT_KEYS.has(key));
  if (!nameKey || argumentKeys.length > 1) return undefined;
  const nameAt = object.keys.get(nameKey)!;
  if (nameAt.open) return undefined;
  // The name as a string, or a bare word where the model left out the quotes (`{name: read_file, …}`).
  const rawName = text.slice(nameAt.start, nameAt.end);
  const name = decodeString(rawName)?.trim() ?? (/^[A-Za-z_][\w.-]*$/.test(rawName) ? rawName : undefined);
  if (!name) return undefined;
  const beside = names.filter((key) => key !== nameKey && !ARGUMENT_KEYS.has(key) && !OTHER_KEYS.has(key));
  if (beside.length > 0) {
    // The arguments beside the name (`{"name": "<tool>", "path": "a.txt"}`): only for an offered
    // tool, with no arguments key, and every other key one of its parameters.
    const properties = tools?.get(name);
    if (!properties || argumentKeys.length > 0 || !beside.every((key) => Object.hasOwn(properties, key))) return undefined;
    const pairs = beside.map((key) => `${JSON.stringify(key)}: ${text.slice(object.keys.get(key)!.start, object.keys.get(key)!.end)}`);
    const call: TextCall = { name, arguments: `{${pairs.join(', ')}}`, format };
    if (object.open || object.ended) call.cut = true;
    return { call, end: object.end };
  }
  const args = argumentKeys[0] === undefined ? undefined : object.keys.get(argumentKeys[0]);
  const call: TextCall = { name, arguments: argumentsText(args && text.slice(args.start, args.end)), format };
  // Without its arguments key, an object the text ended in may have had it still to come.
  if (args?.open || ((object.open || object.ended) && !args)) call.cut = true;
  return { call, end: object.end };
}

/** Keys an object may hold its list of calls under (`{"tool_calls": [...]}`, as Devstral wrote through llama.cpp, llama.cpp#14697). */
const LIST_KEYS: ReadonlySet<string> = new Set(['tool_calls', 'function_calls', 'calls']);

/** The bounds of the list of calls an object at `start` holds as its only key, or `undefined`. */
function listKey(text: string, start: number, limit: number): { start: number; end: number; after: number } | undefined {
  const head = /^\{\s*"(\w+)"\s*:\s*\[/.exec(text.slice(start, Math.min(limit, start + 40)));
  if (!head || !LIST_KEYS.has(head[1]!)) return undefined;
  const object = objectKeys(text, start, limit);
  const list = object?.keys.get(head[1]!);
  return object && list && object.keys.size === 1 ? { start: list.start, end: list.end, after: object.end } : undefined;
}

/**
 * The envelopes written from `start` on, up to `limit`: objects and arrays of objects, separated
 * by whitespace, `,` or `;`. Reading stops at the first thing that is not one.
 * @returns the calls (the last `cut` when the text ends inside it), where reading stopped, and
 *   `refused` when an object there is not an envelope (ordinary JSON, not calls).
 */
export function envelopesFrom(
  text: string,
  start: number,
  limit: number,
  format: TextCallFormat,
  tools?: OfferedTools,
): { calls: TextCall[]; end: number; refused?: true; surplus?: number } {
  const calls: TextCall[] = [];
  let surplus = 0;
  let i = skipSpace(text, start, limit);
  const add = (at: number): boolean => {
    const found = envelopeAt(text, at, limit, format, tools);
    if (!found) return false;
    calls.push(found.call);
    i = found.end;
    return true;
  };
  while (i < limit) {
    const c = text[i];
    const list = c === '{' ? listKey(text, i, limit) : undefined;
    if (list) {
      const inner = envelopesFrom(text, list.start, list.end, format, tools);
      if (inner.refused || inner.calls.length === 0) return { calls, end: i, refused: true };
      calls.push(...inner.calls);
      i = list.after;
    } else if (c === '{') {
      if (!add(i)) return { calls, end: i, refused: true };
    } else if (c === '[' && text[skipSpace(text, i + 1, limit)] === '{') {
      i = skipSpace(text, i + 1, limit);
      while (i < limit && text[i] === '{') {
        if (!add(i)) return { calls, end: i, refused: true };
        i = skipSpace(text, i, limit);
        if (text[i] === ',') i = skipSpace(text, i + 1, limit);
      }
      if (text[i] === ']') i++;
    } else if (c === ',' || c === ';') {
      // Separators between calls.
      i++;
    } else if ((c === '}' || c === ']') && calls.length > 0) {
      // A bracket too many after a call: counted, for the caller to allow only where the call is alone.
      surplus++;
      i++;
    } else break;
    i = skipSpace(text, i, limit);
  }
  return surplus > 0 ? { calls, end: i, surplus } : { calls, end: i };
}

/**
 * Calls written with the tool's name as the key and its arguments as the value: `{"get_temperature":
 * {"location": "…"}}`, or a list of such objects (Apertus' `[{"NAME": {…}}]`), from `start` up to
 * `limit`. Every object has that one key, an offered tool's name; `undefined` otherwise.
 * @returns the calls and the index after them.
 */
export function namedCalls(
  text: string,
  start: number,
  limit: number,
  tools: OfferedTools,
  format: TextCallFormat,
): { calls: TextCall[]; end: number } | undefined {
  let i = skipSpace(text, start, limit);
  const listed = text[i] === '[';
  if (listed) i = skipSpace(text, i + 1, limit);
  const calls: TextCall[] = [];
  while (text[i] === '{') {
    const object = objectKeys(text, i, limit);
    const [name, ...others] = object ? [...object.keys.keys()] : [];
    const value = name === undefined ? undefined : object!.keys.get(name);
    if (!object || !name || others.length > 0 || !tools.has(name) || !value || text[value.start] !== '{') return undefined;
    const call: TextCall = { name, arguments: text.slice(value.start, value.end), format };
    if (value.open || object.open) call.cut = true;
    calls.push(call);
    i = skipSpace(text, object.end, limit);
    if (!listed) break;
    if (text[i] === ',') i = skipSpace(text, i + 1, limit);
  }
  if (listed && text[i] === ']') i++;
  return calls.length > 0 ? { calls, end: i } : undefined;
}
