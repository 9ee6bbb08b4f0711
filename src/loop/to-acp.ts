/**
 * Pure mapping from the chat stream accumulator's events to ACP `session/update` payloads and
 * prompt-response fields.
 *
 * Sources: ACP prompt turn https://agentclientprotocol.com/protocol/v1/prompt-turn ;
 * OpenAI `finish_reason` https://platform.openai.com/docs/api-reference/chat/object .
 */
import type { SessionUpdate, StopReason, Usage } from '@agentclientprotocol/sdk/unstable';
import type { ChatUsage } from '../openai/openai-types.js';
import type { Cost } from '../openai/reported-cost.js';
import type { StreamEvent } from '../openai/chat-stream-accumulator.js';
import { newMessageId } from './notify.js';

/** The ACP `messageId`s of one model answer: its text and its reasoning are two messages. */
export interface MessageIds {
  text: string;
  reasoning: string;
}

/**
 * The message ids of step `step` (0-based model request) of the turn `turnId`: derived, so a
 * replay of the saved turn (`acp/replay.ts`) gives the same ids the client saw live.
 */
export function stepMessageIds(turnId: string, step: number): MessageIds {
  return { text: `${turnId}-${step}-m`, reasoning: `${turnId}-${step}-r` };
}

/** The message id of a turn's prompt, for `user_message_chunk`s in a replay. */
export function promptMessageId(turnId: string): string {
  return `${turnId}-u`;
}

/** The message id of the `index`th message (0-based) the user sent into the turn `turnId` (`_session/steering`), for a replay. */
export function steeringMessageId(turnId: string, index: number): string {
  return `${turnId}-s${index}`;
}

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
 * and error events produce no update here. Each chunk carries its message's id from `ids`.
 */
export function eventsToUpdates(events: readonly StreamEvent[], ids: MessageIds): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  let kind: 'text' | 'reasoning' | undefined;
  let text = '';
  const emit = () => {
    if (kind && text) {
      updates.push({
        sessionUpdate: kind === 'text' ? 'agent_message_chunk' : 'agent_thought_chunk',
        content: { type: 'text', text },
        messageId: kind === 'text' ? ids.text : ids.reasoning,
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

/** A text chunk from the agent, for messages of our own (errors, notices): a message of its own unless `messageId` says which. */
export function agentText(text: string, messageId: string = newMessageId()): SessionUpdate {
  return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, messageId };
}

/** A thought chunk from the agent (reasoning, or a note beside the answer). */
export function agentThought(text: string, messageId: string = newMessageId()): SessionUpdate {
  return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text }, messageId };
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
 * prompt plus its answer), `size` = the model's context window, both in tokens; `cost` the
 * session's cumulative cost when a provider reported one (never estimated).
 */
export function usageUpdate(usage: ChatUsage, contextWindow: number, cost?: Cost | undefined): SessionUpdate {
  const { inputTokens, outputTokens } = toAcpUsage(usage);
  return windowUsage(inputTokens + outputTokens, contextWindow, cost);
}

/**
 * The `usage_update` for a context of `used` tokens in a window of `size` tokens: the meter after
 * `session/new` or `session/load`, after a compaction, or wherever the context changed without a
 * request's usage to read it from.
 */
export function windowUsage(used: number, size: number, cost?: Cost | undefined): SessionUpdate {
  const update: SessionUpdate = { sessionUpdate: 'usage_update', used: Math.max(0, Math.round(used)), size };
  if (cost) update.cost = { amount: cost.amount, currency: cost.currency };
  return update;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
