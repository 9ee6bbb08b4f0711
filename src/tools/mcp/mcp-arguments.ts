/**
 * The arguments of an MCP tool call as the model sent them: a JSON object, passed to the server
 * as is (the server checks them against its own `inputSchema`). Tolerant of what weak models
 * send: `""` for no arguments, the object JSON-encoded twice.
 *
 * Source: MCP `tools/call` `arguments` is an object
 * (https://modelcontextprotocol.io/specification/2025-06-18/server/tools#calling-tools).
 */
import { decodeArguments, echoArguments } from '../calls/json-arguments.js';
import { cutOffMessage } from '../calls/repair-arguments.js';

/** The parsed arguments, or an error text for the model. */
export type McpArguments = { ok: true; args: Record<string, unknown>; notes?: string[] } | { ok: false; error: string };

/**
 * Parses the raw `function.arguments` text of a call to the MCP tool the model knows as `name`.
 * Empty or whitespace means `{}`; `null` too; almost-JSON is repaired (with `notes` for the model); a call cut
 * off (`cutOff`, or text ending inside a string, array or object) is refused. Never throws.
 */
export function parseMcpArguments(name: string, raw: string, cutOff = false): McpArguments {
  const decoded = decodeArguments(raw, cutOff);
  if (!decoded.ok && decoded.truncated) return { ok: false, error: cutOffMessage(name) };
  if (!decoded.ok) return { ok: false, error: `${name}: the arguments are not valid JSON (${decoded.reason}). You sent: ${echoArguments(raw)}` };
  const value = decoded.value;
  if (value === null) return { ok: true, args: {} };
  if (typeof value !== 'object' || Array.isArray(value))
    return { ok: false, error: `${name}: the arguments must be a JSON object. You sent: ${echoArguments(raw)}` };
  return decoded.notes ? { ok: true, args: value as Record<string, unknown>, notes: decoded.notes } : { ok: true, args: value as Record<string, unknown> };
}
