/**
 * ACP `session/update`s of one prompt turn → AgentConnect session events (pure apart from the
 * turn's own state): text → `delta` (and the full text on `final`), reasoning and notices → `thinking`, tool
 * calls and their results → `tool_call`, the window meter → `context_usage` once per turn, the
 * turn's usage → `usage` once per turn, then `final` (with `cancelled: true` for a cancelled turn)
 * or `error` for a failed one.
 *
 * Sources: AgentConnect `docs/PROTOCOL.md` ("Session Events", "Usage and context usage events":
 * each at most once per turn, emitted before or with `final`); ACP `session/update`
 * https://agentclientprotocol.com/protocol/v1/prompt-turn and `PromptResponse.usage`.
 */
import type { PromptResponse, SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk/unstable';
import { PROVIDER, type AcEvent } from './protocol.js';

/** Context usage in AgentConnect's keys, from the ACP meter (`used` and `size` in tokens). */
export function contextUsageEvent(used: number, size: number): AcEvent {
  return { type: 'context_usage', data: { contextUsage: { context_window: size, context_tokens: used, context_remaining_tokens: Math.max(0, size - used) } } };
}

/**
 * Token usage in AgentConnect's keys, from ACP's `PromptResponse.usage`; `undefined` when the provider reported none.
 */
function usageEvent(usage: PromptResponse['usage']): AcEvent | undefined {
  if (!usage) return undefined;
  const tokens: Record<string, number> = { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: usage.totalTokens };
  if (typeof usage.cachedReadTokens === 'number') tokens['cached_input_tokens'] = usage.cachedReadTokens;
  if (typeof usage.thoughtTokens === 'number') tokens['reasoning_tokens'] = usage.thoughtTokens;
  return { type: 'usage', data: { usage: tokens } };
}

/** The text of a tool call's content (text blocks, and a diff's path), for `tool_call.output`. */
function contentText(content: ToolCallContent[] | null | undefined): string | undefined {
  const parts: string[] = [];
  for (const item of content ?? []) {
    if (item.type === 'content' && item.content.type === 'text') parts.push(item.content.text);
    else if (item.type === 'diff') parts.push(`(edited ${item.path})`);
  }
  return parts.length > 0 ? parts.join('\n') : undefined;
}

/** One prompt turn's events; `update` for each `session/update`, then `end` with the prompt's answer. */
export class TurnEvents {
  private text = '';
  private thinking = false;
  private meter: AcEvent | undefined;
  private readonly names = new Map<string, string>();

  /** @param sessionId - the session, named on the closing event as its `providerSessionId` (the ACP session is the provider's). */
  constructor(private readonly sessionId: string) {}

  /** The events one `session/update` gives now (the meter is kept for the end of the turn). */
  update(update: SessionUpdate): AcEvent[] {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk': {
        if (update.content.type !== 'text' || update.content.text === '') return [];
        this.text += update.content.text;
        return [{ type: 'delta', data: { text: update.content.text } }];
      }
      case 'agent_thought_chunk': {
        if (update.content.type !== 'text' || update.content.text === '') return [];
        return this.thought(update.content.text);
      }
      case 'tool_call': {
        this.names.set(update.toolCallId, update.title);
        const events = [...this.endThinking(), toolEvent(update.toolCallId, update.title, 'start', { input: update.rawInput })];
        // An announcement that is already final (refused before it ran) finishes here too.
        if (update.status === 'completed' || update.status === 'failed')
          events.push(this.finished(update.toolCallId, update.status, update.content, update.rawOutput));
        return events;
      }
      case 'tool_call_update': {
        if (update.status === 'completed' || update.status === 'failed')
          return [this.finished(update.toolCallId, update.status, update.content, update.rawOutput)];
        return [];
      }
      case 'notice':
        // Beside the answer, never part of it: told as thinking, as a thought is.
        return this.thought(`${update.title}${update.description ? `: ${update.description}` : ''}\n\n`);
      case 'usage_update':
        this.meter = contextUsageEvent(update.used, update.size);
        return [];
      default:
        return [];
    }
  }

  /**
   * The closing events of the turn: thinking completed, `usage`, `context_usage`, then `final`
   * with the whole text (`cancelled: true` when the turn was cancelled); for a failed turn
   * (`_meta["openai-acp"].error` on the answer) `error` instead of `final`, with the words shown.
   * Both carry `providerSessionId` (the SDK reads it there: `normalizeEvent` in its `index.ts`).
   */
  end(response: PromptResponse): AcEvent[] {
    const events = [...this.endThinking()];
    const usage = usageEvent(response.usage);
    if (usage) events.push(usage);
    if (this.meter) events.push(this.meter);
    const ours = response._meta?.['openai-acp'] as { error?: { kind?: string }; message?: string } | undefined;
    const failure = ours?.error;
    if (failure && response.stopReason !== 'cancelled') {
      // The failure's words are the error's message (app/prompt-failure.ts), not the streamed answer.
      const words = ours?.message?.trim() || this.text.trim() || 'The model request failed.';
      events.push({
        type: 'error',
        data: { message: words, ...(failure.kind ? { kind: failure.kind } : {}), providerSessionId: this.sessionId },
      });
    } else {
      const end = response.stopReason === 'cancelled' ? { cancelled: true } : { stopReason: response.stopReason };
      events.push({ type: 'final', data: { text: this.text, ...end, providerSessionId: this.sessionId } });
    }
    return events;
  }

  /** `text` as thinking: its start first, unless thinking is under way. */
  private thought(text: string): AcEvent[] {
    const start: AcEvent[] = this.thinking ? [] : [{ type: 'thinking', data: { provider: PROVIDER, phase: 'start' } }];
    this.thinking = true;
    return [...start, { type: 'thinking', data: { provider: PROVIDER, phase: 'delta', text } }];
  }

  private endThinking(): AcEvent[] {
    if (!this.thinking) return [];
    this.thinking = false;
    return [{ type: 'thinking', data: { provider: PROVIDER, phase: 'completed' } }];
  }

  private finished(toolCallId: string, status: 'completed' | 'failed', content: ToolCallContent[] | null | undefined, rawOutput: unknown): AcEvent {
    const output = contentText(content) ?? rawOutput;
    return toolEvent(toolCallId, this.names.get(toolCallId), status === 'completed' ? 'completed' : 'error', output === undefined ? {} : { output });
  }
}

/** A `tool_call` event; `name` is the call's title as ACP clients show it (e.g. "Read src/a.ts"). */
function toolEvent(callId: string, name: string | undefined, phase: 'start' | 'completed' | 'error', extra: Record<string, unknown>): AcEvent {
  return { type: 'tool_call', data: { provider: PROVIDER, callId, ...(name ? { name } : {}), phase, ...extra } };
}
