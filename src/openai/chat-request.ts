/**
 * The body and headers of a streaming Chat Completions request, spelled for one endpoint and
 * model. Pure.
 *
 * Source: https://platform.openai.com/docs/api-reference/chat/create (`stream`, `stream_options`,
 * `max_completion_tokens`, `reasoning_effort`).
 */
import { maxTokensParam, type MaxTokensParam } from '../config/providers.js';
import type { ProviderProfile, ReasoningSpelling } from '../config/provider-profiles.js';
import type { ChatMessage } from './openai-types.js';
import { mergeExtraBody } from '../config/extra-body.js';

/** One chat request, independent of the endpoint. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  /**
   * Functions the model may call (`tools`); omitted from the body when absent or empty. No
   * `parallel_tool_calls` is sent (Azure and Gemini reject it: their OpenAI-compatible endpoints' 400s).
   */
  tools?: ReadonlyArray<{ type: 'function'; function: { name: string; description?: string; parameters: object } }> | undefined;
  /**
   * `tool_choice: "none"`: the tools are there (the prompt keeps its prefix) but the answer is
   * text (a summary request). Sent only with `tools`; absent: the provider's default (`auto`).
   */
  toolChoice?: 'none' | undefined;
  /**
   * The server slot this request should use (llama.cpp `id_slot`, tools/server/README.md
   * `POST /completion` options; the OpenAI-compatible route passes it through). Absent: the
   * server chooses. Set by the client's slot router (`slot-routing.ts`), not by callers.
   */
  idSlot?: number | undefined;
  /**
   * Whose request this is, for a server's slots (`ChatClientOptions.slots`): a session id. A
   * background request of the session (a summary) carries its session's key. Never sent.
   */
  slotKey?: string | undefined;
  /** Output token limit, sent as `max_tokens` or `max_completion_tokens` as the profile says. */
  maxTokens?: number | undefined;
  /** Sampling temperature, 0 to 2. */
  temperature?: number | undefined;
  /**
   * Reasoning effort (`low`, `medium`, `high`, or another level the profile offers); sent with the
   * profile's spelling (`reasoning_effort`, or `reasoning: {effort}`). `default` or absent: not sent.
   */
  reasoningEffort?: string | undefined;
}

/** How a request body is spelled for one endpoint and model. */
export interface RequestShape {
  /** Name of the token limit. @defaultValue `max_tokens` */
  maxTokensParam?: MaxTokensParam;
  /** How reasoning effort is sent. @defaultValue `reasoning_effort` */
  reasoningSpelling?: ReasoningSpelling;
  /** Send `stream_options: {include_usage: true}` (usage on the last chunk). @defaultValue true */
  streamOptions?: boolean;
  /** Configured extra fields, merged in last (`model`, `messages`, `stream`, `tools` stay ours). @defaultValue none */
  extraBody?: Record<string, unknown> | undefined;
}

/** The JSON body of a streaming request, before any learned correction. */
export function buildChatRequestBody(request: ChatRequest, shape: RequestShape = {}): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model, messages: request.messages, stream: true };
  if (request.tools && request.tools.length > 0) {
    body['tools'] = request.tools;
    if (request.toolChoice) body['tool_choice'] = request.toolChoice;
  }
  if (shape.streamOptions ?? true) body['stream_options'] = { include_usage: true };
  if (request.maxTokens !== undefined) body[shape.maxTokensParam ?? 'max_tokens'] = request.maxTokens;
  if (request.temperature !== undefined) body['temperature'] = request.temperature;
  if (request.idSlot !== undefined) body['id_slot'] = request.idSlot;
  const effort = request.reasoningEffort;
  const spelling = shape.reasoningSpelling === undefined ? 'reasoning_effort' : shape.reasoningSpelling;
  if (effort && effort !== 'default') {
    if (spelling === 'reasoning_effort') body['reasoning_effort'] = effort;
    else if (spelling === 'reasoning.effort') body['reasoning'] = { effort };
  }
  return mergeExtraBody(body, shape.extraBody);
}

/** The {@link RequestShape} a profile gives `model`. */
export function requestShape(profile: ProviderProfile, model: string): RequestShape {
  return { maxTokensParam: maxTokensParam(profile, model), reasoningSpelling: profile.reasoningEffort.spelling };
}

/** What the request headers are made of (the fields of the same names in `ChatClientOptions`). */
export interface HeaderInput {
  /** Sent as `Authorization: Bearer …` when non-empty. */
  apiKey?: string | undefined;
  /** The user's headers; they win over ours. */
  headers?: Record<string, string> | undefined;
  /** `User-Agent` value. */
  userAgent?: string | undefined;
}

/** Request headers: ours, then the user's (which win). No `Authorization` when there is no key. */
export function buildChatRequestHeaders(options: HeaderInput): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream, application/json',
  };
  if (options.userAgent) headers['user-agent'] = options.userAgent;
  if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`;
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  return headers;
}
