/**
 * What the model is sent of a session's stored records, pure: the turns after the last `/clear`
 * or `/compact`, with a compact summary up front. (What a client is shown when it loads the
 * session is `acp/replay.ts`.)
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { ChatMessage } from '../openai/openai-types.js';
import { promptToUserContent } from '../context/prompt-content.js';
import { assistantToolCallMessage, toolResultMessage, type ToolMessageRules } from '../context/tool-messages.js';
import type { ClearRecord, CompactRecord, TurnRecord } from './session-records.js';

/** The records that make up a conversation, in order. */
export type ConversationRecord = TurnRecord | ClearRecord | CompactRecord;

/** What is still sent to the model. */
export interface LiveConversation {
  /** The summary written by the latest `/compact`, when it is later than the latest `/clear`. */
  summary: string | undefined;
  /** The answered turns after the latest `/clear` or `/compact`, oldest first, each as `[user, assistant]`. */
  turns: ChatMessage[][];
  /**
   * Prompt blocks of the latest turns that got no answer (cancelled before any text), to be put
   * in front of the next user message; `[]` when the latest turn was answered.
   */
  unanswered: ContentBlock[];
  /** Tool results of `turns` sent as stubs when the latest turn ended (its `context.stubbed`), oldest first. */
  stubbed: number;
}

/** Text shown for a replayed `/clear`. */
export const CLEARED_TEXT = 'Conversation cleared: earlier turns are no longer sent to the model (they stay in the saved session).';

/** The tool-message rules when no endpoint says otherwise. */
const PLAIN_RULES: ToolMessageRules = { echoReasoning: false, shortToolCallIds: false };

/**
 * Said in place of a final answer when a turn ended right after tool results (cancelled, step limit).
 * @internal the tests look for these exact words in what is sent.
 */
export const ENDED_AFTER_TOOLS = '(The turn ended here, after the tool results above.)';

/**
 * The messages of one turn after its user message: each tool step as an assistant message with
 * its `tool_calls` followed by one `tool` message per call (kept together, in order), then the
 * final answer. A turn that ended right after tool results gets {@link ENDED_AFTER_TOOLS} as its
 * answer, so a user message never follows a `tool` message (strict chat templates refuse that).
 * @internal a pure step (fast-check properties) of rebuilding a turn's messages.
 */
export function answerMessages(turn: TurnRecord, rules: ToolMessageRules = PLAIN_RULES, fromStep = 0): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const step of (turn.steps ?? []).slice(fromStep)) {
    messages.push(assistantToolCallMessage(step, rules));
    for (const result of step.results) messages.push(toolResultMessage(result.id, result.forModel));
  }
  if (turn.assistant) messages.push({ role: 'assistant', content: turn.assistant });
  else if (messages.length > 0) messages.push({ role: 'assistant', content: ENDED_AFTER_TOOLS });
  return messages;
}

/** Whether a turn got any answer (text or tool calls). */
export function isAnswered(turn: TurnRecord): boolean {
  return Boolean(turn.assistant) || (turn.steps?.length ?? 0) > 0;
}

/** The user message of an answered turn: its mode note, the prompts of the unanswered turns before it, its prompt. */
export function turnUserMessage(turn: TurnRecord, unanswered: readonly ContentBlock[]): ChatMessage {
  return { role: 'user', content: promptToUserContent(withModeNote(turn.modeNote, withUnanswered(unanswered, turn.prompt))) };
}

/**
 * The part of the conversation the model still sees: turns after the latest `/clear` or
 * `/compact`, or from the latest turn compacted inside (its `context.summary` then replaces what
 * came before it and its first steps), with unanswered user messages folded into the next one.
 */
export function liveConversation(records: readonly ConversationRecord[], rules: ToolMessageRules = PLAIN_RULES): LiveConversation {
  let start = 0;
  let summary: string | undefined;
  let fromStep = 0;
  records.forEach((record, index) => {
    if (record.type === 'clear' || record.type === 'compact') {
      start = index + 1;
      summary = record.type === 'compact' ? record.summary : undefined;
      fromStep = 0;
    } else if (record.type === 'turn' && record.context?.summary !== undefined) {
      start = index;
      summary = record.context.summary;
      fromStep = record.context.summarizedSteps ?? 0;
    }
  });
  const last = records.at(-1);
  const stubbed = last?.type === 'turn' ? (last.context?.stubbed ?? 0) : 0;
  // A turn cancelled before any answer keeps its user message, folded into the next user message:
  // chat templates that require user/assistant alternation reject two user messages in a row.
  const turns: ChatMessage[][] = [];
  let unanswered: ContentBlock[] = [];
  records.slice(start).forEach((record, index) => {
    if (record.type !== 'turn') return;
    if (!isAnswered(record)) {
      unanswered = withUnanswered(unanswered, record.prompt);
      return;
    }
    turns.push([turnUserMessage(record, unanswered), ...answerMessages(record, rules, index === 0 ? fromStep : 0)]);
    unanswered = [];
  });
  return { summary, turns, unanswered, stubbed };
}

/**
 * `prompt` with a session mode's note (`TurnRecord.modeNote`) in front, set apart by a blank
 * line; `prompt` itself when there is none. The same blocks for the turn's request and for every
 * later request that repeats the turn, so their bytes match.
 */
export function withModeNote(note: string | undefined, prompt: readonly ContentBlock[]): ContentBlock[] {
  return note ? [{ type: 'text', text: note }, { type: 'text', text: '\n\n' }, ...prompt] : [...prompt];
}

/**
 * The session mode the model was last told of in the live conversation: the latest answered
 * turn's `mode` since the latest `/clear` or `/compact` (or since a turn compacted inside, whose
 * own note alone is still seen); `undefined` when none says (the system prompt's rule, which is
 * the default mode's, then stands).
 */
export function lastToldMode(records: readonly ConversationRecord[]): string | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i]!;
    if (record.type === 'clear' || record.type === 'compact') return undefined;
    if (record.type !== 'turn') continue;
    // A turn compacted inside: the notes before it went into the summary, only its own is still
    // seen (when the turn was answered: an unanswered prompt is sent again without its note).
    if (record.context?.summary !== undefined) return isAnswered(record) && record.modeNote !== undefined ? record.mode : undefined;
    if (!isAnswered(record)) continue;
    if (record.mode !== undefined) return record.mode;
  }
  return undefined;
}

/** `prompt` with the blocks of unanswered turns in front, set apart by a blank line. */
export function withUnanswered(unanswered: readonly ContentBlock[], prompt: readonly ContentBlock[]): ContentBlock[] {
  return unanswered.length === 0 ? [...prompt] : [...unanswered, { type: 'text', text: '\n\n' }, ...prompt];
}

/** The text a replayed `/compact` shows: the summary that replaced the older turns. */
export function compactedText(summary: string): string {
  return `Conversation compacted. Summary of the earlier turns, sent to the model in their place:\n\n${summary}`;
}
