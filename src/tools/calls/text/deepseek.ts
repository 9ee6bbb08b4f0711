/**
 * The token formats of DeepSeek and Kimi written as text (a server that did not parse them):
 * - DeepSeek V3 / R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```
 *   <｜tool▁call▁end｜><｜tool▁calls▁end｜>` (one line);
 * - DeepSeek V3.1 and later: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`;
 * - Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}
 *   <|tool_call_end|>` (one line).
 * The tokens are matched in their own spelling (full-width bar `｜`, `▁`) and in the ASCII one
 * (`<|tool_call_begin|>`) some tokenizers and servers print. Pure.
 *
 * Sources: DeepSeek-V3 / V3.1 chat templates; vLLM `deepseekv3_tool_parser.py`,
 * `deepseekv31_tool_parser.py`, `kimi_k2_tool_parser.py`; Ollama `model/parsers/deepseek3.go`.
 */
import type { Finder } from './finder.js';
import type { MarkerRead, OfferedTools, TextCall } from './text-call.js';
import { invokeTagAt } from './xml-calls.js';
import { skipSpace, valueSpan } from './value-span.js';

/** A token of these families: `<｜tool▁…｜>` or `<|tool_…|>`; group 1 its words joined by `_`. */
const TOKEN = /<[|｜]((?:tool|function)[▁_][a-z▁_]*)[|｜]>/y;

/** The token at `i` (its words with `_`), or `undefined`. */
function tokenAt(text: string, i: number): { word: string; end: number } | undefined {
  TOKEN.lastIndex = i;
  const match = TOKEN.exec(text);
  return match ? { word: match[1]!.replace(/▁/g, '_'), end: i + match[0].length } : undefined;
}

/** The next token from `from` before `limit` (its start, word and end), or `undefined`. */
function nextToken(text: string, from: number, limit: number): { start: number; word: string; end: number } | undefined {
  for (let i = from; i < limit; i++) {
    if (text[i] !== '<') continue;
    const token = tokenAt(text, i);
    if (token) return { start: i, ...token };
  }
  return undefined;
}

/** How far after a call's begin token its separator may stand, in characters: 128 (a type, a name of at most 64, a line break). */
const NAME_WINDOW = 128;

/** The calls from the token at `at` to `limit`; `context` reads Step-3's `<steptml:invoke>` bodies. */
export function deepseekAt(text: string, at: number, limit: number, context?: { tools: OfferedTools; finder: Finder }): MarkerRead | undefined {
  const calls: TextCall[] = [];
  let i = at;
  let end = at;
  // R1 distills also write a short `<｜tool▁calls｜>` and go on with the call's body, without its begin token.
  let bodyFollows = false;
  for (;;) {
    i = skipSpace(text, i, limit);
    const token: { word: string; end: number } | undefined = tokenAt(text, i) ?? (bodyFollows ? { word: 'tool_call_begin', end: i } : undefined);
    bodyFollows = false;
    if (!token) break;
    if (token.word === 'tool_calls_begin' || token.word === 'tool_calls_section_begin' || token.word === 'tool_calls') {
      bodyFollows = token.word === 'tool_calls';
      i = token.end;
      continue;
    }
    if (token.word === 'tool_calls_end' || token.word === 'tool_calls_section_end') {
      end = token.end;
      break;
    }
    if (token.word !== 'tool_call_begin') break;
    // The separator follows the name (or the type) at once: a short window.
    const sep = nextToken(text, token.end, Math.min(limit, token.end + NAME_WINDOW));
    if (!sep) {
      if (token.end + NAME_WINDOW < limit) break;
      const name = text.slice(token.end, limit).trim();
      if (name) calls.push({ name: name.replace(/^function\s+/, ''), arguments: '', format: 'deepseek-tokens', cut: true });
      end = limit;
      break;
    }
    // Before the separator: the type `function` (V3, the name then follows it) or the name itself.
    let name = text.slice(token.end, sep.start).trim();
    let argsAt = sep.end;
    const steptml = text.startsWith('<steptml:invoke', skipSpace(text, sep.end, limit));
    if (steptml) argsAt = skipSpace(text, sep.end, limit);
    else if (name === 'function' || name === '') {
      const line = /^\s*([^\n`{]+?)\s*(?:\n|(?=```)|(?=\{))/.exec(text.slice(sep.end, Math.min(limit, sep.end + 300)));
      if (!line) break;
      name = line[1]!;
      argsAt = sep.end + line[0].length;
    }
    // Kimi: `functions.NAME:0`.
    name = name.replace(/^functions\./, '').replace(/:\d+$/, '');
    argsAt = skipSpace(text, argsAt, limit);
    const fence = /^```[\w-]*[ \t]*\r?\n/.exec(text.slice(argsAt, argsAt + 20));
    if (fence) argsAt = skipSpace(text, argsAt + fence[0].length, limit);
    if (context && text.startsWith('<steptml:invoke', argsAt)) {
      // Step-3: `function<｜tool_sep｜><steptml:invoke name="NAME">…</steptml:invoke>`.
      const invoke = invokeTagAt(text, argsAt, limit, { ...context, atEnd: true }, 'steptml:');
      if (!invoke) break;
      calls.push(invoke.call);
      i = skipSpace(text, invoke.end, limit);
      const close = tokenAt(text, i);
      end = close?.word === 'tool_call_end' ? close.end : i;
      if (invoke.call.cut) break;
      i = end;
      continue;
    }
    if (text[argsAt] !== '{') {
      if (argsAt >= limit) calls.push({ name, arguments: '', format: 'deepseek-tokens', cut: true });
      end = limit;
      break;
    }
    const span = valueSpan(text, argsAt, limit);
    const call: TextCall = { name, arguments: text.slice(argsAt, span.end), format: 'deepseek-tokens' };
    if (span.open) call.cut = true;
    calls.push(call);
    i = skipSpace(text, span.end, limit);
    if (text.startsWith('```', i)) i += 3;
    i = skipSpace(text, i, limit);
    const close = tokenAt(text, i);
    end = close?.word === 'tool_call_end' ? close.end : i;
    if (span.open) break;
    i = end;
  }
  return calls.length > 0 ? { calls, end } : undefined;
}
