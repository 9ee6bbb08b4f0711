/**
 * The raw `function.arguments` text of a tool call read as JSON, tolerant of what weak models
 * send, and quoted back (bounded) in the error a model is given. Shared by the built-in tools'
 * check (`check-arguments.ts`, its parse step) and MCP tool calls (`mcp/mcp-arguments.ts`). Pure.
 */

/** How many characters of the model's raw arguments are quoted back in an error: 200. */
export const ECHO_LIMIT = 200;

/**
 * The decoded value (with `notes` for the model on anything changed to read it, e.g. a repair),
 * or the JSON parser's message.
 */
export type DecodedArguments = { ok: true; value: unknown; notes?: string[] } | { ok: false; reason: string };

/**
 * Parses `raw`: empty or whitespace means `{}` (a call without parameters); an object encoded
 * twice (`"{\"path\": …}"`, as some models send) is decoded once more. Any other JSON value is
 * returned as is for the caller to check. Never throws.
 */
export function decodeArguments(raw: string): DecodedArguments {
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(raw);
    return { ok: true, value: typeof value === 'string' && value.trim().startsWith('{') ? JSON.parse(value) : value };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** `text` cut to `limit` characters, saying how many more there were. */
export function echoArguments(text: string, limit = ECHO_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…(${text.length - limit} more characters)`;
}
