/**
 * Merging the configured extra fields (`OPENAI_EXTRA_BODY`, a provider's `extraBody`) into a chat
 * request body. Precedence, documented in the README: the agent's own `model`, `messages`,
 * `stream` and `tools` always win; for every other field the extra value wins over the agent's
 * (so `{"temperature": 0.2}` or `{"stream_options": {...}}` replace what the agent would send);
 * nested objects are merged key by key, extra keys winning (`{"options": {"num_ctx": 8192}}` adds
 * to an `options` object the body already has instead of replacing it).
 */
import { OWN_BODY_FIELDS, isJsonObject } from '../config/extra-body.js';

/** Deep merge of plain objects, `extra` winning; arrays and other values are replaced, not merged. */
function mergeObjects(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = out[key];
    out[key] = isJsonObject(current) && isJsonObject(value) ? mergeObjects(current, value) : value;
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
