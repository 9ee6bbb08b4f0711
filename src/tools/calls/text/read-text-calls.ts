/**
 * The one reader of tool calls that models write as text instead of `tool_calls` (a server
 * without the right parser or chat template, a model that puts prose first, a template without
 * tools): used for a whole answer without `tool_calls`, for the content beside structured calls,
 * and on the text path. A call is found
 * - wherever the format's own marker stands (after prose, between prose; `markers.ts`), in every
 *   format the major local-model families write, glued calls split;
 * - as a bare or fenced JSON envelope, or pythonic calls, only when that is the whole answer (or
 *   heads it, prose after; or stands before a marked call, its marker forgotten) and every name
 *   is an offered tool (or the envelope says it is a call, with its arguments: one naming no
 *   offered tool is then refused with the list) (`bare-calls.ts`);
 * - never where the message only shows it: introduced as an example, or in a code block that
 *   prose follows (`call-guards.ts`).
 * What follows the first call and is no call (an invented result, more prose) is not the answer.
 * Pure; linear in the text; at most {@link MAX_CALLS_PER_ANSWER} calls per answer.
 */
import { headCalls, tailOf, unwrap, wholeCalls, withoutEndTokens } from './bare-calls.js';
import { introducesExample, shownInBlock } from './call-guards.js';
import { Finder } from './finder.js';
import { nextMarker, readAtMarker } from './markers.js';
import type { OfferedTools, TextCall } from './text-call.js';
import { skipSpace } from './value-span.js';

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

/** The prose before a call, without what only introduced it: a code fence opened for it, Harmony's header tokens. */
function proseBefore(text: string): string {
  if (/<\|(?:start|channel|message)\|>/.test(text)) return '';
  return text.replace(/(?:^|\n)[ \t]*```[\w-]*[ \t]*\r?\n?[ \t]*$/, '').trimEnd();
}

/** Stray closing tags a model leaves after its calls. */
const STRAY_CLOSERS: readonly string[] = ['</tool_call>', '</function_call>', '</tool_calls>'];

/** `text` without the stray closing tags (and whitespace) it ends with. */
function withoutStrayClosers(text: string): string {
  let out = text.trimEnd();
  for (let closer = STRAY_CLOSERS.find((c) => out.endsWith(c)); closer; closer = STRAY_CLOSERS.find((c) => out.endsWith(c)))
    out = out.slice(0, -closer.length).trimEnd();
  return out;
}

/** The calls the marked ones are read from, and where they begin and end. */
interface Marked {
  calls: TextCall[];
  start: number;
  end: number;
}

/**
 * The calls at the format markers of `text` (not those shown in a code block with prose after it),
 * or `undefined`; with `only`, at those markers alone (a family's reader picked first).
 */
function markedCalls(text: string, tools: OfferedTools, only?: ReadonlySet<string>): Marked | undefined {
  const finder = new Finder(text);
  const shown = shownInBlock(text);
  const calls: TextCall[] = [];
  let start = -1;
  let end = 0;
  for (let at = nextMarker(text, 0); at && calls.length <= MAX_CALLS_PER_ANSWER; ) {
    const read = shown(at.index) || (only && !only.has(at.marker)) ? undefined : readAtMarker(at.marker, { text, at: at.index, finder, tools });
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
  return start < 0 ? undefined : { calls, start, end };
}

/** The read, its calls bounded to {@link MAX_CALLS_PER_ANSWER}; `followed` when text follows the last call read. */
function bounded(calls: TextCall[], prose: string, followed: boolean): TextCallsRead {
  const read: TextCallsRead = { calls: calls.slice(0, MAX_CALLS_PER_ANSWER), prose };
  if (followed || calls.length > MAX_CALLS_PER_ANSWER) read.followed = true;
  return read;
}

/**
 * Reads the calls in `answer`, the whole text of one answer (reasoning already split off), or its
 * reasoning (`reasoning: true`, read when the answer has no call of its own): there the guard is
 * the same, with the tail of the reasoning (its last paragraph or fenced block) in the place of
 * the whole answer.
 * @param tools - the offered tools (names and parameter schemas); none → nothing is a call.
 * @param prefer - the markers of the family the server's chat template writes (`formatForTemplate`): read first.
 */
export function readTextCalls(
  answer: string,
  tools: OfferedTools,
  { reasoning = false, prefer }: { reasoning?: boolean; prefer?: ReadonlySet<string> } = {},
): TextCallsRead {
  const none: TextCallsRead = { calls: [], prose: answer };
  if (tools.size === 0) return none;
  if (!reasoning) {
    const body = unwrap(answer);
    const whole = wholeCalls(body, tools);
    if (whole) return bounded(whole, '', false);
    // Pythonic calls heading the answer, then a sentence about them.
    const head = headCalls(body, tools);
    if (head) return bounded(head, '', true);
  }
  // A call the answer ends in runs to the end of the text, not into an end-of-turn token.
  const text = withoutEndTokens(answer);
  // The family the server's template names is read first; the others only when it reads nothing.
  const marked = (prefer && markedCalls(text, tools, prefer)) || markedCalls(text, tools);
  if (marked) {
    const before = text.slice(0, marked.start);
    // A call shown as an example ("you can call it like this:") is not made: the answer is prose.
    if (introducesExample(before)) return none;
    // Calls written before the first marked one without its marker (the model forgot it once).
    const unmarked = before.trim() === '' ? undefined : wholeCalls(unwrap(withoutStrayClosers(before)), tools, false);
    const calls = unmarked ? [...unmarked, ...marked.calls] : marked.calls;
    return bounded(calls, unmarked ? '' : proseBefore(before), skipSpace(text, marked.end) < text.length);
  }
  if (!reasoning) return none;
  // The reasoning's tail: a call to an offered tool there, as the whole answer would be, unless introduced as an example.
  const { tail, start } = tailOf(text);
  const calls = wholeCalls(unwrap(tail), tools, false);
  return calls && !introducesExample(text.slice(0, start)) ? bounded(calls, proseBefore(text.slice(0, start)), false) : none;
}
