/**
 * What stands inside a call's wrapper tags (`<tool_call>…</tool_call>`, Granite's `<|tool_call|>`,
 * Nemotron's `<TOOLCALL>`, LFM2's `<|tool_call_start|>`, a `tool_code` fence, …), whatever the
 * wrapper: JSON envelopes (one, several, an array), `<function=…>` or `<invoke …>` blocks, pythonic
 * calls, or GLM's name with `<arg_key>` pairs. One code fence inside the tags is looked through.
 * Pure.
 */
import type { Finder } from './finder.js';
import { envelopesFrom, namedCalls } from './json-envelope.js';
import { pythonicCalls } from './python-literal.js';
import type { OfferedTools, TextCall, TextCallFormat } from './text-call.js';
import { skipSpace } from './value-span.js';
import { functionTagAt, glmCall, invokeTagAt } from './xml-calls.js';

/** What the body reader needs besides the text. */
export interface BodyContext {
  tools: OfferedTools;
  finder: Finder;
  /** True when `limit` is the end of the answer (a missing closing tag there is no sign of a cut). */
  atEnd: boolean;
}

/**
 * Whether the brackets too many after the envelopes read (`surplus`) leave one meaning: one `}`
 * or `]` after a single call (the model closed it twice); with several calls, or more brackets,
 * which call they close is a guess.
 */
export function surplusAllowed(read: { calls: readonly unknown[]; surplus?: number }): boolean {
  return !read.surplus || (read.surplus === 1 && read.calls.length === 1);
}

/** Python keyword arguments as a call's JSON arguments; positional ones make the call one to refuse. */
export function fromPythonic(found: NonNullable<ReturnType<typeof pythonicCalls>>, format: TextCallFormat): TextCall[] {
  return found.calls.map((call, i) => {
    const out: TextCall = { name: call.name, arguments: JSON.stringify(call.args), format };
    if (call.positional) out.problem = 'its arguments must be written by name (key=value), not by position';
    if (call.repeated) out.problem = call.repeated;
    if (found.open && i === found.calls.length - 1) out.cut = true;
    return out;
  });
}

/**
 * The calls written in the body from `start` to `limit`, or `undefined` when it holds none.
 * @param format - the family to record for JSON bodies (the wrapper's: `hermes`, `granite`, …).
 */
export function bodyCalls(text: string, start: number, limit: number, context: BodyContext, format: TextCallFormat): TextCall[] | undefined {
  let i = skipSpace(text, start, limit);
  let end = limit;
  const fence = /^```[\w-]*[ \t]*\r?\n/.exec(text.slice(i, Math.min(limit, i + 40)));
  if (fence) {
    i = skipSpace(text, i + fence[0].length, limit);
    const close = text.lastIndexOf('```', limit);
    if (close > i) end = close;
  }
  // GigaChat's role separator between its marker and the call.
  if (text.startsWith('<|role_sep|>', i)) i = skipSpace(text, i + '<|role_sep|>'.length, end);
  const c = text[i];
  if (c === '{' || (c === '[' && text[skipSpace(text, i + 1, end)] === '{')) {
    const read = envelopesFrom(text, i, end, format, context.tools);
    if (read.calls.length > 0 && !read.refused && surplusAllowed(read)) return read.calls;
    return namedCalls(text, i, end, context.tools, format)?.calls;
  }
  if (/^<?function[=>]/.test(text.slice(i, i + 10)))
    return tagSequence(text, i, end, (at) => functionTagAt(text, at, end, { ...context, atEnd: context.atEnd && end === limit }));
  if (text.startsWith('<invoke', i))
    return tagSequence(text, i, end, (at) => invokeTagAt(text, at, end, { ...context, atEnd: context.atEnd && end === limit }));
  if (/^\[?\s*[A-Za-z_][\w.-]*\s*\(/.test(text.slice(i, Math.min(end, i + 300)))) {
    const found = pythonicCalls(text, i, end);
    return found && found.calls.length > 0 ? fromPythonic(found, 'pythonic') : undefined;
  }
  const glm = glmCall(text, i, end, { ...context, atEnd: context.atEnd && end === limit });
  return glm ? [glm] : undefined;
}

/** Consecutive tag calls (`<function=…>` or `<invoke …>` blocks) from `start`; text other than whitespace between them ends the sequence. */
function tagSequence(text: string, start: number, limit: number, read: (at: number) => { call: TextCall; end: number } | undefined): TextCall[] | undefined {
  const calls: TextCall[] = [];
  let i = start;
  while (i < limit && (text[i] === '<' || i === start)) {
    const found = read(i);
    if (!found) break;
    calls.push(found.call);
    i = skipSpace(text, found.end, limit);
  }
  return calls.length > 0 ? calls : undefined;
}

/** The pythonic calls that are all of the text from `start` to `limit` (a bare answer or a `tool_code` fence), or `undefined`. */
export function pythonicBody(text: string, start: number, limit: number): TextCall[] | undefined {
  const found = pythonicCalls(text, start, limit);
  return found && found.calls.length > 0 ? fromPythonic(found, 'pythonic') : undefined;
}
