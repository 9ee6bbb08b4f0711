/**
 * Loose shapes of the OpenAI Chat Completions wire format, as real providers send it.
 *
 * Every field is optional or nullable on purpose: providers omit, null out or extend
 * fields freely (see `test/fixtures/providers/`). Unknown fields are tolerated.
 *
 * Source: https://platform.openai.com/docs/api-reference/chat/streaming
 */

/** Token counts reported by a provider in `usage` (or Groq's `x_groq.usage`). Units: tokens. */
export interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null; [k: string]: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null; [k: string]: unknown } | null;
  [k: string]: unknown;
}

/** One tool-call fragment inside `delta.tool_calls`. `index` and `id` are each sometimes absent. */
export interface ChatToolCallDelta {
  index?: number | null;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
  /** Provider extras to send back unchanged (Gemini 3: `{google: {thought_signature}}`). */
  extra_content?: Record<string, unknown> | null;
}

/** One part of an array-valued `delta.content` (Mistral thinking parts, text parts). */
export interface ChatContentPart {
  type?: string;
  text?: string | null;
  thinking?: string | ChatContentPart[] | null;
  [k: string]: unknown;
}

/** The `delta` of one streamed choice. */
export interface ChatDelta {
  role?: string | null;
  content?: string | ChatContentPart[] | null;
  /** DeepSeek, llama.cpp, vLLM, Together. */
  reasoning_content?: string | null;
  /** Groq, OpenRouter, Ollama. */
  reasoning?: string | null;
  tool_calls?: ChatToolCallDelta[] | null;
  refusal?: string | null;
  [k: string]: unknown;
}

/** One element of `choices` in a `chat.completion.chunk`. */
export interface ChatChoiceChunk {
  index?: number | null;
  delta?: ChatDelta | null;
  finish_reason?: string | null;
  [k: string]: unknown;
}

/** An error object as providers put it in bodies and streams: `{message, type?, code?, param?}`. */
export interface ChatErrorObject {
  message?: string | null;
  type?: string | null;
  code?: string | number | null;
  param?: string | null;
  status_code?: number | null;
  metadata?: Record<string, unknown> | null;
  [k: string]: unknown;
}

/** One `chat.completion.chunk`. */
export interface ChatCompletionChunk {
  id?: string | null;
  object?: string | null;
  model?: string | null;
  choices?: ChatChoiceChunk[] | null;
  usage?: ChatUsage | null;
  x_groq?: { usage?: ChatUsage | null; [k: string]: unknown } | null;
  error?: ChatErrorObject | null;
  [k: string]: unknown;
}

/**
 * A message of the request's `messages` array.
 * - `assistant`: `content` is `null` when the message only carries `tool_calls` (Bedrock and
 *   Mistral reject `""`: vercel/ai#15378, OpenHands#8685); `reasoning_content` is echoed back
 *   to DeepSeek thinking models on tool-call messages (api-docs.deepseek.com/guides/thinking_mode#tool-calls).
 * - `tool`: the result of the call `tool_call_id`; `content` is always a string (DeepSeek
 *   rejects arrays: "invalid type: sequence, expected a string").
 *
 * Source: https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
 */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatRequestContentPart[] }
  | ChatAssistantMessage
  | ChatToolMessage;

/** An assistant message of a request: text, tool calls, or both. See {@link ChatMessage}. */
export interface ChatAssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ChatToolCall[];
  reasoning_content?: string;
}

/** A tool result message of a request. See {@link ChatMessage}. */
export interface ChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/**
 * A tool call as sent back in an assistant message. `arguments` is JSON text (`"{}"` for none);
 * `extra_content` is the provider's object from the stream, unchanged (Gemini 3 needs
 * `extra_content.google.thought_signature` back: ai.google.dev/gemini-api/docs/thought-signatures).
 */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  extra_content?: Record<string, unknown>;
}

/** A content part of a user message in a request. */
export type ChatRequestContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
