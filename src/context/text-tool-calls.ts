/**
 * Tool calls that local models write as text instead of `tool_calls` (servers without the right
 * parser or chat template). Pure. Forms recognised (sources in parentheses):
 * - Hermes / Qwen2.5: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, one or several
 *   (Qwen2.5 chat template; Ollama qwen3 ollama#11185).
 * - Qwen3-Coder XML: `<function=NAME><parameter=KEY>VALUE</parameter>…</function>`, bare or
 *   inside `<tool_call>` (vLLM without its parser, vllm#21571; LM Studio, lmstudio-bug-tracker#2115).
 * - A bare JSON object `{"name": …, "arguments" | "parameters": …}` (Llama 3.x JSON tool calling
 *   writes `parameters`), also wrapped in `{"type": "function", "function": {…}}`, several of
 *   them separated by whitespace, or a JSON array of them.
 * Each may sit in one Markdown code fence (```` ```json ````, ```` ```xml ```` or bare).
 *
 * Applied only when tools were offered and only when the whole text is calls naming offered
 * tools (ollama/ollama-vscode#20: a fallback applied to any JSON turns answers into calls).
 *
 * How the loop streams text around this: it holds the answer's text back while
 * {@link mayBeTextToolCall} is true for the text so far (nothing shown yet), and once it turns
 * false it shows what it held and streams the rest as usual (it never turns true again). When
 * the stream ends while text is still held, {@link parseTextToolCalls} decides: calls are run
 * like streamed `tool_calls`; `undefined` means the held text is shown as the answer.
 */
import { isRecord } from '../json-value.js';

/** A tool call read from text: the tool's name and its arguments as JSON object text. */
export interface TextToolCall {
  name: string;
  arguments: string;
}

/**
 * Optional knowledge of the offered tools' parameters: for each tool name, the JSON Schema
 * `properties`. A Qwen XML parameter whose schema `type` is `"string"` stays a string even when
 * it looks like a number or JSON (file contents such as `42`).
 */
export type ToolParameterSchemas = ReadonlyMap<string, Readonly<Record<string, unknown>>>;

const FENCE = /^```(?:json|xml|tool_call)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/i;
const TOOL_CALL_BLOCK = /^<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/;
const FUNCTION_BLOCK = /^<function=([^>\s]+)>([\s\S]*?)(?:<\/function>|$)/;
const PARAMETER = /^<parameter=([^>\s]+)>([\s\S]*?)<\/parameter>/;
/** Keys a JSON call may have besides its name and arguments. */
const JSON_CALL_KEYS: ReadonlySet<string> = new Set(['name', 'arguments', 'parameters', 'type', 'id']);
/** First keys a JSON call may start with (the wrapped form starts with `function`). */
const JSON_FIRST_KEYS: readonly string[] = [...JSON_CALL_KEYS, 'function'];

/**
 * The tool calls `text` consists of, or `undefined` when it is anything else: prose around the
 * calls, a name not in `offeredNames`, malformed JSON or XML, arguments that are not a JSON object.
 * Whitespace around the calls and one enclosing code fence are ignored.
 * @param text - the whole text of one model answer (reasoning already split off)
 * @param offeredNames - names of the tools sent in the request; empty → always `undefined`
 * @param schemas - optional parameter schemas (see {@link ToolParameterSchemas})
 * @returns one entry per call in order; `arguments` is compact JSON object text (`"{}"` when absent)
 */
export function parseTextToolCalls(text: string, offeredNames: ReadonlySet<string>, schemas?: ToolParameterSchemas): TextToolCall[] | undefined {
  if (offeredNames.size === 0) return undefined;
  let body = text.trim();
  const fenced = FENCE.exec(body);
  if (fenced) body = (fenced[1] ?? '').trim();
  if (body === '') return undefined;
  const first = body[0];
  const calls = first === '<' ? parseTagged(body, schemas) : first === '{' || first === '[' ? parseJsonCalls(body) : undefined;
  if (!calls || calls.length === 0) return undefined;
  return calls.every((call) => offeredNames.has(call.name)) ? calls : undefined;
}

/** `<tool_call>…</tool_call>` blocks and/or bare `<function=…>` blocks, nothing else. */
function parseTagged(body: string, schemas: ToolParameterSchemas | undefined): TextToolCall[] | undefined {
  const calls: TextToolCall[] = [];
  let rest = body;
  while (rest !== '') {
    const block = TOOL_CALL_BLOCK.exec(rest);
    if (block) {
      const inner = (block[1] ?? '').trim();
      const found = inner.startsWith('<') ? parseFunctions(inner, schemas) : parseJsonCalls(inner);
      if (!found || found.length === 0) return undefined;
      calls.push(...found);
      rest = rest.slice(block[0].length).trimStart();
      continue;
    }
    const fn = FUNCTION_BLOCK.exec(rest);
    if (!fn) return undefined;
    const call = parseFunction(fn[1] ?? '', fn[2] ?? '', schemas);
    if (!call) return undefined;
    calls.push(call);
    rest = rest.slice(fn[0].length).trimStart();
  }
  return calls;
}

/** One or more `<function=…>` blocks making up all of `body`. */
function parseFunctions(body: string, schemas: ToolParameterSchemas | undefined): TextToolCall[] | undefined {
  const calls: TextToolCall[] = [];
  for (let rest = body; rest !== ''; ) {
    const fn = FUNCTION_BLOCK.exec(rest);
    const call = fn ? parseFunction(fn[1] ?? '', fn[2] ?? '', schemas) : undefined;
    if (!fn || !call) return undefined;
    calls.push(call);
    rest = rest.slice(fn[0].length).trimStart();
  }
  return calls;
}

/** The parameters of a Qwen XML call (`inner` is what lies between its function tags). */
function parseFunction(name: string, inner: string, schemas: ToolParameterSchemas | undefined): TextToolCall | undefined {
  const args: Record<string, unknown> = {};
  const properties = schemas?.get(name);
  for (let rest = inner.trim(); rest !== ''; ) {
    const parameter = PARAMETER.exec(rest);
    if (!parameter) return undefined;
    const key = parameter[1] ?? '';
    // The template writes each value between newlines: drop one on each side, keep the rest.
    const raw = (parameter[2] ?? '').replace(/^\r?\n/, '').replace(/\r?\n$/, '');
    const schema = properties && Object.hasOwn(properties, key) ? properties[key] : undefined;
    // An own property whatever the name: `__proto__` as a parameter stays a parameter.
    Object.defineProperty(args, key, {
      value: isRecord(schema) && schema['type'] === 'string' ? raw : xmlValue(raw),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    rest = rest.slice(parameter[0].length).trimStart();
  }
  return { name, arguments: JSON.stringify(args) };
}

/** A Qwen XML parameter value: a JSON number, boolean, null, object or array when it is one, else the string. */
function xmlValue(raw: string): unknown {
  const trimmed = raw.trim();
  if (!/^(?:[-\d[{]|true$|false$|null$)/.test(trimmed)) return raw;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return raw;
  }
}

/** A JSON array of calls, or JSON call objects separated by whitespace, making up all of `body`. */
function parseJsonCalls(body: string): TextToolCall[] | undefined {
  const values = parseJsonSequence(body);
  if (!values) return undefined;
  const items = values.length === 1 && Array.isArray(values[0]) ? (values[0] as unknown[]) : values;
  const calls: TextToolCall[] = [];
  for (const item of items) {
    const call = jsonCall(item);
    if (!call) return undefined;
    calls.push(call);
  }
  return calls;
}

/**
 * `{"name": …, "arguments" | "parameters": object | JSON object text}` as a call, also wrapped as
 * `{"type": "function", "function": {…}}` (Llama 3.2 through vLLM without its parser, vllm#11786).
 */
function jsonCall(value: unknown): TextToolCall | undefined {
  if (isRecord(value) && isRecord(value['function']) && Object.keys(value).every((key) => key === 'function' || key === 'type' || key === 'id'))
    value = value['function'];
  if (!isRecord(value) || typeof value['name'] !== 'string' || value['name'] === '') return undefined;
  if (Object.keys(value).some((key) => !JSON_CALL_KEYS.has(key))) return undefined;
  let args: unknown = value['arguments'] ?? value['parameters'] ?? {};
  if (typeof args === 'string') {
    try {
      args = args.trim() === '' ? {} : (JSON.parse(args) as unknown);
    } catch {
      return undefined;
    }
  }
  return isRecord(args) ? { name: value['name'], arguments: JSON.stringify(args) } : undefined;
}

/** Whitespace-separated JSON values making up all of `body`, or `undefined`. */
function parseJsonSequence(body: string): unknown[] | undefined {
  try {
    return [JSON.parse(body) as unknown];
  } catch {
    // maybe several values: split after each balanced top-level value
  }
  const values: unknown[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (--depth < 0) return undefined;
      if (depth === 0) {
        try {
          values.push(JSON.parse(body.slice(start, i + 1)) as unknown);
        } catch {
          return undefined;
        }
        start = i + 1;
        while (start < body.length && /\s/.test(body[start] ?? '')) start++;
        if (start < body.length && body[start] !== '{') return undefined;
        i = start - 1;
      }
    }
  }
  return depth === 0 && start >= body.length && values.length > 0 ? values : undefined;
}

const OPENERS = ['<tool_call>', '<function=', '{', '['] as const;
const FENCE_LANGS = ['', 'json', 'xml', 'tool_call'] as const;

/**
 * Whether the answer's text so far could still turn out to be a text tool call, so the loop
 * holds it back instead of showing it (see the module comment). True while the text, leading
 * whitespace aside, is empty, a prefix of `<tool_call>` or `<function=`, or starts with one of
 * them, `{`, `[` or a code fence whose content may be one; false from the first sign of
 * anything else: once false it stays false for every longer text. A JSON object whose first
 * key is not one a call has, or an XML function not in `offeredNames` (when given), is text.
 * @param prefix - the answer's text received so far
 * @param offeredNames - optional names of the offered tools, to let go of other `<function=` names sooner
 */
export function mayBeTextToolCall(prefix: string, offeredNames?: ReadonlySet<string>): boolean {
  const text = prefix.trimStart();
  if (text.startsWith('```')) {
    const newline = text.indexOf('\n');
    if (newline < 0) return FENCE_LANGS.some((lang) => lang.startsWith(text.slice(3).trim().toLowerCase()));
    if (!(FENCE_LANGS as readonly string[]).includes(text.slice(3, newline).trim().toLowerCase())) return false;
    return mayBeTextToolCall(text.slice(newline + 1), offeredNames);
  }
  if ('```'.startsWith(text)) return true;
  const opener = OPENERS.find((o) => text.startsWith(o) || o.startsWith(text));
  if (opener === undefined) return false;
  if (opener === '{') return mayBeJsonCall(text);
  if (opener === '[') return text.length === 1 || mayBeJsonCall(text.slice(1).trimStart());
  if (opener === '<tool_call>' && text.length > opener.length) return mayBeTextToolCall(text.slice(opener.length), offeredNames);
  if (opener === '<function=' && offeredNames && text.length > opener.length) {
    const end = text.indexOf('>');
    const name = text.slice(opener.length, end < 0 ? undefined : end);
    return end < 0 ? [...offeredNames].some((n) => n.startsWith(name)) : offeredNames.has(name);
  }
  return true;
}

/** A JSON text so far that may be a call object: empty, or `{` then (a prefix of) a call key. */
function mayBeJsonCall(text: string): boolean {
  if (text === '') return true;
  if (!text.startsWith('{')) return false;
  const key = /^\{\s*(?:"((?:[^"\\]|\\.)*)("?))?/.exec(text);
  if (!key) return false;
  const rest = text.slice(key[0].length);
  if (key[1] === undefined) return rest === '';
  if (key[2] === '') return JSON_FIRST_KEYS.some((k) => k.startsWith(key[1] ?? ''));
  return JSON_FIRST_KEYS.includes(key[1]);
}
