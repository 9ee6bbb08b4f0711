/**
 * Tool-call arguments as weak models really write them, read into a value: strict `JSON.parse`
 * first, then the meaning-preserving reader of `tolerant-json.ts`, within bounds checked before
 * any reading. A call that was cut off is never read as a call. Pure.
 *
 * Real outputs this answers (each a test case): single quotes (anomalyco/opencode#1264 with
 * Qwen3 Coder; QwenLM/qwen-code#288; cubist38/mlx-openai-server#124 with MiniMax), trailing commas
 * (huggingface/chat-ui#1229), a stray closing brace (yigit353/langchain-qwq#30), a backslash-n
 * written between tokens (OpenHands/software-agent-sdk#2488 with Qwen3.5), Python `True`/`None`,
 * code fences, comments, raw line breaks inside strings, and Windows paths with single backslashes.
 */
import { brokenRepeat, differingDuplicate } from './duplicate-keys.js';
import { readTolerantJson } from './tolerant-json.js';

/**
 * Longest arguments text that is repaired, in characters: 1,000,000. Longer text is only parsed
 * strictly (a whole-file `write_file` of that size that is not valid JSON is refused, not guessed at).
 */
const MAX_REPAIR_CHARS = 1_000_000;

/**
 * Deepest nesting of arrays and objects accepted in arguments: 64 (tool parameters are shallow);
 * also the bound of the readers of calls written as text (`calls/text/`).
 */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * The result of {@link readArgumentsText}: the value, with `repaired` (what was repaired, in short
 * phrases) when it took a repair and `closedAtEnd` when that added a closing bracket missing at the
 * very end (accepted only for a call envelope: see `call-envelope.ts`); or why it could not be
 * read, `truncated` when the call was cut off.
 */
export type ReadArguments = { ok: true; value: unknown; repaired?: string[]; closedAtEnd?: true } | { ok: false; reason: string; truncated?: true };

/**
 * Reads the raw `function.arguments` text. Empty or whitespace is `{}`; an object encoded twice
 * (`"{\"path\": …}"`) is decoded once more. Other JSON values (arrays, strings, numbers) are
 * returned as they are for the caller to refuse: a repair never turns them into an object.
 * @param cutOff - true when the model's answer stopped at its token limit (`finish_reason`
 *   `length`) while writing this call: then it is never read, whatever it parses to.
 * @returns never throws; the bounds ({@link MAX_ARGUMENT_DEPTH}, 1,000,000 characters for a repair)
 *   are checked before any reading.
 */
export function readArgumentsText(raw: string, cutOff = false): ReadArguments {
  if (cutOff) return { ok: false, truncated: true, reason: 'the answer reached its token limit while this call was being written' };
  if (raw.trim() === '') return { ok: true, value: {} };
  if (deeperThan(raw, MAX_ARGUMENT_DEPTH)) return { ok: false, reason: `the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep` };
  let strictError: string;
  try {
    const value = decodeTwice(JSON.parse(raw));
    return twice(raw) ?? { ok: true, value };
  } catch (error) {
    strictError = (error as Error).message;
  }
  if (raw.length > MAX_REPAIR_CHARS) return { ok: false, reason: strictError };
  const read = readTolerantJson(raw);
  if (!read.ok) {
    // A key written a second time, the same value but broken: the first, complete pair says it all.
    const repeat = brokenRepeat(raw);
    return repeat
      ? { ok: true, value: JSON.parse(repeat.json), repaired: [`"${repeat.key}" was written twice with the same value, the second time broken`] }
      : read;
  }
  const value = decodeTwice(JSON.parse(read.json));
  const refused = twice(read.json);
  if (refused) return refused;
  return read.closedAtEnd ? { ok: true, value, repaired: read.repairs, closedAtEnd: true } : { ok: true, value, repaired: read.repairs };
}

/** A refusal when the JSON text `json` writes a key twice with different values (which one is meant is a guess). */
function twice(json: string): ReadArguments | undefined {
  const found = json.indexOf('"', json.indexOf('"') + 1) < 0 ? undefined : differingDuplicate(json);
  return found && { ok: false, reason: `"${found.key}" is written twice, as ${found.first} and as ${found.second}; write it once, with the value meant` };
}

/** A string holding an object's JSON, as some models send, decoded once more (within the depth bound); anything else as is. */
function decodeTwice(value: unknown): unknown {
  if (typeof value !== 'string' || !value.trim().startsWith('{') || deeperThan(value, MAX_ARGUMENT_DEPTH)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * Whether arrays and objects nest deeper than `limit` outside strings (double- or single-quoted).
 * One pass. Checked before JSON text found inside arguments (a value sent as text) is parsed too.
 */
export function deeperThan(raw: string, limit: number): boolean {
  let depth = 0;
  let quote = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || (c === "'" && /[\s{[:,]/.test(raw[i - 1] ?? ' '))) quote = c;
    else if (c === '{' || c === '[') {
      if (++depth > limit) return true;
    } else if (c === '}' || c === ']') depth = Math.max(0, depth - 1);
  }
  return false;
}

/**
 * What the model is told about a cut-off call: it was not run, and how to write it shorter.
 * @param tool - the tool it called; `shorter` - the tool's own advice (its module's), default "Send shorter arguments.".
 * @param length - the answer stopped at its length limit (`finish_reason: length`); otherwise it
 *   simply stopped inside the call, and is said so. @defaultValue true
 */
export function cutOffMessage(tool: string, shorter = 'Send shorter arguments.', length = true): string {
  return length
    ? `${tool}: this call was cut off before its arguments were complete (the answer reached its length limit), so it was not run. ${shorter}`
    : `${tool}: this call was cut off before its arguments were complete (the answer stopped inside the call), so it was not run. ${shorter}`;
}
