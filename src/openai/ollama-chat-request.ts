/**
 * The body of a streaming request to Ollama's native chat API, `POST /api/chat`, spelled from
 * the same {@link ChatRequest} the Chat Completions wire sends. Pure.
 *
 * Source: https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion and
 * api/types.go (`ChatRequest`, `Message`, `ToolCall`, `Options`):
 * - messages: `{role, content, thinking?, images?: [base64], tool_calls?, tool_name?, tool_call_id?}`;
 *   `content` is a string; a tool call's `function.arguments` is a JSON object, not text; a tool
 *   result names its tool (`tool_name`), and carries the call's id when it had one.
 * - model parameters go in `options` (`num_ctx`, `num_predict`, `temperature`, `top_p`, …);
 *   `keep_alive`, `format`, `think` stay at the top.
 * - `think`: `true`/`false`, or a level `"low"|"medium"|"high"` (GPT-OSS takes only levels:
 *   docs/capabilities/thinking.mdx); a model without the `thinking` capability answers 400
 *   `"… does not support thinking"`, so it gets none.
 */
import type { ChatRequest } from './chat-request.js';
import { isRecord } from '../shared/json-value.js';
import { OWN_BODY_FIELDS } from '../config/extra-body.js';
import type { ChatMessage } from './openai-types.js';

/** How a model takes `think`: not at all, as a boolean, or as a level. `unknown`: its capabilities are not known. */
export type ThinkStyle = 'none' | 'boolean' | 'levels' | 'unknown';

/** What the native body needs besides the request. */
export interface OllamaChatShape {
  /** `options.num_ctx`: the context window asked for, in tokens. @defaultValue not sent (the server's own) */
  numCtx?: number | undefined;
  /** @defaultValue `unknown` */
  think?: ThinkStyle | undefined;
  /** `OPENAI_EXTRA_BODY`, its keys put where Ollama reads them (see {@link placeExtraBody}). */
  extraBody?: Record<string, unknown> | undefined;
}

/** One message of the native API. */
interface OllamaMessage {
  role: string;
  content: string;
  thinking?: string;
  images?: string[];
  tool_calls?: { id?: string; function: { name: string; arguments: Record<string, unknown> } }[];
  tool_name?: string;
  tool_call_id?: string;
}

/**
 * Model parameters of Ollama's `options` (api/types.go `Options` and `Runner`); such a key at the
 * top of `OPENAI_EXTRA_BODY` is moved into `options`, where the native API reads it.
 */
const OPTION_KEYS = new Set([
  'num_ctx',
  'num_predict',
  'num_keep',
  'num_batch',
  'num_gpu',
  'main_gpu',
  'num_thread',
  'use_mmap',
  'seed',
  'temperature',
  'top_k',
  'top_p',
  'min_p',
  'typical_p',
  'repeat_last_n',
  'repeat_penalty',
  'presence_penalty',
  'frequency_penalty',
  'stop',
]);
/** Chat Completions spellings of the output limit: `options.num_predict` here. */
const MAX_TOKENS_KEYS = new Set(['max_tokens', 'max_completion_tokens']);
/** Chat Completions fields with no meaning on this API. */
const DROPPED_KEYS = new Set(['stream_options', 'reasoning_effort', 'reasoning', 'parallel_tool_calls', 'tool_choice']);

/**
 * The `think` value for a reasoning effort: absent for `default`/none chosen or a model that
 * does not think; `none` → `false` (except for level models, which cannot stop thinking);
 * a level → that level for level models, else `true`.
 * @internal a pure step checked per think style, without a server.
 */
export function ollamaThink(effort: string | undefined, style: ThinkStyle): boolean | string | undefined {
  if (!effort || effort === 'default' || style === 'none') return undefined;
  if (style === 'levels') return effort === 'none' ? undefined : effort === 'minimal' ? 'low' : effort;
  return effort !== 'none';
}

/** The base64 payload of a `data:` URL; `undefined` for any other URL (the native API takes no image URLs). */
function dataUrlBase64(url: string): string | undefined {
  const match = /^data:[^,]*;base64,/i.exec(url);
  return match ? url.slice(match[0].length) : undefined;
}

/** Tool-call arguments as the object the native API wants; text that is not a JSON object becomes `{}`. */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * The messages in the native spelling. A `tool` message gets `tool_name` from the assistant
 * call with its id (earlier in the list), and keeps that id as `tool_call_id`.
 * @internal a pure step checked per message shape, without a server.
 */
export function ollamaMessages(messages: readonly ChatMessage[]): OllamaMessage[] {
  const names = new Map<string, string>();
  return messages.map((message): OllamaMessage => {
    if (message.role === 'tool') {
      const out: OllamaMessage = { role: 'tool', content: message.content };
      const name = names.get(message.tool_call_id);
      if (name) out.tool_name = name;
      if (message.tool_call_id) out.tool_call_id = message.tool_call_id;
      return out;
    }
    if (message.role === 'assistant') {
      const out: OllamaMessage = { role: 'assistant', content: message.content ?? '' };
      if (message.reasoning_content) out.thinking = message.reasoning_content;
      if (message.tool_calls && message.tool_calls.length > 0) {
        out.tool_calls = message.tool_calls.map((call) => {
          if (call.id) names.set(call.id, call.function.name);
          const native: NonNullable<OllamaMessage['tool_calls']>[number] = {
            function: { name: call.function.name, arguments: argumentsObject(call.function.arguments) },
          };
          if (call.id) native.id = call.id;
          return native;
        });
      }
      return out;
    }
    if (typeof message.content === 'string') return { role: message.role, content: message.content };
    const texts: string[] = [];
    const images: string[] = [];
    for (const part of message.content) {
      if (part.type === 'text') texts.push(part.text);
      else {
        const base64 = dataUrlBase64(part.image_url.url);
        if (base64 !== undefined) images.push(base64);
        else texts.push(`[image: ${part.image_url.url}]`);
      }
    }
    const out: OllamaMessage = { role: message.role, content: texts.join('\n\n') };
    if (images.length > 0) out.images = images;
    return out;
  });
}

/**
 * `OPENAI_EXTRA_BODY` placed for the native API, into `body` (changed): its `options` merged into
 * ours (its keys win); model-parameter keys at its top moved into `options`; `max_tokens` and
 * `max_completion_tokens` become `options.num_predict`; Chat Completions-only fields dropped; the
 * rest (`keep_alive`, `format`, `think`, …) at the top. `model`, `messages`, `stream`, `tools`
 * stay ours.
 */
function placeExtraBody(body: Record<string, unknown>, extra: Record<string, unknown> | undefined): void {
  if (!extra) return;
  const options = body['options'] as Record<string, unknown>;
  for (const [key, value] of Object.entries(extra)) {
    if (OWN_BODY_FIELDS.includes(key) || DROPPED_KEYS.has(key)) continue;
    if (key === 'options' && isRecord(value)) Object.assign(options, value);
    else if (OPTION_KEYS.has(key)) options[key] = value;
    else if (MAX_TOKENS_KEYS.has(key)) options['num_predict'] = value;
    else body[key] = value;
  }
}

/** The JSON body of a streaming `/api/chat` request. */
export function buildOllamaChatBody(request: ChatRequest, shape: OllamaChatShape = {}): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model, messages: ollamaMessages(request.messages), stream: true };
  if (request.tools && request.tools.length > 0) body['tools'] = request.tools;
  const think = ollamaThink(request.reasoningEffort, shape.think ?? 'unknown');
  if (think !== undefined) body['think'] = think;
  const options: Record<string, unknown> = {};
  if (shape.numCtx !== undefined) options['num_ctx'] = shape.numCtx;
  if (request.maxTokens !== undefined) options['num_predict'] = request.maxTokens;
  if (request.temperature !== undefined) options['temperature'] = request.temperature;
  body['options'] = options;
  placeExtraBody(body, shape.extraBody);
  if (Object.keys(options).length === 0) delete body['options'];
  return body;
}
