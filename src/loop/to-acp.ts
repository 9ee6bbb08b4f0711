/**
 * Pure mapping from the turn accumulator's events to ACP `session/update` payloads and
 * prompt-response fields.
 *
 * Sources: ACP prompt turn https://agentclientprotocol.com/protocol/v1/prompt-turn ;
 * OpenAI `finish_reason` https://platform.openai.com/docs/api-reference/chat/object .
 */
import type { SessionUpdate, StopReason, Usage } from '@agentclientprotocol/sdk/unstable';
import type { ChatUsage } from '../openai/openai-types.js';
import type { TurnEvent } from '../openai/turn-accumulator.js';

/**
 * `finish_reason` → ACP `stopReason`: `stop` → `end_turn`, `length` → `max_tokens`,
 * `content_filter` → `refusal`; anything else (including `tool_calls`, a provider's own reason
 * or none at all) ends the turn normally.
 */
export function mapFinishReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'length':
    case 'max_tokens':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/**
 * The `session/update` payloads for a batch of events, in order. Consecutive text events merge
 * into one `agent_message_chunk` and consecutive reasoning events into one `agent_thought_chunk`
 * (they were buffered together already, so merging delays nothing). Usage, finish, tool-call
 * and error events produce no update here.
 */
export function eventsToUpdates(events: readonly TurnEvent[]): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  let kind: 'text' | 'reasoning' | undefined;
  let text = '';
  const emit = () => {
    if (kind && text) {
      updates.push({
        sessionUpdate: kind === 'text' ? 'agent_message_chunk' : 'agent_thought_chunk',
        content: { type: 'text', text },
      });
    }
    kind = undefined;
    text = '';
  };
  for (const event of events) {
    if (event.type !== 'text' && event.type !== 'reasoning') continue;
    if (event.type !== kind) emit();
    kind = event.type;
    text += event.text;
  }
  emit();
  return updates;
}

/** A text chunk from the agent, for messages of our own (errors, notices). */
export function agentText(text: string): SessionUpdate {
  return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } };
}

/**
 * Provider `usage` → ACP `PromptResponse.usage` (unstable). Token counts; `thoughtTokens` from
 * `completion_tokens_details.reasoning_tokens` and `cachedReadTokens` from
 * `prompt_tokens_details.cached_tokens`, only when reported and non-zero.
 */
export function toAcpUsage(usage: ChatUsage): Usage {
  const inputTokens = count(usage.prompt_tokens);
  const outputTokens = count(usage.completion_tokens);
  const total = count(usage.total_tokens);
  const result: Usage = { inputTokens, outputTokens, totalTokens: total > 0 ? total : inputTokens + outputTokens };
  const thought = count(usage.completion_tokens_details?.reasoning_tokens);
  if (thought > 0) result.thoughtTokens = thought;
  const cached = count(usage.prompt_tokens_details?.cached_tokens);
  if (cached > 0) result.cachedReadTokens = cached;
  return result;
}

/**
 * The `usage_update` for a finished request: `used` = tokens now in the context (the request's
 * prompt plus its answer), `size` = the model's context window, both in tokens.
 */
export function usageUpdate(usage: ChatUsage, contextWindow: number): SessionUpdate {
  const { inputTokens, outputTokens } = toAcpUsage(usage);
  return windowUsage(inputTokens + outputTokens, contextWindow);
}

/**
 * The `usage_update` for a context of `used` tokens in a window of `size` tokens: the meter after
 * `session/new` or `session/load`, after a compaction, or wherever the context changed without a
 * request's usage to read it from.
 */
export function windowUsage(used: number, size: number): SessionUpdate {
  return { sessionUpdate: 'usage_update', used: Math.max(0, Math.round(used)), size };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
