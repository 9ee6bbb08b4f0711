/**
 * ACP `session/update`s of one prompt turn → AgentConnect session events (pure apart from the
 * turn's own state): text → `delta` (and the full text on `final`), reasoning → `thinking`
 * (completed when the answer's text or a tool call starts, as the reference host's providers
 * complete a thinking block before the text block), notices → a `message` of role `system`
 * (beside the answer, neither its text nor the model's thinking), tool calls and their results →
 * `tool_call`, the window meter → `context_usage` once per turn, the turn's usage → `usage` once
 * per turn, then `final` (with `cancelled: true` for a cancelled turn) or, for a failed one,
 * `error` carrying the failure's words only.
 *
 * The model's answer streams under its step's message id (`<turnId>-<step>-m`, `stepMessageIds`
 * in `loop/to-acp.ts`); words the agent writes itself (a failure, a stop, a note) come as a
 * message of their own under a fresh id. Those are held until the next update shows the turn goes
 * on (then they are a `delta` like any text) or the turn ends: a failed turn's last words of its
 * own are its failure, carried by `error` and never streamed as the answer.
 *
 * Sources: AgentConnect v0.2.6 (rayzhudev/agent-connect @ 019337f) `docs/PROTOCOL.md` ("Session
 * Events", "Usage and context usage events": each at most once per turn, emitted before or with
 * `final`), `packages/host/src/providers/claude.ts` (a thinking block's `completed` at its
 * `content_block_stop`, before the text block), `packages/host/src/providers/local.ts` (`error`
 * `{message}` alone, no `delta` of it); the SDK's `SessionEvent` (`message` `{role, content}`,
 * role `system` among them); ACP `session/update`
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

/** A message id of the model's answer (`<turnId>-<step>-m`, `stepMessageIds` in `loop/to-acp.ts`); absent ids count as the model's. */
const MODEL_MESSAGE_ID = /-\d+-m$/;

/** The updates that show the turn goes on after words of the agent's own (a title, a meter or a notice may follow a failure's words). */
const GOES_ON: ReadonlySet<SessionUpdate['sessionUpdate']> = new Set(['agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update']);

/** The words of a failure as the agent's error answer has them when none were streamed (`Internal error: <summary>` → `<Summary>.`). */
function summaryWords(summary: string | undefined): string {
  const words = (summary ?? '').replace(/^Internal error:\s*/i, '').trim();
  if (!words || /^internal error$/i.test(words)) return 'The model request failed.';
  return `${words[0]!.toUpperCase()}${words.slice(1)}${/[.!?]$/.test(words) ? '' : '.'}`;
}

/** One prompt turn's events; `update` for each `session/update`, then `end` with the prompt's answer. */
export class TurnEvents {
  private text = '';
  private thinking = false;
  private meter: AcEvent | undefined;
  private readonly names = new Map<string, string>();
  /** Words the agent wrote itself, not yet told: `{id, text}` of their message. */
  private own: { id: string; text: string } | undefined;

  /** @param sessionId - the session, named on the closing event as its `providerSessionId` (the ACP session is the provider's). */
  constructor(private readonly sessionId: string) {}

  /** The events one `session/update` gives now (the meter is kept for the end of the turn; the agent's own words until the next update). */
  update(update: SessionUpdate): AcEvent[] {
    if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') {
      const id = update.messageId;
      if (id && !MODEL_MESSAGE_ID.test(id)) {
        if (update.content.text === '') return [];
        // Another message of its own: the one held before was not the last.
        const before = this.own?.id === id ? [] : this.tellOwn();
        this.own = { id, text: (this.own?.text ?? '') + update.content.text };
        return [...before, ...this.endThinking()];
      }
    }
    return GOES_ON.has(update.sessionUpdate) ? [...this.tellOwn(), ...this.mapped(update)] : this.mapped(update);
  }

  /** The agent's own words held so far, as text of the answer: the turn went on after them. */
  private tellOwn(): AcEvent[] {
    const own = this.own;
    this.own = undefined;
    return own ? this.delta(own.text) : [];
  }

  private delta(text: string): AcEvent[] {
    this.text += text;
    return [...this.endThinking(), { type: 'delta', data: { text } }];
  }

  private mapped(update: SessionUpdate): AcEvent[] {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk': {
        if (update.content.type !== 'text' || update.content.text === '') return [];
        return this.delta(update.content.text);
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
        // Beside the answer, never part of it, and not the model's thinking: a message of the host's own.
        return [
          ...this.endThinking(),
          { type: 'message', data: { provider: PROVIDER, role: 'system', content: `${update.title}${update.description ? `: ${update.description}` : ''}` } },
        ];
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
   * (`_meta["openai-acp"].error` on the answer) `error` instead of `final`, its `message` the
   * failure's words only (the agent's last words of its own; else the error answer's summary,
   * `_meta["openai-acp"].message`), never the answer streamed before it.
   * Both carry `providerSessionId` (the SDK reads it there: `normalizeEvent` in its `index.ts`).
   */
  end(response: PromptResponse): AcEvent[] {
    const meta = response._meta?.['openai-acp'] as { error?: { kind?: string }; message?: string } | undefined;
    const failure = meta?.error && response.stopReason !== 'cancelled' ? meta.error : undefined;
    const own = failure ? this.own : undefined;
    const events = failure ? [...this.endThinking()] : [...this.tellOwn(), ...this.endThinking()];
    this.own = undefined;
    const usage = usageEvent(response.usage);
    if (usage) events.push(usage);
    if (this.meter) events.push(this.meter);
    if (failure) {
      const message = own?.text.trim() || summaryWords(meta?.message);
      events.push({ type: 'error', data: { message, ...(failure.kind ? { kind: failure.kind } : {}), providerSessionId: this.sessionId } });
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
