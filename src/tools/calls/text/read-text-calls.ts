/**
 * The one reader of tool calls that models write as text instead of `tool_calls` (a server
 * without the right parser or chat template, a model that puts prose first, a template without
 * tools): used for a whole answer without `tool_calls`, for the content beside structured calls,
 * and on the text path. A call is found
 * - wherever the format's own marker stands (after prose, between prose; `markers.ts`), in every
 *   format the major local-model families write, glued calls split;
 * - as a bare or fenced JSON envelope, or pythonic calls, only when that is the whole answer and
 *   every name is an offered tool (or the envelope says it is a call, with its arguments: one
 *   naming no offered tool is then refused with the list): a message that talks about a tool or
 *   shows a call in an example inside prose is not a call.
 * What follows the first call and is no call (an invented result, more prose) is not the answer.
 * Pure; linear in the text; at most {@link MAX_CALLS_PER_ANSWER} calls per answer.
 */
import { resolveToolName } from '../tool-name-resolve.js';
import { gemmaCall } from './gemma.js';
import { envelopesFrom } from './json-envelope.js';
import { Finder } from './finder.js';
import { nextMarker, readAtMarker } from './markers.js';
import { pythonicBody } from './tag-body.js';
import type { OfferedTools, TextCall } from './text-call.js';
import { isSpace, skipSpace, valueSpan } from './value-span.js';

/**
 * Most calls run from one answer: 32, read from text or sent as `tool_calls` (more are not read,
 * so not run; the loop tells the model of structured ones left out).
 */
export const MAX_CALLS_PER_ANSWER = 32;

/** What an answer's text holds. */
export interface TextCallsRead {
  /** The calls, in order (at most {@link MAX_CALLS_PER_ANSWER}); empty when the text is only prose. */
  calls: TextCall[];
  /** The prose before the first call (the answer's text); all of it when there is no call. */
  prose: string;
  /** True when text other than whitespace follows the last call (an invented result, say): an answer stopped at its length limit did not stop inside that call. */
  followed?: true;
}

/** End-of-turn tokens a server may leave at the end of an answer (Llama, Gemma, ChatML, Mistral, Harmony, DeepSeek). */
const END_TOKENS: readonly string[] = [
  '<|eot_id|>',
  '<|eom_id|>',
  '<|eot|>',
  '<|eom|>',
  '<end_of_turn>',
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
function withoutEndTokens(text: string): string {
  let end = text.length;
  for (let again = true; again; ) {
    again = false;
    while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
    const token = END_TOKENS.find((t) => text.startsWith(t, end - t.length));
    if (token) [end, again] = [end - token.length, true];
  }
  return end === text.length ? text : text.slice(0, end);
}

/** A code fence around the whole answer, with a language a call may be written in. */
const WHOLE_FENCE = /^```(?:json|tool_call|tool_code|python|xml)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/i;

/** The answer without surrounding whitespace, end-of-turn tokens and one enclosing code fence. */
function unwrap(text: string): string {
  let body = withoutEndTokens(text).trim();
  const fenced = WHOLE_FENCE.exec(body);
  if (fenced) body = (fenced[1] ?? '').trim();
  return body;
}

/**
 * Bare JSON envelopes or pythonic calls that are all of `body`. Every name must be an offered
 * tool, except in envelopes that say they are calls (an arguments key beside the name): those
 * are calls whatever they name (one not offered is refused with the list of tools).
 */
function wholeCalls(body: string, tools: OfferedTools): TextCall[] | undefined {
  const first = body[0];
  const offered = [...tools.keys()];
  let calls: TextCall[] | undefined;
  let explicit = false;
  if (first === '{' || (first === '[' && body[skipSpace(body, 1)] === '{')) {
    const read = envelopesFrom(body, 0, body.length, 'json');
    calls = !read.refused && skipSpace(body, read.end) >= body.length ? read.calls : namedByKey(body, offered);
    explicit = /["'](?:arguments|parameters|args)["']\s*:/.test(body);
  } else if (body.startsWith('call:')) {
    const gemma = gemmaCall(body, 0, body.length, new Finder(body));
    calls = gemma && [gemma];
  } else if (/^\[?\s*[A-Za-z_][\w.-]*\s*\(/.test(body)) calls = pythonicBody(body, 0, body.length);
  if (!calls || calls.length === 0) return undefined;
  return explicit || calls.every((call) => resolveToolName(call.name, offered) !== undefined) ? calls.slice(0, MAX_CALLS_PER_ANSWER) : undefined;
}

/**
 * An object whose only key is an offered tool's name and whose value is the arguments object
 * (`{"get_temperature": {"location": "…"}}`, as Apertus writes), or `undefined`.
 */
function namedByKey(body: string, offered: readonly string[]): TextCall[] | undefined {
  const head = /^\{\s*"([A-Za-z_][\w.-]*)"\s*:\s*\{/.exec(body);
  if (!head || !offered.includes(head[1]!)) return undefined;
  const start = head[0].length - 1;
  const span = valueSpan(body, start);
  if (span.open || span.tooDeep || !/^\s*\}\s*$/.test(body.slice(span.end))) return undefined;
  return [{ name: head[1]!, arguments: body.slice(start, span.end), format: 'json' }];
}

/** The prose before a call, without what only introduced it: a code fence opened for it, Harmony's header tokens. */
function proseBefore(text: string): string {
  if (/<\|(?:start|channel|message)\|>/.test(text)) return '';
  return text.replace(/(?:^|\n)[ \t]*```[\w-]*[ \t]*\r?\n?[ \t]*$/, '').trimEnd();
}

/**
 * Reads the calls in `answer`, the whole text of one answer (reasoning already split off), or its
 * reasoning (`bare: false`: there only a format's markers make a call).
 * @param tools - the offered tools (names and parameter schemas); none → nothing is a call.
 */
export function readTextCalls(answer: string, tools: OfferedTools, { bare = true }: { bare?: boolean } = {}): TextCallsRead {
  const none: TextCallsRead = { calls: [], prose: answer };
  if (tools.size === 0) return none;
  const whole = bare ? wholeCalls(unwrap(answer), tools) : undefined;
  if (whole) return { calls: whole, prose: '' };
  // A call the answer ends in runs to the end of the text, not into an end-of-turn token.
  const text = withoutEndTokens(answer);
  const finder = new Finder(text);
  const calls: TextCall[] = [];
  let start = -1;
  let end = 0;
  for (let at = nextMarker(text, 0); at && calls.length < MAX_CALLS_PER_ANSWER; ) {
    const read = readAtMarker(at.marker, { text, at: at.index, finder, tools });
    if (!read) {
      at = nextMarker(text, at.index + at.marker.length);
      continue;
    }
    if (start < 0) start = at.index;
    calls.push(...read.calls);
    end = read.end;
    if (read.calls.at(-1)?.cut) break;
    at = nextMarker(text, Math.max(read.end, at.index + 1));
  }
  if (start < 0) return none;
  const read: TextCallsRead = { calls: calls.slice(0, MAX_CALLS_PER_ANSWER), prose: proseBefore(text.slice(0, start)) };
  if (calls.length > MAX_CALLS_PER_ANSWER || skipSpace(text, end) < text.length) read.followed = true;
  return read;
}
