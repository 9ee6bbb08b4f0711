/**
 * Tool-call ids as Mistral-family endpoints accept them: exactly 9 characters `[a-zA-Z0-9]`.
 * Mistral answers anything else with `Tool call id was 38f04d9ea185424a8dc6ed9a88da5 but must be
 * a-z, A-Z, 0-9, with a length of 9.` (jackmpcollins/magentic#276, langchain#24668; through
 * OpenRouter `"code":"3280"`: openclaw#57672); local Mistral v3 chat templates enforce the same
 * rule (ml-explore/mlx-lm#1399). A conversation may hold ids from other providers (a session
 * that switched models) or from our own fallbacks, so ids are mapped when the request is spelled,
 * not when they are stored. Pure and deterministic: the same id maps to the same short id in
 * every request, which keeps an assistant `tool_calls[].id` and its `tool` message's
 * `tool_call_id` matched without any table.
 */
import { createHash } from 'node:crypto';
import type { ChatMessage } from '../openai/openai-types.js';
import type { ToolMessageRules } from './tool-messages.js';

/**
 * A valid Mistral tool-call id: 9 characters `[a-zA-Z0-9]`.
 * @internal the tests check ids against the very pattern Mistral's rule is written as.
 */
export const MISTRAL_TOOL_CALL_ID = /^[a-zA-Z0-9]{9}$/;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/**
 * Ids already respelled. Every request of a Mistral session respells the whole history, so each
 * id would be hashed again on every step (~3 µs each); a lookup is ~50 ns. Emptied when full.
 * Per process on purpose: a pure memo (the same id always gives the same spelling), so nothing
 * it holds changes what any caller sees.
 */
const cache = new Map<string, string>();
const CACHE_LIMIT = 10_000;

/**
 * The Mistral spelling of a tool-call id. An id that is already valid (Mistral's own) is kept;
 * any other is replaced by the first 53 bits of its SHA-256 (a safe integer, so no BigInt),
 * written as 9 base62 digits (62^9 ≈ 2^53.6 holds every 53-bit value, so distinct hashes give
 * distinct ids). Two different ids of one conversation get the same short id with probability
 * about n² / 2^54 for n ids: below 1e-10 for a thousand tool calls. An empty id maps like any
 * other string, so callers give each call its own id first.
 * @param id - the id as stored (the provider's, or ours)
 * @returns 9 characters of `[0-9A-Za-z]`
 * @internal a pure step (fast-check properties) of the respelling.
 */
export function mistralToolCallId(id: string): string {
  if (MISTRAL_TOOL_CALL_ID.test(id)) return id;
  const known = cache.get(id);
  if (known !== undefined) return known;
  const digest = createHash('sha256').update(id, 'utf8').digest();
  // 21 + 32 bits: exact in a double.
  let value = (digest.readUInt32BE(0) & 0x1fffff) * 0x1_0000_0000 + digest.readUInt32BE(4);
  let out = '';
  for (let i = 0; i < 9; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(id, out);
  return out;
}

/**
 * `messages` with every tool-call id respelled for the endpoint: both `assistant.tool_calls[].id`
 * and `tool.tool_call_id` through {@link mistralToolCallId} when `rules.shortToolCallIds`.
 * Otherwise (and when no message carries an id) the same array is returned, untouched. The input
 * is never modified; changed messages are copies.
 */
export function respellToolCallIds(messages: ChatMessage[], rules: ToolMessageRules): ChatMessage[] {
  if (!rules.shortToolCallIds) return messages;
  let changed = false;
  const out = messages.map((message): ChatMessage => {
    if (message.role === 'tool') {
      const id = mistralToolCallId(message.tool_call_id);
      if (id === message.tool_call_id) return message;
      changed = true;
      return { ...message, tool_call_id: id };
    }
    if (message.role !== 'assistant' || !message.tool_calls) return message;
    const ids = message.tool_calls.map((call) => mistralToolCallId(call.id));
    if (ids.every((id, i) => id === message.tool_calls?.[i]?.id)) return message;
    changed = true;
    return { ...message, tool_calls: message.tool_calls.map((call, i) => ({ ...call, id: ids[i] ?? call.id })) };
  });
  return changed ? out : messages;
}

/**
 * Ids for one step's calls that are unique in the session: a call keeps the provider's id when
 * it is non-empty, not in `taken` and not used by an earlier call of the step; otherwise it gets
 * `call_<n>` (the smallest `n` ≥ 1 not taken, `[a-zA-Z0-9_]` so every provider accepts it).
 * Needed because providers send no id (some local servers), or reuse ids: Kimi through Groq
 * numbers calls per answer (`functions.add:0` in every answer), DeepInfra sends `"0"`; ACP tool
 * calls and `tool` messages need one id per call. Adds the ids it returns to `taken`.
 * @param ids - the step's ids in call order, as streamed (`''` when none)
 * @param taken - ids already used in the session; updated
 * @returns the ids to use, in the same order
 */
export function uniqueToolCallIds(ids: readonly string[], taken: Set<string>): string[] {
  // Keep the step's own fresh ids first, so a generated id never takes one of them.
  const kept = ids.map((id) => (id !== '' && !taken.has(id) ? (taken.add(id), true) : false));
  let next = 1;
  return ids.map((id, i) => {
    if (kept[i]) return id;
    while (taken.has(`call_${next}`)) next++;
    const chosen = `call_${next}`;
    taken.add(chosen);
    return chosen;
  });
}
