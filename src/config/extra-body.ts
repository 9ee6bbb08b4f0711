/**
 * Extra fields for every chat request (`OPENAI_EXTRA_BODY`, and `extraBody` of a config-file
 * provider): a JSON object merged into the request body, for what a server takes beyond the
 * OpenAI fields. Examples from the servers' docs:
 * - Ollama `{"options": {"num_ctx": 32768}}` (https://github.com/ollama/ollama/blob/main/docs/api.md,
 *   model parameters; its OpenAI endpoint passes `options` through in recent versions);
 * - vLLM `{"chat_template_kwargs": {"enable_thinking": false}, "top_k": 20}`
 *   (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html, extra parameters);
 * - any server: `{"seed": 42}`.
 *
 * Merged into each request by {@link mergeExtraBody}. Precedence, documented in docs/providers.md: the
 * agent's own `model`, `messages`, `stream` and `tools` always win; for every other field the
 * extra value wins over the agent's (so `{"temperature": 0.2}` or `{"stream_options": {...}}`
 * replace what the agent would send); nested objects are merged key by key, extra keys winning
 * (`{"options": {"num_ctx": 8192}}` adds to an `options` object the body already has instead of
 * replacing it).
 */
import { invalid, type InvalidValue } from './config-values.js';
import { isRecord } from '../shared/json-value.js';

/** The accepted form, for {@link ConfigProblem.accepted}. */
export const EXTRA_BODY_ACCEPTED = 'a JSON object of request fields, e.g. {"options":{"num_ctx":32768}} or {"top_k":20,"seed":42}';

/** Request fields the agent always sets itself; extra values for them are ignored (see {@link mergeExtraBody}). */
export const OWN_BODY_FIELDS: readonly string[] = ['model', 'messages', 'stream', 'tools'];

/**
 * Parses `OPENAI_EXTRA_BODY`: the object, or a {@link InvalidValue} saying why it is not one (its text
 * is never echoed: it may hold a secret such as an upstream key). `{}` counts as unset.
 */
export function parseExtraBody(raw: string): Record<string, unknown> | undefined | InvalidValue {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return invalid('is not valid JSON');
  }
  if (!isRecord(value)) return invalid(`is JSON ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}, not an object`);
  return Object.keys(value).length > 0 ? value : undefined;
}

/** {@link parseExtraBody} for a config file's already-decoded `extraBody`. */
export function checkExtraBody(value: unknown): Record<string, unknown> | undefined | InvalidValue {
  if (!isRecord(value)) return invalid(`is ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}, not an object`);
  return Object.keys(value).length > 0 ? value : undefined;
}

/** Deep merge of plain objects, `extra` winning; arrays and other values are replaced, not merged. */
function mergeObjects(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = out[key];
    out[key] = isRecord(current) && isRecord(value) ? mergeObjects(current, value) : value;
  }
  return out;
}

/**
 * The body with `extra` merged in (see the module comment for precedence). Pure: neither input is
 * modified. `undefined` or `{}` returns `body` itself.
 */
export function mergeExtraBody(body: Record<string, unknown>, extra: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!extra || Object.keys(extra).length === 0) return body;
  const allowed = Object.fromEntries(Object.entries(extra).filter(([key]) => !OWN_BODY_FIELDS.includes(key)));
  const merged = mergeObjects(body, allowed);
  // Our own fields keep their value, and their place in the key order.
  for (const key of OWN_BODY_FIELDS) if (key in body) merged[key] = body[key];
  return merged;
}
