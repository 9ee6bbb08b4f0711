/**
 * gpt-oss's Harmony format written as text, with its tokens, part of them, or none (a server that
 * strips special tokens): a call is a message to a recipient, `to=functions.NAME` (or `to=NAME`)
 * in its header, then an optional `<|constrain|>json` (or the bare word `json`), `<|message|>`,
 * and the arguments as JSON, ended by `<|call|>`:
 * `<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path":"a"}<|call|>`,
 * stripped: `commentary to=functions.read_file json{"path":"a"}`. Messages without a recipient
 * (the `analysis` and `final` channels) are no calls. Pure.
 *
 * Sources: the Harmony format (https://github.com/openai/harmony, "Receiving tool calls"); Ollama
 * `harmony/harmonyparser.go` (the recipient before or after the channel); ollama/ollama#12132 and
 * kekzl/imp#1716 (headers leaked into names and text).
 */
import type { MarkerRead, TextCall } from './text-call.js';
import { skipSpace, valueSpan } from './value-span.js';

/**
 * A recipient and what may follow it up to the arguments (token or stripped spellings). The name
 * may hold spaces (LM Studio tools such as `Web Search`, lmstudio-bug-tracker#876): it runs to the
 * next token, ` json`, or the arguments.
 */
const CALL_HEADER =
  /to=(?:functions\.)?([A-Za-z_][\w.-]*(?: [\w.-]+)*?)(?:\s*<\|channel\|>\s*\w+)?\s*(?:<\|constrain\|>\s*)?(?:json|code)?\s*(?:<\|message\|>)?\s*(?=\{|$)/y;
/** Recipients that are no tool: a message to the user or back to the assistant (a tool's reply the model invented). */
const NOT_TOOLS: ReadonlySet<string> = new Set(['assistant', 'user', 'system']);
/** Tokens that end a message. */
const MESSAGE_END = /^\s*(?:<\|call\|>|<\|end\|>|<\|return\|>)/;

/** How far after a marker its recipient may stand (a header is short), in characters: 256. */
const HEADER_WINDOW = 256;

/**
 * The Harmony calls from the marker at `at` to `limit`: each recipient header followed by a JSON
 * object. The recipient is looked for within {@link HEADER_WINDOW} characters of the marker (so a
 * marker that opens an `analysis` message finds none, and the next marker is tried); reading stops
 * at the first header that is not followed by a call.
 */
export function harmonyAt(text: string, at: number, limit: number): MarkerRead | undefined {
  const calls: TextCall[] = [];
  let i = at;
  let end = at;
  for (;;) {
    const window = text.slice(i, Math.min(limit, i + HEADER_WINDOW));
    const found = window.indexOf('to=');
    // A message body (`<|message|>`) before any recipient: not a call header.
    const body = window.indexOf('<|message|>');
    if (found < 0 || (body >= 0 && body < found)) break;
    const to = i + found;
    CALL_HEADER.lastIndex = to;
    const head = CALL_HEADER.exec(text);
    if (!head || head.index !== to || NOT_TOOLS.has(head[1]!)) break;
    const start = to + head[0].length;
    if (start >= limit) {
      calls.push({ name: head[1]!, arguments: '', format: 'harmony', cut: true });
      end = limit;
      break;
    }
    if (text[start] !== '{') break;
    const span = valueSpan(text, start, limit);
    const call: TextCall = { name: head[1]!, arguments: text.slice(start, span.end), format: 'harmony' };
    if (span.open) call.cut = true;
    calls.push(call);
    end = span.end;
    const after = MESSAGE_END.exec(text.slice(span.end, span.end + 20));
    if (after) end += after[0].length;
    if (span.open) break;
    i = end;
    // The next call is another whole message: its start must follow at once.
    const next = skipSpace(text, end, limit);
    if (!/^(?:<\|start\|>assistant|<\|channel\|>|(?:assistant)?(?:commentary)?\s*to=)/.test(text.slice(next, next + 40))) break;
  }
  return calls.length > 0 ? { calls, end } : undefined;
}
