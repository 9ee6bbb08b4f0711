/**
 * Lenient where the spec is silent: a client's malformed optional field that the SDK would refuse
 * (-32602, before any handler runs) is taken off the message, and the session goes on without it.
 * Only fields no agent behaviour depends on are listed; required fields (`cwd`, `mcpServers`,
 * `sessionId`, `prompt`) are never touched, so a real mistake is still refused.
 *
 * Source: the unstable ACP schema (`@agentclientprotocol/sdk` 2.x `schema.unstable.json`):
 * `systemPrompt` on `session/new`, `session/load`, `session/resume`, `session/fork` is an object
 * `{mode, content}`, sent only when the agent advertises `sessionCapabilities.systemPrompt` (this
 * agent does not). agentgui (npm `agentgui`) sends it as a string at the root of `session/new`.
 */

import { isRecord as isObject } from '../shared/json-value.js';

type Json = Record<string, unknown>;

/** Per method: the optional params fields and the JSON type each must have. */
const OPTIONAL_FIELDS: Readonly<Record<string, Readonly<Record<string, 'object'>>>> = {
  'session/new': { systemPrompt: 'object' },
  'session/load': { systemPrompt: 'object' },
  'session/resume': { systemPrompt: 'object' },
  'session/fork': { systemPrompt: 'object' },
};

/**
 * `message` without the optional params fields of the wrong type (see {@link OPTIONAL_FIELDS}),
 * and the names of those taken off; the same object when nothing was. Pure.
 */
export function withoutMalformedOptionals(message: Json): { message: Json; dropped: string[] } {
  const fields = typeof message['method'] === 'string' ? OPTIONAL_FIELDS[message['method']] : undefined;
  const params = message['params'];
  if (!fields || !isObject(params)) return { message, dropped: [] };
  const dropped = Object.entries(fields)
    .filter(([name, type]) => name in params && params[name] !== null && params[name] !== undefined && type === 'object' && !isObject(params[name]))
    .map(([name]) => name);
  if (dropped.length === 0) return { message, dropped };
  const kept = Object.fromEntries(Object.entries(params).filter(([name]) => !dropped.includes(name)));
  return { message: { ...message, params: kept }, dropped };
}
