/**
 * Tool-call arguments as weak models really write them, read into a JSON object: strict
 * `JSON.parse` first, then the `jsonrepair` library for what small models get wrong, within
 * bounds checked before any repair. A call that was cut off is never read as a call. Pure.
 *
 * Real outputs this answers (each a test case): single quotes (anomalyco/opencode#1264 with
 * Qwen3 Coder; QwenLM/qwen-code#288; cubist38/mlx-openai-server#124 with MiniMax), trailing commas
 * (huggingface/chat-ui#1229), a stray closing brace (yigit353/langchain-qwq#30), a backslash-n
 * written between tokens (OpenHands/software-agent-sdk#2488 with Qwen3.5), Python `True`/`None`,
 * code fences, comments and raw line breaks inside strings (which `jsonrepair` documents it fixes:
 * https://github.com/josdejong/jsonrepair#readme).
 */
import { jsonrepair } from 'jsonrepair';

/**
 * Longest arguments text that is repaired, in characters: 1,000,000. Longer text is only parsed
 * strictly (a whole-file `write_file` of that size that is not valid JSON is refused, not guessed at).
 */
export const MAX_REPAIR_CHARS = 1_000_000;

/** Deepest nesting of arrays and objects accepted in arguments: 64 (tool parameters are shallow). */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * The result of {@link readArgumentsText}: the value, and `repaired` (the strict parser's
 * complaint) when it took a repair; or why it could not be read, `truncated` when the call was cut off.
 */
export type ReadArguments = { ok: true; value: unknown; repaired?: string } | { ok: false; reason: string; truncated?: boolean };

/** What a scan of the text found: nesting too deep, where it ends (inside a string or a bracket), stray escapes. */
interface Scan {
  tooDeep: boolean;
  openAtEnd: boolean;
  cleaned: string;
}

/**
 * Reads the raw `function.arguments` text. Empty or whitespace is `{}`; an object encoded twice
 * (`"{\"path\": …}"`) is decoded once more. Other JSON values (arrays, strings, numbers) are
 * returned as they are for the caller to refuse: a repair never turns them into an object.
 * @param cutOff - true when the model's answer stopped at its token limit (`finish_reason`
 *   `length`) while writing this call: then it is never read, whatever it parses to.
 * @returns never throws; the bounds ({@link MAX_ARGUMENT_DEPTH}, {@link MAX_REPAIR_CHARS}) are
 *   checked before any repair.
 */
export function readArgumentsText(raw: string, cutOff = false): ReadArguments {
  if (cutOff) return { ok: false, truncated: true, reason: 'the answer reached its token limit while this call was being written' };
  if (raw.trim() === '') return { ok: true, value: {} };
  const scan = scanArguments(raw);
  if (scan.tooDeep) return { ok: false, reason: `the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep` };
  let strictError: string;
  try {
    return { ok: true, value: decodeTwice(JSON.parse(raw)) };
  } catch (error) {
    strictError = (error as Error).message;
  }
  if (scan.openAtEnd) return { ok: false, truncated: true, reason: 'the arguments end inside a string, array or object' };
  if (raw.length > MAX_REPAIR_CHARS) return { ok: false, reason: strictError };
  try {
    return { ok: true, value: decodeTwice(JSON.parse(jsonrepair(scan.cleaned))), repaired: strictError };
  } catch {
    return { ok: false, reason: strictError };
  }
}

/** A string holding an object's JSON, as some models send, decoded once more; anything else as is. */
function decodeTwice(value: unknown): unknown {
  if (typeof value !== 'string' || !value.trim().startsWith('{')) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * One pass over the text outside and inside strings (double- or single-quoted): the deepest
 * nesting, whether the text ends inside a string or an open bracket (a cut-off call: a fenced
 * block's closing fence and trailing prose are not counted as open), and the text with a
 * backslash-n, -r or -t written between tokens turned into a space.
 */
export function scanArguments(raw: string): Scan {
  let depth = 0;
  let deepest = 0;
  let quote = '';
  let cleaned = '';
  let copiedTo = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || (c === "'" && /[\s{[:,]/.test(raw[i - 1] ?? ' '))) quote = c;
    else if (c === '{' || c === '[') deepest = Math.max(deepest, ++depth);
    else if (c === '}' || c === ']') depth = Math.max(0, depth - 1);
    else if (c === '\\' && 'nrt'.includes(raw[i + 1] ?? '')) {
      cleaned += `${raw.slice(copiedTo, i)} `;
      copiedTo = i + 2;
      i++;
    }
  }
  return { tooDeep: deepest > MAX_ARGUMENT_DEPTH, openAtEnd: quote !== '' || depth > 0, cleaned: cleaned + raw.slice(copiedTo) };
}

/**
 * What the model is told about a cut-off call: it was not run, and how to write it shorter.
 * @param tool - the tool it called; `shorter` - the tool's own advice (its module's), default "Send shorter arguments.".
 */
export function cutOffMessage(tool: string, shorter = 'Send shorter arguments.'): string {
  return `${tool}: this call was cut off before its arguments were complete (the answer reached its length limit), so it was not run. ${shorter}`;
}
