/**
 * The raw `function.arguments` text of a tool call read as JSON, tolerant of what weak models
 * send, and quoted back (bounded) in the error a model is given. Shared by the built-in tools'
 * check (`check-arguments.ts`, its parse step) and MCP tool calls (`mcp/mcp-arguments.ts`). Pure.
 */
import { counted } from '../present/output-cap.js';
import { readArgumentsText } from './repair-arguments.js';

/** How many characters of the model's raw arguments are quoted back in an error: 200. */
export const ECHO_LIMIT = 200;

/**
 * The decoded value (with `notes` for the model on anything changed to read it, e.g. a repair),
 * or the JSON parser's message (`truncated` when the call was cut off: it must not run).
 */
export type DecodedArguments = { ok: true; value: unknown; notes?: string[] } | { ok: false; reason: string; truncated?: boolean };

/**
 * Parses `raw` (see `readArgumentsText` in `repair-arguments.ts`): empty or whitespace means `{}`
 * (a call without parameters); an object encoded twice (`"{\"path\": …}"`, as some models send) is
 * decoded once more; almost-JSON (single quotes, trailing commas, Python literals, fences,
 * comments) is repaired within bounds, with a note; a call cut off (`cutOff`: the answer stopped at
 * its length limit, or text ending inside a string, array or object) is refused. Any other JSON
 * value is returned as is for the caller to check. Never throws.
 */
export function decodeArguments(raw: string, cutOff = false): DecodedArguments {
  const read = readArgumentsText(raw, cutOff);
  if (!read.ok || read.repaired === undefined) return read.ok ? { ok: true, value: read.value } : read;
  return { ok: true, value: read.value, notes: [`the arguments were not valid JSON (${read.repaired}) and were repaired`] };
}

/** `text` cut to `limit` characters, saying how many more there were. */
export function echoArguments(text: string, limit = ECHO_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…(${counted(text.length - limit, 'more character')})`;
}
