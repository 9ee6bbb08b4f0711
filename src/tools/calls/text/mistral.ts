/**
 * Mistral's tool calls written as text: the newer form `[TOOL_CALLS]NAME[ARGS]{json}` (Magistral,
 * Devstral, Ministral; optionally `[CALL_ID]id` before `[ARGS]`), one `[TOOL_CALLS]` per call or
 * several calls after one; and the older `[TOOL_CALLS][{"name": …, "arguments": …}]` (Mistral
 * 7B v0.3, Nemo), also written with Python quotes. Pure.
 *
 * Sources: Ollama `model/parsers/ministral.go` and its tests; vLLM `mistral_tool_parser.py`
 * (both forms, by tokenizer version); mistral-common's tokenizer v11 (`[ARGS]`, `[CALL_ID]`).
 */
import { envelopesFrom } from './json-envelope.js';
import type { MarkerRead, TextCall } from './text-call.js';
import { skipSpace, valueSpan } from './value-span.js';

/** The token that opens Mistral's calls. */
const TOOL_CALLS = '[TOOL_CALLS]';

/** The calls after the `[TOOL_CALLS]` at `at`, up to `limit`; `undefined` when none can be read there. */
export function mistralAt(text: string, at: number, limit: number): MarkerRead | undefined {
  let i = skipSpace(text, at + TOOL_CALLS.length, limit);
  if (text[i] === '[' || text[i] === '{') {
    const read = envelopesFrom(text, i, limit, 'mistral-tokens');
    return read.calls.length > 0 ? { calls: read.calls, end: read.end } : undefined;
  }
  const calls: TextCall[] = [];
  for (;;) {
    const head = /^([A-Za-z_][\w.-]*)\s*(?:\[CALL_ID\][^[]*)?\s*(?:\[ARGS\])?\s*/.exec(text.slice(i, Math.min(limit, i + 400)));
    if (!head || text[i + head[0].length] !== '{') {
      const name = head?.[1];
      // The answer ended after the name, before its arguments: a cut-off call.
      if (name && skipSpace(text, i + head[0].length, limit) >= limit) calls.push({ name, arguments: '', format: 'mistral-tokens', cut: true });
      break;
    }
    const start = i + head[0].length;
    const span = valueSpan(text, start, limit);
    const call: TextCall = { name: head[1]!, arguments: text.slice(start, span.end), format: 'mistral-tokens' };
    if (span.open) call.cut = true;
    calls.push(call);
    i = skipSpace(text, span.end, limit);
    // Several calls after one token are joined by a comma or nothing.
    if (text[i] === ',') i = skipSpace(text, i + 1, limit);
    if (span.open || text.startsWith(TOOL_CALLS, i) || !/^[A-Za-z_][\w.-]*\s*(?:\[CALL_ID\]|\[ARGS\]|\{)/.test(text.slice(i, i + 200))) break;
  }
  return calls.length > 0 ? { calls, end: calls.at(-1)?.cut ? limit : i } : undefined;
}
