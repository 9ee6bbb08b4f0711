/**
 * Non-streaming answers to a streaming request: some servers (and some gateways) ignore
 * `stream: true` and answer one `chat.completion` JSON object. This turns that object into the
 * SSE items a stream would have produced, so the rest of the pipeline sees no difference.
 *
 * Source: https://platform.openai.com/docs/api-reference/chat/object
 */
import type { ChatCompletionChunk, ChatErrorObject, ChatToolCallDelta } from './openai-types.js';
import type { SseItem } from './sse.js';
import { isRecord } from '../shared/json-value.js';

/**
 * Items equivalent to a whole `chat.completion` body: one chunk whose `delta` carries the
 * message's content, reasoning and tool calls (with indexes), its finish reason and usage.
 * A body with a top-level `error` object becomes an `error` item; an unparseable body a `skip`.
 */
export function completionToItems(text: string): SseItem[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [{ kind: 'skip', reason: 'unparseable JSON body' }];
  }
  if (!isRecord(body)) return [{ kind: 'skip', reason: 'JSON body is not an object' }];
  if (isRecord(body['error'])) return [{ kind: 'error', error: body['error'] as ChatErrorObject }];
  const choices = Array.isArray(body['choices']) ? body['choices'] : [];
  const chunk: ChatCompletionChunk = {
    id: typeof body['id'] === 'string' ? body['id'] : null,
    object: 'chat.completion.chunk',
    model: typeof body['model'] === 'string' ? body['model'] : null,
    choices: choices.filter(isRecord).map((choice, position) => {
      const message = isRecord(choice['message']) ? choice['message'] : isRecord(choice['delta']) ? choice['delta'] : {};
      const toolCalls = Array.isArray(message['tool_calls'])
        ? (message['tool_calls'].filter(isRecord) as ChatToolCallDelta[]).map((call, index) => ({ ...call, index: call.index ?? index }))
        : undefined;
      return {
        index: typeof choice['index'] === 'number' ? choice['index'] : position,
        delta: { ...message, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        finish_reason: typeof choice['finish_reason'] === 'string' ? choice['finish_reason'] : null,
      };
    }),
    usage: isRecord(body['usage']) ? (body['usage'] as ChatCompletionChunk['usage']) : null,
  };
  return [{ kind: 'chunk', chunk }];
}
