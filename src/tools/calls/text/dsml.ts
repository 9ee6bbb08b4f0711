/**
 * DeepSeek's DSML calls written as text (V3.2 and V4, a server without the `deepseek_v32` /
 * `deepseek_v4` parser, or a model that writes them after `</think>`):
 * ```
 * <｜DSML｜tool_calls>                      (V3.2: <｜DSML｜function_calls>; may be left out)
 * <｜DSML｜invoke name="get_weather">
 * <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
 * <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
 * </｜DSML｜invoke>                          (or a JSON object as the invoke's body)
 * </｜DSML｜tool_calls>
 * ```
 * `string="true"` is the text as written; `string="false"` a JSON value (one that is no JSON
 * makes the call one to refuse, never a guess). The bar is the full-width `｜` of the tokenizer
 * or the ASCII `|` some servers print. Pure.
 *
 * Sources: vLLM `deepseekv32_tool_parser.py` (113121d), SGLang `deepseekv4_detector.py`
 * (00a8f59: the V4 block name and the JSON body), vLLM PR #55954 (the wrapper left out).
 */
import { repeatedProblem } from '../duplicate-keys.js';
import type { Finder } from './finder.js';
import type { MarkerRead, TextCall } from './text-call.js';
import { skipSpace, valueSpan } from './value-span.js';

/** A DSML tag at the start of a window: group 1 `/` for a closing tag, group 2 the tag's word, group 3 its attributes. */
const TAG = /^<(\/?)[|｜]DSML[|｜](\w+)([^>\n]*)>/;

/** The next closing tag `</…DSML…word>` in either spelling from `from` before `limit`, or -1. */
function closeOf(finder: Finder, word: string, from: number, limit: number): { at: number; end: number } {
  let best = -1;
  let width = 0;
  for (const bar of ['｜', '|']) {
    const tag = `</${bar}DSML${bar}${word}>`;
    const at = finder.indexOf(tag, from);
    if (at >= 0 && at < limit && (best < 0 || at < best)) [best, width] = [at, tag.length];
  }
  return { at: best, end: best + width };
}

/** The two attributes a DSML tag carries: its `name`, and `string="false"` on a parameter whose value is JSON. */
const ATTRIBUTES = { name: /\bname\s*=\s*"([^"]*)"/, string: /\bstring\s*=\s*"([^"]*)"/ } as const;

/** An attribute's value in a tag's attribute text, or `undefined`. */
function attribute(attributes: string, name: keyof typeof ATTRIBUTES): string | undefined {
  return ATTRIBUTES[name].exec(attributes)?.[1];
}

/** The parameters of an invoke body from `start` to `limit`; `problem` when a value cannot be read as written. */
function parameters(text: string, start: number, limit: number, finder: Finder): { args: Record<string, unknown>; cut?: true; problem?: string } | undefined {
  const args: Record<string, unknown> = {};
  let problem: string | undefined;
  let i = skipSpace(text, start, limit);
  while (i < limit) {
    const tag = TAG.exec(text.slice(i, Math.min(limit, i + 300)));
    if (!tag) return text.slice(i, limit).startsWith('<') && !text.slice(i, limit).includes('>') ? { args, cut: true } : undefined;
    if (tag[1] || tag[2] !== 'parameter') return undefined;
    const key = attribute(tag[3]!, 'name');
    if (key === undefined) return undefined;
    const from = i + tag[0].length;
    const close = closeOf(finder, 'parameter', from, limit);
    if (close.at < 0) return { args, cut: true };
    const raw = text.slice(from, close.at);
    let value: unknown = raw;
    if (attribute(tag[3]!, 'string') === 'false') {
      try {
        value = JSON.parse(raw.trim()) as unknown;
      } catch {
        problem ??= `the value of "${key}" is marked string="false" but is no JSON value: ${raw.trim().slice(0, 80)}`;
      }
    }
    problem ??= repeatedProblem(args, key, value);
    Object.defineProperty(args, key, { value, enumerable: true, writable: true, configurable: true });
    i = skipSpace(text, close.end, limit);
  }
  return problem ? { args, problem } : { args };
}

/** The DSML calls from the marker at `at` up to `limit`. */
export function dsmlAt(text: string, at: number, limit: number, finder: Finder): MarkerRead | undefined {
  const calls: TextCall[] = [];
  let i = at;
  let end = at;
  for (;;) {
    i = skipSpace(text, i, limit);
    const tag = TAG.exec(text.slice(i, Math.min(limit, i + 300)));
    if (!tag) break;
    const word = tag[2]!;
    if (word === 'tool_calls' || word === 'function_calls') {
      i = end = i + tag[0].length;
      if (tag[1]) break;
      continue;
    }
    if (word !== 'invoke' || tag[1]) break;
    const name = attribute(tag[3]!, 'name')?.trim();
    if (!name) break;
    const bodyStart = i + tag[0].length;
    const close = closeOf(finder, 'invoke', bodyStart, limit);
    const bodyEnd = close.at < 0 ? limit : close.at;
    const first = skipSpace(text, bodyStart, bodyEnd);
    let call: TextCall;
    if (text[first] === '{') {
      const span = valueSpan(text, first, bodyEnd);
      call = { name, arguments: text.slice(first, span.end), format: 'dsml' };
      if (span.open) call.cut = true;
    } else {
      const read = parameters(text, bodyStart, bodyEnd, finder);
      if (!read) break;
      call = { name, arguments: JSON.stringify(read.args), format: 'dsml' };
      // A missing `</invoke>` is no cut when more follows (every parameter closed); where the answer ends, more parameters may have followed.
      if (read.cut || (close.at < 0 && (limit === text.length || Object.keys(read.args).length === 0))) call.cut = true;
      if (read.problem) call.problem = read.problem;
    }
    calls.push(call);
    end = close.at < 0 ? limit : close.end;
    if (call.cut) break;
    i = end;
  }
  return calls.length > 0 ? { calls, end } : undefined;
}
