/**
 * Reading a 400 (or 422) answer that names a request parameter the endpoint does not accept, and
 * choosing the correction for it (`adaptive-params.ts` applies and remembers it). Pure.
 *
 * The body shapes read are real ones, recorded in `test/fixtures/http-400/` (see its README):
 * OpenAI/Azure `{"error":{"message","param","code":"unsupported_parameter"}}`, Azure
 * "Unrecognized request argument supplied: X", vLLM/Mistral pydantic `extra_forbidden` with
 * `loc: ["body","X"]`, Groq "property 'X' is unsupported", LiteLLM `UnsupportedParamsError`,
 * Gemini "Unknown name \"X\"", xAI "does not support parameter xCamel", llama.cpp
 * "Unsupported param: X", Bedrock "unknown field `X`".
 *
 * Separately, answers saying the model or server takes no tools at all (see
 * `tools-unsupported.ts`) drop the tool parameters, so a chat without tools still works.
 */
import type { Correction } from './adaptive-params.js';
import { unsupportedToolParams } from './tools-unsupported.js';
import { gather, mainMessage } from './rejection-body.js';
import { isRecord, parseJsonOrUndefined } from '../shared/json-value.js';

/** A correction and the provider's words that called for it. */
export interface Rejection {
  correction: Correction;
  /** The provider's message, at most 300 characters (for the log). */
  reason: string;
}

/**
 * Top-level parameters that may be renamed or dropped when an answer names them: the optional
 * ones. `model`, `messages`, `stream`, `tools` and `tool_choice` are never touched this way: an
 * answer naming `tools` is usually about what the tools contain, not about tools as such (Mistral's
 * 422 `extra_forbidden` at `loc: ["body","tools"]` with `input: []` rejects an empty list:
 * partITech/php-mistral#76; a schema keyword Gemini rejects names `tools[0]…`). Tools are dropped
 * only on the explicit answers listed in `tools-unsupported.ts`.
 * @internal the properties draw parameter names from this very set.
 */
export const ADJUSTABLE_PARAMS: ReadonlySet<string> = new Set([
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'stream_options',
  'reasoning_effort',
  'reasoning',
  'frequency_penalty',
  'presence_penalty',
  'repetition_penalty',
  'seed',
  'stop',
  'store',
  'user',
  'n',
  'logprobs',
  'top_logprobs',
  'parallel_tool_calls',
  'service_tier',
  'metadata',
  'usage',
  'verbosity',
  'prompt_cache_key',
]);

const NAME = String.raw`[A-Za-z_][\w.]*`;
/**
 * Phrases that name a rejected parameter, capture group 1 being the name (or a list of names).
 * Each is a rejection verb next to a name, so "max_tokens is too large" is not one.
 */
const NAMING_PATTERNS: readonly RegExp[] = [
  // OpenAI / Azure: "Unsupported parameter: 'max_tokens' is not supported with this model."
  new RegExp(String.raw`unsupported parameter:?\s*['"\x60]?(${NAME})`, 'gi'),
  // OpenAI: "Unsupported value: 'temperature' does not support 0.2 with this model."
  new RegExp(String.raw`unsupported value:?\s*['"\x60](${NAME})['"\x60]\s*does not support`, 'gi'),
  // Azure: "Unrecognized request argument supplied: stream_options"
  new RegExp(String.raw`unrecognized request arguments? supplied:?\s*['"\x60]?(${NAME})`, 'gi'),
  // OpenAI / Azure: "Unknown parameter: 'stream_options'."
  new RegExp(String.raw`unknown (?:parameter|argument|field)s?:?\s*['"\x60]?(${NAME})`, 'gi'),
  // "'top_p' is not supported with this model", "stream_options is not supported"
  new RegExp(String.raw`['"\x60](${NAME})['"\x60]\s*(?:is|are)\s*(?:not supported|unsupported|not allowed|not permitted)`, 'gi'),
  new RegExp(String.raw`(?:^|[\s:])(${NAME})\s*(?:is|are)\s*(?:not supported|unsupported|not allowed|not permitted)`, 'gim'),
  // Groq: "property 'store' is unsupported"
  new RegExp(String.raw`propert(?:y|ies)\s*['"\x60](${NAME})['"\x60]\s*(?:is|are)\s*(?:unsupported|not supported)`, 'gi'),
  // xAI: "does not support parameter reasoningEffort", "Argument not supported on this model: frequencyPenalty"
  new RegExp(String.raw`does not support (?:the )?(?:parameter|param|argument|field)\s*['"\x60]?(${NAME})`, 'gi'),
  new RegExp(String.raw`(?:argument|parameter|param)s? not supported(?: on this model| by this model| for this model)?:?\s*['"\x60]?(${NAME})`, 'gi'),
  // llama.cpp: "Unsupported param: tools"
  new RegExp(String.raw`unsupported param:?\s*['"\x60]?(${NAME})`, 'gi'),
  // LiteLLM: "openai does not support parameters: ['reasoning_effort'], for model=…"
  /does not support parameters?:?\s*\[([^\]]*)\]/gi,
  // LiteLLM: "gpt-5 models don't support temperature=0.84"
  new RegExp(String.raw`(?:don't|doesn't|does not|do not) support (${NAME})\s*=`, 'gi'),
  // Gemini: 'Unknown name "temperature": Cannot find field.' (a top-level name: no " at 'path'")
  /unknown name \\?"([A-Za-z_]\w*)\\?":/gi,
  // Bedrock (serde): "unknown field `thinking`, expected one of …"
  /unknown field\s*`([A-Za-z_]\w*)`/gi,
  // Groq: "`reasoning_effort` must be one of `none` or `default`", "'reasoning_effort' : value is not one of the allowed values"
  new RegExp(String.raw`['"\x60](${NAME})['"\x60]\s*:?\s*(?:must be one of|(?:value )?is not one of)`, 'gi'),
];
/**
 * An answer saying the token cap is over what the model can write, e.g. OpenAI's "max_tokens is
 * too large: 50000. This model supports at most 16384 completion tokens", Anthropic's
 * "max_tokens: 64000 > 8192, which is the maximum allowed number of output tokens", DeepSeek's
 * "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]".
 */
const CAP_TOO_LARGE = new RegExp(
  String.raw`max_(?:completion_)?tokens\b[^\n]{0,120}?` +
    '(?:too large|supports at most|maximum allowed|exceeds the maximum|must be less than or equal|must be <=|valid range)',
  'i',
);

/** pydantic `loc` of a top-level body field: `["body","x"]` (JSON) or `('body', 'x')` (Python repr). */
const TOP_LEVEL_LOC = /['"]body['"]\s*,\s*['"]([A-Za-z_]\w*)['"]\s*[\])]/g;
/** A rejected message role: OpenAI "'messages[0].role' does not support 'system'", gateways' "invalid role 'developer'". */
const ROLE_PATTERNS: readonly RegExp[] = [
  /messages\[\d+\]\.role['"\x60]?\s*does not support\s*['"\x60](system|developer)['"\x60]/i,
  /invalid role\s*['"\x60](system|developer)['"\x60]/i,
  /\b(system|developer) is not one of \[/i,
];

const snakeCase = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * Reads an error answer and says how to correct the request, or `undefined` when the answer does
 * not name a parameter of `sent` that may be adjusted (see {@link ADJUSTABLE_PARAMS}) or a
 * rejected system/developer role present in `sent.messages`.
 *
 * - An answer saying tools are not supported (`tools-unsupported.ts`: 400, 404 or 500 as listed
 *   there) drops the tool parameters `sent` has: `tools`, `tool_choice`, `parallel_tool_calls`.
 * - Otherwise only 400 and 422 are read, plus llama.cpp's 500 "Unsupported param: X".
 * - `max_tokens` rejected: renamed to `max_completion_tokens` when the answer mentions that name
 *   and it is not already sent; `max_completion_tokens` rejected: renamed to `max_tokens` (older
 *   servers, Mistral), unless that rename was already undone once (`previous`); otherwise dropped.
 * - Other named parameters: all dropped at once.
 * - No parameter named, but the token cap said to be too large for the model (`CAP_TOO_LARGE`):
 *   the cap is dropped (the agent sets one from the window, which may exceed a model's output limit).
 * - `system` role rejected: → `developer`; `developer` rejected: merged into the first user message.
 *
 * @param status - HTTP status
 * @param bodyText - the response body as text (JSON or not)
 * @param sent - the JSON body that was sent
 * @param previous - corrections already applied to `sent`, oldest first
 */
export function parseRejection(status: number, bodyText: string, sent: Record<string, unknown>, previous: readonly Correction[] = []): Rejection | undefined {
  const toolParams = unsupportedToolParams(status, bodyText, sent);
  if (toolParams) return { correction: { kind: 'drop', params: toolParams }, reason: mainMessage(parseJsonOrUndefined(bodyText), bodyText) };
  const llamaCpp = status === 500 && /unsupported param:/i.test(bodyText);
  if (status !== 400 && status !== 422 && !llamaCpp) return undefined;
  const parsed = parseJsonOrUndefined(bodyText);
  const found = parsed === undefined ? { texts: [bodyText], params: [], locs: [] } : gather(parsed, { texts: [], params: [], locs: [] });
  const haystack = found.texts.join('\n');
  const reason = mainMessage(parsed, bodyText);

  const role = rejectedRole(haystack, found.params, sent);
  if (role) return { correction: { kind: 'system-role', to: role === 'system' ? 'developer' : 'user' }, reason };

  const named = new Set<string>();
  const add = (raw: string) => {
    for (const piece of raw.split(',')) {
      const name = snakeCase(
        piece
          .trim()
          .replace(/^['"`]+|['"`]+$/g, '')
          .split(/[.[]/)[0] ?? '',
      );
      if (ADJUSTABLE_PARAMS.has(name) && name in sent) named.add(name);
    }
  };
  for (const name of [...found.params, ...found.locs]) add(name);
  for (const pattern of [...NAMING_PATTERNS, TOP_LEVEL_LOC]) for (const match of haystack.matchAll(pattern)) add(match[1] ?? '');
  if (named.size === 0) {
    // The answer's cap over the model's most output tokens: sent without a cap, as before the agent sent one.
    // Every cap field the body carries goes at once, so the same answer cannot ask again.
    const caps = (['max_tokens', 'max_completion_tokens'] as const).filter((name) => name in sent);
    // An answer about the context window ("input length and `max_tokens` exceed context limit") is an overflow, not this.
    return caps.length > 0 && CAP_TOO_LARGE.test(haystack) && !/context/i.test(haystack) ? { correction: { kind: 'drop', params: caps }, reason } : undefined;
  }

  const undone = (from: string, to: string) => previous.some((c) => c.kind === 'rename' && c.from === from && c.to === to);
  if (
    named.has('max_tokens') &&
    !('max_completion_tokens' in sent) &&
    /max_completion_tokens/i.test(haystack) &&
    !undone('max_completion_tokens', 'max_tokens')
  ) {
    return { correction: { kind: 'rename', from: 'max_tokens', to: 'max_completion_tokens' }, reason };
  }
  if (named.has('max_completion_tokens') && !('max_tokens' in sent) && !undone('max_tokens', 'max_completion_tokens')) {
    return { correction: { kind: 'rename', from: 'max_completion_tokens', to: 'max_tokens' }, reason };
  }
  return { correction: { kind: 'drop', params: [...named].sort() }, reason };
}

/** The role the answer rejects, when `sent` has a message of that role. */
function rejectedRole(haystack: string, paramNames: string[], sent: Record<string, unknown>): 'system' | 'developer' | undefined {
  const messages = Array.isArray(sent['messages']) ? (sent['messages'] as unknown[]) : [];
  const has = (role: string) => messages.some((m) => isRecord(m) && m['role'] === role);
  for (const pattern of ROLE_PATTERNS) {
    const role = pattern.exec(haystack)?.[1]?.toLowerCase();
    if ((role === 'system' || role === 'developer') && has(role)) return role;
  }
  // `param: "messages[0].role"` with the role named elsewhere in the message.
  if (paramNames.some((name) => /^messages\[\d+\]\.role$/.test(name))) {
    for (const role of ['system', 'developer'] as const) if (has(role) && new RegExp(`['"\`]${role}['"\`]`).test(haystack)) return role;
  }
  return undefined;
}
