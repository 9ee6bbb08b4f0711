/**
 * What the model is sent of a session's stored records, pure: the turns after the last `/clear`
 * or `/compact`, with a compact summary up front. (What a client is shown when it loads the
 * session is `acp/replay.ts`.)
 */
import { isDeepStrictEqual } from 'node:util';
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { ChatMessage, ChatRequestContentPart } from '../openai/openai-types.js';
import { promptToUserContent } from '../context/prompt-content.js';
import { assistantToolCallMessage, toolResultMessage, type ToolMessageRules } from '../context/tool-messages.js';
import { pushUserMessage } from '../context/text-tool-path.js';
import type { ClearRecord, CompactRecord, SteeringRecord, TurnRecord } from './session-records.js';
import { NO_STUBS, stubRanges, type StubRanges } from '../context/stub-ranges.js';

/** The records that make up a conversation, in order. */
export type ConversationRecord = TurnRecord | ClearRecord | CompactRecord;

/** What is still sent to the model. */
export interface LiveConversation {
  /** The summary written by the latest `/compact`, when it is later than the latest `/clear`. */
  summary: string | undefined;
  /** The answered turns after the latest `/clear` or `/compact`, oldest first, each as `[user, assistant]`. */
  turns: ChatMessage[][];
  /**
   * Prompt blocks of the latest turns that got no answer (cancelled or cut off before any text;
   * not one that failed), to be put in front of the next user message; `[]` when the latest of
   * those turns was answered.
   */
  unanswered: ContentBlock[];
  /** Tool results of `turns` sent as stubs when the latest turn ended (its `context.stubbed`). */
  stubbed: StubRanges;
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
 * Said before a message the user sent into the turn (`_session/steering`) when it follows tool
 * results, so a user message never follows a `tool` message.
 * @internal the tests look for these exact words in what is sent.
 */
export const STEERED_AFTER_TOOLS = '(The user sent a message while the tool calls above ran; it follows.)';

/**
 * Appends a message the user sent into the turn to `messages` (a step's, as the model is sent
 * them), keeping roles alternating: after a `tool` message {@link STEERED_AFTER_TOOLS} comes
 * first, as the assistant's; after a user message (the images tools returned) it joins that one.
 * The same for the turn's next request and for every later request that repeats the turn.
 */
export function pushSteering(messages: ChatMessage[], content: string | ChatRequestContentPart[]): void {
  if (messages.at(-1)?.role === 'tool') messages.push({ role: 'assistant', content: STEERED_AFTER_TOOLS });
  pushUserMessage(messages, content);
}

/**
 * The messages of one turn after its user message: each tool step as an assistant message with
 * its `tool_calls` followed by one `tool` message per call (kept together, in order), then the
 * messages the user sent into the turn after that step (`steering`, by {@link pushSteering}),
 * then the final answer. A turn that ended right after tool results gets {@link ENDED_AFTER_TOOLS} as its
 * answer, so a user message never follows a `tool` message (strict chat templates refuse that).
 * Steering messages no answer followed are not here: {@link unansweredSteering} carries them.
 * @internal a pure step (fast-check properties) of rebuilding a turn's messages.
 */
export function answerMessages(turn: TurnRecord, rules: ToolMessageRules = PLAIN_RULES, fromStep = 0): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const steps = turn.steps ?? [];
  const answered = answeredSteering(turn);
  steps.forEach((step, index) => {
    if (index < fromStep) return;
    messages.push(assistantToolCallMessage(step, rules));
    for (const result of step.results) messages.push(toolResultMessage(result.id, result.forModel));
    for (const steer of answered) if (steer.afterStep === index + 1) pushSteering(messages, promptToUserContent(steer.prompt));
  });
  if (turn.assistant) messages.push({ role: 'assistant', content: turn.assistant });
  else if (messages.length > 0 && messages.at(-1)?.role !== 'assistant') messages.push({ role: 'assistant', content: ENDED_AFTER_TOOLS });
  return messages;
}

/** Whether a turn got any answer (text or tool calls). */
function isAnswered(turn: TurnRecord): boolean {
  return Boolean(turn.assistant) || (turn.steps?.length ?? 0) > 0;
}

/** How many model answers the turn has: its tool steps, and its final answer when it has one. */
function answerCount(turn: TurnRecord): number {
  return (turn.steps?.length ?? 0) + (turn.assistant ? 1 : 0);
}

/** The turn's steering messages that an answer of the turn followed (they sit between its steps). */
function answeredSteering(turn: TurnRecord): SteeringRecord[] {
  const answers = answerCount(turn);
  return (turn.steering ?? []).filter((steer) => steer.afterStep >= 1 && steer.afterStep < answers);
}

/**
 * The blocks of the turn's steering messages that no answer of the turn followed (the turn was
 * cancelled or failed, or ended, before the model saw them), oldest first, each set apart by a
 * blank line: they go in front of the next user message, as an unanswered prompt does.
 * @internal the tests check which messages it carries.
 */
export function unansweredSteering(turn: TurnRecord): ContentBlock[] {
  const answers = answerCount(turn);
  return (turn.steering ?? [])
    .filter((steer) => steer.afterStep < 1 || steer.afterStep >= answers)
    .reduce<ContentBlock[]>((blocks, steer) => (blocks.length === 0 ? [...steer.prompt] : withUnanswered(blocks, steer.prompt)), []);
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
  const stubbed = last?.type === 'turn' ? stubRanges(last.context?.stubbed) : NO_STUBS;
  const live: Pick<LiveConversation, 'turns' | 'unanswered'> = { turns: [], unanswered: [] };
  records.slice(start).forEach((record, index) => {
    if (record.type === 'turn') appendTurn(live, record, rules, index === 0 ? fromStep : 0);
  });
  return { summary, turns: live.turns, unanswered: live.unanswered, stubbed };
}

/**
 * Adds one turn to the `turns` and `unanswered` of a live conversation being built, as
 * {@link liveConversation} does for each turn: a turn cancelled before any answer keeps its user
 * message, folded into the next user message (chat templates that require user/assistant
 * alternation reject two user messages in a row), as do the steering messages no answer followed;
 * a turn that failed before any answer (`failed`) and took no such message adds nothing.
 * `fromStep`: the first step still sent (a turn compacted inside). Exported: `live-records.ts`
 * extends a live conversation turn by turn with it.
 */
export function appendTurn(
  live: Pick<LiveConversation, 'turns' | 'unanswered'>,
  record: TurnRecord,
  rules: ToolMessageRules = PLAIN_RULES,
  fromStep = 0,
): void {
  const prompt = withUnansweredOnce(live.unanswered, record.prompt);
  if (!isAnswered(record)) {
    const steered = unansweredSteering(record);
    // A failed turn that showed nothing is kept for the user (replayed), not sent again: its prompt
    // may be what the endpoint refused (an image, its size), which would fail every later prompt.
    if (record.failed && steered.length === 0) return;
    live.unanswered = steered.length === 0 ? prompt : withUnanswered(prompt, steered);
    return;
  }
  live.unanswered = unansweredSteering(record);
  live.turns.push([
    { role: 'user', content: promptToUserContent(withNotes([record.factsNote, record.modeNote], prompt)) },
    ...answerMessages(record, rules, fromStep),
  ]);
}

/**
 * `prompt` with the notes of its turn in front (`TurnRecord.factsNote`, then `modeNote`; absent
 * ones skipped), each set apart by a blank line; `prompt` itself when there are none. The same
 * blocks for the turn's request and for every later request that repeats the turn, so their bytes match.
 */
export function withNotes(notes: readonly (string | undefined)[], prompt: readonly ContentBlock[]): ContentBlock[] {
  return [
    ...notes
      .filter((note): note is string => Boolean(note))
      .flatMap((text): ContentBlock[] => [
        { type: 'text', text },
        { type: 'text', text: '\n\n' },
      ]),
    ...prompt,
  ];
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

/**
 * The user message of a prompt after unanswered ones: {@link withUnanswered}, but a prompt that
 * repeats the latest unanswered one block for block (asked again after a cancel or a prompt cut off by the client leaving) is
 * not put twice: the model reads the question once, as the failed request had it. An empty
 * prompt repeats nothing. The same for the turn's request and for every later request that
 * repeats the turn, so their bytes match. Pure.
 */
export function withUnansweredOnce(unanswered: readonly ContentBlock[], prompt: readonly ContentBlock[]): ContentBlock[] {
  return repeatsLatest(unanswered, prompt) ? [...unanswered] : withUnanswered(unanswered, prompt);
}

/**
 * Whether `unanswered` ends with `prompt`'s blocks, standing alone or after the blank line that
 * sets one prompt apart (a prompt block that is itself that blank line passes for it: the model
 * then reads the repeated words once all the same).
 */
function repeatsLatest(unanswered: readonly ContentBlock[], prompt: readonly ContentBlock[]): boolean {
  const start = unanswered.length - prompt.length;
  if (prompt.length === 0 || start < 0) return false;
  const before = unanswered[start - 1];
  if (start > 0 && !(before?.type === 'text' && before.text === '\n\n')) return false;
  return prompt.every((block, i) => isDeepStrictEqual(block, unanswered[start + i]));
}

/** The text a replayed `/compact` shows: the summary that replaced the older turns. */
export function compactedText(summary: string): string {
  return `Conversation compacted. Summary of the earlier turns, sent to the model in their place:\n\n${summary}`;
}
