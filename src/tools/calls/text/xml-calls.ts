/**
 * Calls written as XML-like tags: Qwen3-Coder's `<function=NAME><parameter=KEY>VALUE</parameter>
 * </function>` (also Seed-OSS and Nemotron; closing tags may be missing, as when the stream ends
 * or the model goes on with the next parameter), Llama 3.1's `<function=NAME>{json}</function>`,
 * MiniMax's `<invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke>`, and GLM's
 * `NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>` (inside `<tool_call>`).
 *
 * A parameter's value is text: it stays the string written where the tool's schema says string
 * (file contents that look like numbers or JSON), is read as JSON where the schema says another
 * type, and as JSON when it plainly is a number, boolean, null, object or array and the schema
 * says nothing. The template writes each value between line breaks: one is dropped on each side.
 *
 * Sources: Qwen3-Coder's chat template and vLLM's `qwen3coder_tool_parser.py`; Ollama's
 * `model/parsers/qwen3coder.go`, `glm46.go`/`glm47.go`; MiniMax-M2's tool-call guide; Llama 3.1's
 * prompt format (https://www.llama.com/docs/model-cards-and-prompt-formats/llama3_1/). Pure.
 */
import type { Finder } from './finder.js';
import { repeatedProblem } from '../duplicate-keys.js';
import { deeperThan, MAX_ARGUMENT_DEPTH } from '../repair-arguments.js';
import { pythonLiteral } from './python-literal.js';
import type { OfferedTools, TextCall, TextCallFormat } from './text-call.js';
import { skipSpace, valueSpan } from './value-span.js';

/** The types a JSON Schema property allows (`type`, a `type` list, or `anyOf`/`oneOf` members' types). */
function schemaTypes(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Record<string, unknown>;
  if (typeof s['type'] === 'string') return [s['type']];
  if (Array.isArray(s['type'])) return s['type'].filter((t): t is string => typeof t === 'string');
  const members = Array.isArray(s['anyOf']) ? s['anyOf'] : Array.isArray(s['oneOf']) ? s['oneOf'] : [];
  return members.flatMap(schemaTypes);
}

/**
 * A parameter's value as written, typed by its schema (see the module comment). Without a schema
 * (a parameter named another way, a tool named loosely) a number is read only when the text is
 * its JSON spelling: `1.50`, `1e3` or `-0` stay text, since a string parameter would get `1.5`,
 * `1000` or `0` back from the number.
 */
function parameterValue(raw: string, schema: unknown): unknown {
  const types = schemaTypes(schema);
  if (types.includes('string')) return raw;
  const trimmed = raw.trim();
  if (types.length === 0 && !/^(?:[-\d[{]|true$|false$|null$)/.test(trimmed)) return raw;
  if (deeperThan(trimmed, MAX_ARGUMENT_DEPTH)) return raw;
  try {
    const value = JSON.parse(trimmed) as unknown;
    return types.length === 0 && typeof value === 'number' && JSON.stringify(value) !== raw ? raw : value;
  } catch {
    // A Python list or dict (`['a', 'b']`) where the schema wants one.
    const python = types.length > 0 ? pythonLiteral(trimmed) : undefined;
    return python && typeof python.value === 'object' && python.value !== null ? python.value : raw;
  }
}

/** One line break taken off each end of a value (the template's own), and one space after an opening tag on the same line. */
function trimValue(raw: string, atEnd: boolean): string {
  let value = raw.startsWith('\r\n') ? raw.slice(2) : raw.startsWith('\n') ? raw.slice(1) : raw.startsWith(' ') && !raw.startsWith('  ') ? raw.slice(1) : raw;
  // A value the stream ended in keeps no trailing whitespace: nothing after it says where it ended.
  value = atEnd ? value.replace(/\s+$/, '') : value.replace(/\r?\n$/, '');
  return value;
}

/** Sets `key` as an own property (a parameter named `__proto__` stays a parameter). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** How the parameters of one tag family are written. */
interface ParameterTags {
  /** Matches an opening parameter tag at the start of the text; group 1 the key. */
  open: RegExp;
  close: string;
  /** Where a parameter without its closing tag ends: the next parameter, the end of the call. */
  next: readonly string[];
}

const QWEN_PARAMETER: ParameterTags = { open: /^<parameter=([^>\n]+)>/, close: '</parameter>', next: ['<parameter', '</function>'] };
/** MiniMax's parameter tags, in a namespace (`steptml:` for Step-3, `atem:` for Glimmer) or none. */
const invokeParameter = (ns: string): ParameterTags => ({
  open: new RegExp(`^<${ns}parameter\\s+name=["']?([^"'>]+)["']?\\s*>`),
  close: `</${ns}parameter>`,
  next: [`<${ns}parameter `, `</${ns}invoke>`],
});
const INVOKE_PARAMETERS = new Map(['', 'steptml:', 'atem:'].map((ns) => [ns, invokeParameter(ns)]));

/** What the tag readers need besides the text: the offered tools, the answer's finder, whether the limit is the answer's end. */
interface TagContext {
  tools: OfferedTools;
  finder: Finder;
  /** `limit` is the end of the answer (a missing closing tag is then no sign of a cut). */
  atEnd: boolean;
}

/** The first index of any of `needles` from `from` before `limit`, or `limit`. */
function firstOf(finder: Finder, needles: readonly string[], from: number, limit: number): number {
  let best = limit;
  for (const needle of needles) {
    const at = finder.indexOf(needle, from);
    if (at >= 0 && at < best) best = at;
  }
  return best;
}

/**
 * The parameters written from `start` to `limit` in `tags`'s form; `undefined` when other text
 * stands between them. `cut` when the text ends inside a tag. Qwen's own form also takes what
 * models given its prompt write instead (`@ai-sdk-tool/parser`'s cases from live models):
 * `<parameter>KEY</parameter>` then the value, and `<KEY>VALUE</KEY>`.
 */
function parameters(
  text: string,
  start: number,
  limit: number,
  tags: ParameterTags,
  properties: Readonly<Record<string, unknown>> | undefined,
  { finder, atEnd }: TagContext,
) {
  const args: Record<string, unknown> = {};
  let repeated: string | undefined;
  const put = (key: string, value: unknown) => {
    repeated ??= repeatedProblem(args, key, value);
    setOwn(args, key, value);
  };
  const schemaOf = (key: string) => (properties && Object.hasOwn(properties, key) ? properties[key] : undefined);
  let i = skipSpace(text, start, limit);
  while (i < limit) {
    const window = text.slice(i, Math.min(limit, i + 300));
    const head = tags.open.exec(window) ?? (tags === QWEN_PARAMETER ? /^<parameter>\s*([^<\n]+?)\s*<\/parameter>/.exec(window) : null);
    const keyTag = head || tags !== QWEN_PARAMETER ? null : /^<([A-Za-z_][\w.-]*)>/.exec(window);
    if (keyTag) {
      // `<KEY>VALUE</KEY>`: only with its closing tag.
      const close = finder.indexOf(`</${keyTag[1]}>`, i + keyTag[0].length);
      if (close < 0 || close > limit) return undefined;
      put(keyTag[1]!, parameterValue(trimValue(text.slice(i + keyTag[0].length, close), false), schemaOf(keyTag[1]!)));
      i = skipSpace(text, close + keyTag[1]!.length + 3, limit);
      continue;
    }
    if (!head) {
      // The answer ended inside a parameter's opening tag.
      const rest = text.slice(i, limit);
      return /^<parameter[= ][^>]*$/.test(rest) || '<parameter'.startsWith(rest) ? { args, cut: true, repeated } : undefined;
    }
    const key = head[1]!.trim();
    const from = i + head[0].length;
    const close = finder.indexOf(tags.close, from);
    const next = firstOf(finder, tags.next, from, limit);
    const closed = close >= 0 && close <= next;
    const end = closed ? close : next;
    const raw = text.slice(from, end);
    put(key, parameterValue(trimValue(raw, atEnd && end === limit), schemaOf(key)));
    i = skipSpace(text, closed ? close + tags.close.length : next, limit);
  }
  return { args, cut: false, repeated };
}

/**
 * The call written as `<function=NAME>` at `start` (its `<`), up to `limit`: XML parameters, or a
 * JSON object body (Llama 3.1). It ends at `</function>`, the next `<function=`, or `limit`.
 * @param atEnd - `limit` is the end of the answer (a missing closing tag is then no sign of a cut).
 */
export function functionTagAt(text: string, start: number, limit: number, context: TagContext, format: TextCallFormat = 'qwen-xml') {
  // Also as models given Qwen's prompt write it: the `<` left out, or the name as the tag's text.
  const head = /^(?:<function=|function=)([^>\n]+)>|^<function>\s*([^<\n]+?)\s*<\/function>/.exec(text.slice(start, Math.min(limit, start + 300)));
  if (!head) return undefined;
  const name = (head[1] ?? head[2]!).trim();
  const bodyStart = start + head[0].length;
  const close = context.finder.indexOf('</function>', bodyStart);
  const next = context.finder.indexOf('<function=', bodyStart);
  const bodyEnd = Math.min(close >= 0 && close < limit ? close : limit, next >= 0 && next < limit ? next : limit);
  const end = close >= 0 && close === bodyEnd ? close + '</function>'.length : bodyEnd;
  const first = skipSpace(text, bodyStart, bodyEnd);
  if (text[first] === '{') {
    const span = valueSpan(text, first, bodyEnd);
    const call: TextCall = { name, arguments: text.slice(first, span.end), format: 'llama' };
    if (span.open && bodyEnd === limit) call.cut = true;
    return { call, end };
  }
  const read = parameters(text, bodyStart, bodyEnd, QWEN_PARAMETER, context.tools.get(name), { ...context, atEnd: context.atEnd && bodyEnd === limit });
  if (!read) return undefined;
  const call: TextCall = { name, arguments: JSON.stringify(read.args), format };
  if (read.cut) call.cut = true;
  if (read.repeated) call.problem = read.repeated;
  return { call, end };
}

/**
 * The call written as MiniMax's `<invoke name="NAME">` at `start`, up to `limit`; with `ns`, the
 * same tags in a namespace (Step-3's `<steptml:invoke>`, Glimmer's `<atem:invoke>`).
 */
export function invokeTagAt(text: string, start: number, limit: number, context: TagContext, ns = '') {
  const tags = INVOKE_PARAMETERS.get(ns);
  const head = tags && new RegExp(`^<${ns}invoke\\s+name=["']?([^"'>]+)["']?\\s*>`).exec(text.slice(start, Math.min(limit, start + 300)));
  if (!tags || !head) return undefined;
  const name = head[1]!.trim();
  const bodyStart = start + head[0].length;
  const closeTag = `</${ns}invoke>`;
  const close = context.finder.indexOf(closeTag, bodyStart);
  const bodyEnd = close >= 0 && close < limit ? close : limit;
  const read = parameters(text, bodyStart, bodyEnd, tags, context.tools.get(name), { ...context, atEnd: context.atEnd && bodyEnd === limit });
  if (!read) return undefined;
  const call: TextCall = { name, arguments: JSON.stringify(read.args), format: 'minimax' };
  if (read.cut) call.cut = true;
  if (read.repeated) call.problem = read.repeated;
  return { call, end: bodyEnd === close ? close + closeTag.length : bodyEnd };
}

/**
 * GLM's call body (what stands inside `<tool_call>`): the name, then `<arg_key>`/`<arg_value>`
 * pairs or a JSON object (GLM-4's older form), or nothing (a call without arguments, of an offered
 * tool). `undefined` when the body is not that (the name must be a plain identifier).
 */
export function glmCall(text: string, start: number, limit: number, { tools, finder, atEnd }: TagContext): TextCall | undefined {
  const head = /^\s*([A-Za-z_][\w.-]*)[ \t]*(?:\r?\n|(?=<arg_key>)|$)/.exec(text.slice(start, Math.min(limit, start + 300)));
  if (!head) return undefined;
  const name = head[1]!;
  let i = skipSpace(text, start + head[0].length, limit);
  // A name alone is a call without arguments only when it is an offered tool (else it is a word between tags).
  if (i >= limit) return tools.has(name) ? { name, arguments: '{}', format: 'glm' } : undefined;
  if (text[i] === '{') {
    const span = valueSpan(text, i, limit);
    const call: TextCall = { name, arguments: text.slice(i, span.end), format: 'glm' };
    if (span.open) call.cut = true;
    return skipSpace(text, span.end, limit) >= limit ? call : undefined;
  }
  const properties = tools.get(name);
  const args: Record<string, unknown> = {};
  let repeated: string | undefined;
  while (i < limit) {
    if (!text.startsWith('<arg_key>', i)) return undefined;
    const keyEnd = finder.indexOf('</arg_key>', i);
    if (keyEnd < 0 || keyEnd > limit) return { name, arguments: JSON.stringify(args), format: 'glm', cut: true };
    const key = text.slice(i + '<arg_key>'.length, keyEnd).trim();
    i = skipSpace(text, keyEnd + '</arg_key>'.length, limit);
    if (!text.startsWith('<arg_value>', i)) return i >= limit ? { name, arguments: JSON.stringify(args), format: 'glm', cut: true } : undefined;
    const from = i + '<arg_value>'.length;
    const close = finder.indexOf('</arg_value>', from);
    const closed = close >= 0 && close <= limit;
    // A value the answer ended in (no `</arg_value>`, no `</tool_call>`) is cut off.
    if (!closed && atEnd) return { name, arguments: JSON.stringify(args), format: 'glm', cut: true };
    const end = closed ? close : limit;
    const value = parameterValue(trimValue(text.slice(from, end), false), properties && Object.hasOwn(properties, key) ? properties[key] : undefined);
    repeated ??= repeatedProblem(args, key, value);
    setOwn(args, key, value);
    i = skipSpace(text, closed ? close + '</arg_value>'.length : limit, limit);
  }
  const call: TextCall = { name, arguments: JSON.stringify(args), format: 'glm' };
  if (repeated) call.problem = repeated;
  return call;
}
