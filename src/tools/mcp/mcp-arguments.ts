/**
 * The arguments of an MCP tool call as the model sent them, parsed: any JSON object (the server
 * checks them against its own `inputSchema`). The built-in tools' checks (`arguments.ts`) do not
 * apply: they only know the six built-in names.
 */
import { ECHO_LIMIT } from '../arguments.js';

/** The parsed arguments, or the words telling the model what was wrong. */
export type McpArguments = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/**
 * `raw` as an arguments object: empty or whitespace means `{}`; a JSON string holding an object
 * (models that encode twice) is decoded once more. Never throws: anything else is an error text
 * for the model naming the tool.
 * @param name - the model-facing tool name, for the error text
 * @param raw - the assembled `function.arguments` text
 */
export function parseMcpArguments(name: string, raw: string): McpArguments {
  if (raw.trim() === '') return { ok: true, args: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
    if (typeof value === 'string' && value.trim().startsWith('{')) value = JSON.parse(value);
  } catch (error) {
    return { ok: false, error: `${name}: the arguments are not valid JSON (${(error as Error).message}). Send one JSON object. You sent: ${raw.slice(0, ECHO_LIMIT)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `${name}: the arguments must be a JSON object. You sent: ${raw.slice(0, ECHO_LIMIT)}` };
  }
  return { ok: true, args: value as Record<string, unknown> };
}
