/**
 * The request messages that carry one model step's tool calls and their results back to the
 * model: the assistant message with `tool_calls`, and one `tool` message per call. Pure.
 *
 * Provider facts (sources in parentheses):
 * - `content: null`, not `""`, on an assistant message that only carries tool calls: Bedrock's
 *   OpenAI-compatible endpoint answers `messages: text content blocks must be non-empty`
 *   (vercel/ai#15378); Mistral wants content or tool_calls (OpenHands#8685).
 * - DeepSeek thinking models need the step's `reasoning_content` back on the tool-call message,
 *   `""` when there was none: "Missing `reasoning_content` field in the assistant message…"
 *   (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls, continue#10193). Others must
 *   not get it: Mistral rejects the field as `extra_forbidden` (charmbracelet/crush#1590).
 * - Gemini 3 needs `extra_content.google.thought_signature` back unchanged (0xsline/OpenChatCut#6).
 * - A `tool` message's `content` is a string (DeepSeek: "invalid type: sequence, expected a string").
 * - Mistral-family ids are 9 alphanumerics: see `tool-call-ids.ts`.
 */
import type { ProviderProfile } from '../config/provider-profiles.js';
import type { ChatAssistantMessage, ChatToolCall, ChatToolMessage } from '../openai/openai-types.js';
import type { ToolCallResult } from '../openai/chat-stream-accumulator.js';

/** How a provider wants tool-call messages sent back to it; from its profile by {@link toolMessageRules}. */
export interface ToolMessageRules {
  /** Send `reasoning_content` (`""` when none) on assistant tool-call messages (DeepSeek). */
  echoReasoning: boolean;
  /** Tool-call ids must be 9 characters `[a-zA-Z0-9]` (Mistral); see `respellToolCallIds`. */
  shortToolCallIds: boolean;
}

/**
 * The tool-message rules of a provider profile (its `echoReasoning` and `shortToolCallIds`);
 * without a profile (no endpoint), neither.
 */
export function toolMessageRules(profile: Pick<ProviderProfile, 'echoReasoning' | 'shortToolCallIds'> | undefined): ToolMessageRules {
  return { echoReasoning: profile?.echoReasoning === true, shortToolCallIds: profile?.shortToolCallIds === true };
}

/** What one model step produced: its text, reasoning and complete tool calls, in stream order. */
export interface ToolStep {
  text: string;
  reasoning: string;
  toolCalls: readonly ToolCallResult[];
}

/**
 * Tool-call arguments as sent back: `""` or whitespace only (a call without parameters; vLLM
 * drops `{}`: vllm#28806) becomes `"{}"`; anything else is sent as the model wrote it, invalid
 * JSON included, so the model sees what it sent next to the error result the loop gives it.
 */
function normalizeToolArguments(args: string): string {
  return args.trim() === '' ? '{}' : args;
}

/**
 * The assistant message of a step that called tools.
 * - `content`: the step's text, or `null` when it has none and there are tool calls (an answer
 *   without tool calls keeps its text, `""` included: `null` alone is invalid there).
 * - `tool_calls`: in order, `type: "function"`, arguments through {@link normalizeToolArguments},
 *   `extra_content` copied unchanged when the stream had one; omitted when there are no calls.
 * - `reasoning_content`: the step's reasoning (`""` when none), only when `rules.echoReasoning`.
 *
 * Ids are the stream's own; respell them for Mistral when sending (`respellToolCallIds`).
 */
export function assistantToolCallMessage(step: ToolStep, rules: ToolMessageRules): ChatAssistantMessage {
  const calls = step.toolCalls.map(chatToolCall);
  const message: ChatAssistantMessage = { role: 'assistant', content: step.text === '' && calls.length > 0 ? null : step.text };
  if (calls.length > 0) message.tool_calls = calls;
  if (rules.echoReasoning) message.reasoning_content = step.reasoning;
  return message;
}

/** One streamed tool call as a request `ChatToolCall`. */
function chatToolCall(call: ToolCallResult): ChatToolCall {
  const out: ChatToolCall = { id: call.id, type: 'function', function: { name: call.name, arguments: normalizeToolArguments(call.arguments) } };
  if (call.extra) out.extra_content = call.extra;
  return out;
}

/**
 * The `tool` message giving the result of call `toolCallId` back to the model. `text` is the
 * result as the model should read it (already capped by the caller); always a string.
 */
export function toolResultMessage(toolCallId: string, text: string): ChatToolMessage {
  return { role: 'tool', tool_call_id: toolCallId, content: text };
}
