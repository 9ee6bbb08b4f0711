/**
 * Calls written without any format's marker: bare or fenced JSON envelopes (one, a list, one
 * after another separated by `;`, `,` or lines, as Llama 3.2 joins them), an object keyed by the
 * tool's name, pythonic calls, Gemma's `call:NAME{…}`. Such text is a call only where the guard
 * allows: it is the whole answer (or the whole of what stands before a marked call, or the tail
 * of the reasoning), or pythonic calls head it and prose follows; and every name is an offered
 * tool, except in envelopes that say they are calls (an arguments key beside the name), which are
 * calls whatever they name (one not offered is refused with the list). Pure.
 */
import { resolveToolName } from '../tool-name-resolve.js';
import { Finder } from './finder.js';
import { gemmaCall } from './gemma.js';
import { envelopesFrom, namedCalls } from './json-envelope.js';
import { pythonicCalls } from './python-literal.js';
import { fromPythonic, pythonicBody, surplusAllowed } from './tag-body.js';
import type { OfferedTools, TextCall } from './text-call.js';
import { isSpace, skipSpace } from './value-span.js';

/** End-of-turn tokens a server may leave at the end of an answer (Llama, Gemma, ChatML, Mistral, Harmony, DeepSeek). */
const END_TOKENS: readonly string[] = [
  '<|eot_id|>',
  '<|eom_id|>',
  '<|eot|>',
  '<|eom|>',
  '<end_of_turn>',
  '<turn|>',
  '<|im_end|>',
  '<|end|>',
  '</s>',
  '<|endoftext|>',
  '<|end_of_text|>',
  '<|return|>',
  '<|call|>',
  '<｜end▁of▁sentence｜>',
];

/** `text` without the end-of-turn tokens (and whitespace) it ends with; looks at the end only. */
export function withoutEndTokens(text: string): string {
  let end = text.length;
  for (let again = true; again; ) {
    again = false;
    while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
    const token = END_TOKENS.find((t) => text.startsWith(t, end - t.length));
    if (token) [end, again] = [end - token.length, true];
  }
  return end === text.length ? text : text.slice(0, end);
}

/** A code fence around the whole text, with a language a call may be written in. */
const WHOLE_FENCE = /^```(?:json|tool_call|tool_code|python|xml)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/i;

/**
 * The text without surrounding whitespace, end-of-turn tokens, one enclosing code fence, and the
 * separator a list of calls may start with (Llama 3.2 writes `; {…}; {…}`).
 */
export function unwrap(text: string): string {
  let body = withoutEndTokens(text).trim();
  const fenced = WHOLE_FENCE.exec(body);
  if (fenced) body = (fenced[1] ?? '').trim();
  if (body[0] === ';' || body[0] === ',') body = body.slice(1).trimStart();
  return body;
}

/** Whether `name` is an offered tool, as the runner resolves names. */
export function isOffered(name: string, tools: OfferedTools): boolean {
  return tools.has(name) || resolveToolName(name, [...tools.keys()]) !== undefined;
}

/**
 * The calls that are all of `body` (already unwrapped), or `undefined`.
 * @param explicitAnyName - an envelope with an arguments key is a call whatever it names (the
 *   whole answer); `false` where every name must be offered (text before a marked call, reasoning).
 */
export function wholeCalls(body: string, tools: OfferedTools, explicitAnyName = true): TextCall[] | undefined {
  const first = body[0];
  let calls: TextCall[] | undefined;
  let explicit = false;
  if (first === '{' || (first === '[' && body[skipSpace(body, 1)] === '{')) {
    const read = envelopesFrom(body, 0, body.length, 'json', tools);
    const complete = !read.refused && skipSpace(body, read.end) >= body.length && surplusAllowed(read);
    const named = complete ? undefined : namedCalls(body, 0, body.length, tools, 'json');
    calls = complete ? read.calls : named && skipSpace(body, named.end) >= body.length ? named.calls : undefined;
    explicit = explicitAnyName && /["'](?:arguments|parameters|args|tool_arguments)["']\s*:/.test(body);
  } else if (body.startsWith('call:')) {
    const gemma = gemmaCall(body, 0, body.length, new Finder(body));
    calls = gemma && [gemma];
  } else if (/^\[?\s*[A-Za-z_][\w.-]*\s*\(/.test(body)) calls = pythonicBody(body, 0, body.length);
  if (!calls || calls.length === 0) return undefined;
  return explicit || calls.every((call) => isOffered(call.name, tools)) ? calls : undefined;
}

/**
 * Pythonic calls of offered tools, each on a line of its own, that head `body`, followed by prose
 * (`get_weather(city="Paris")\nget_time(city="Paris")\nI'll check both.`): the calls, or `undefined`.
 */
export function headCalls(body: string, tools: OfferedTools): TextCall[] | undefined {
  if (!/^\[?\s*[A-Za-z_][\w.-]*\s*\(/.test(body)) return undefined;
  const calls: TextCall[] = [];
  let at = 0;
  while (at < body.length) {
    const eol = body.indexOf('\n', at);
    const end = eol < 0 ? body.length : eol;
    const found = pythonicCalls(body, at, end);
    if (!found || found.open || found.calls.length === 0) break;
    const line = fromPythonic(found, 'pythonic');
    if (!line.every((call) => isOffered(call.name, tools))) return undefined;
    calls.push(...line);
    at = skipSpace(body, end);
  }
  // Prose must follow (a whole answer of calls is read whole), and begin like a sentence.
  return calls.length > 0 && at < body.length && /^[A-Z"'(*]/.test(body.slice(at, at + 1)) ? calls : undefined;
}

/**
 * The tail of a text that may be a call: its last fenced block when the text ends with one, else
 * its last paragraph (after the last blank line), with where the tail begins.
 */
export function tailOf(text: string): { tail: string; start: number } {
  const trimmed = withoutEndTokens(text).trimEnd();
  if (trimmed.endsWith('```')) {
    const open = trimmed.lastIndexOf('```', trimmed.length - 4);
    if (open >= 0) return { tail: trimmed.slice(open), start: open };
  }
  // The last blank line, found from the end: a line break, spaces or tabs only, a line break.
  let start = 0;
  for (let i = trimmed.lastIndexOf('\n'); i > 0; i = trimmed.lastIndexOf('\n', i - 1)) {
    let j = i - 1;
    while (j >= 0 && (trimmed[j] === ' ' || trimmed[j] === '\t' || trimmed[j] === '\r')) j--;
    if (j >= 0 && trimmed[j] === '\n') {
      start = skipSpace(trimmed, i);
      break;
    }
  }
  return { tail: trimmed.slice(start), start };
}
