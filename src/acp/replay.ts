/**
 * What a client is shown when it loads a session: every stored record as the `session/update`s
 * it first saw, with the same message ids. Pure.
 *
 * Source: ACP `session/load` replays history as `user_message_chunk` / `agent_thought_chunk` /
 * `agent_message_chunk` (https://agentclientprotocol.com/protocol/v1/session-setup#loading-sessions);
 * `messageId` on content chunks and the `compaction_update` entity (schema v1 `ContentChunk`,
 * `CompactionUpdate`: sent only to clients that advertise `session.compaction`).
 */
import type { ContentBlock, SessionUpdate, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk/unstable';
import type { StepRecord, TurnRecord } from '../sessions/session-records.js';
import { CLEARED_TEXT, compactedText, type ConversationRecord } from '../sessions/conversation.js';
import { agentText, agentThought, promptMessageId, steeringMessageId, stepMessageIds } from '../loop/to-acp.js';

/** What the replay may use of the client's capabilities. */
export interface ReplayFeatures {
  /** `session.compaction`: compactions as `compaction_update` entities. */
  compaction: boolean;
}

/**
 * The id a record's messages derive from: its saved `id`, else (a record saved before ids were
 * kept) one made from its time and how many earlier records share that time, the same at every load.
 */
function recordId(record: { id?: string | undefined; at: string; type: string }, sameTimeBefore = 0): string {
  return record.id ?? `${record.type}-${record.at}${sameTimeBefore > 0 ? `-${sameTimeBefore}` : ''}`;
}

/**
 * The updates that show the whole conversation again, in order: per turn its prompt blocks as
 * `user_message_chunk`s, its reasoning as one `agent_thought_chunk`, its answer as one
 * `agent_message_chunk`, each tool step before it as its reasoning, text and, per call, a `tool_call`
 * followed by a `tool_call_update` with the call's status and content, each message the user sent
 * into the turn (`steering`) as `user_message_chunk`s after the answer it followed, then the plan
 * the turn left as a `plan` update; a `/clear` or `/compact` as the command and its outcome. A compaction is a
 * `compaction_update` (completed, with its summary) in its place for a client with
 * `session.compaction`; otherwise the `/compact` outcome is text and a compaction inside a turn
 * is not shown (it was a thought, not part of the history).
 */
export function replayUpdates(records: readonly ConversationRecord[], features: ReplayFeatures = { compaction: false }): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const user = (text: string, messageId: string): SessionUpdate => ({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text }, messageId });
  const compaction = (compactionId: string, summary: string): SessionUpdate => ({
    sessionUpdate: 'compaction_update',
    compactionId,
    status: 'completed',
    summary: [{ type: 'text', text: summary }],
  });
  const times = new Map<string, number>();
  for (const record of records) {
    const seen = times.get(record.at) ?? 0;
    times.set(record.at, seen + 1);
    const id = recordId(record, seen);
    if (record.type === 'clear') updates.push(user('/clear', promptMessageId(id)), agentText(CLEARED_TEXT, stepMessageIds(id, 0).text));
    else if (record.type === 'compact') {
      updates.push(
        user('/compact', promptMessageId(id)),
        features.compaction ? compaction(id, record.summary) : agentText(compactedText(record.summary), stepMessageIds(id, 0).text),
      );
    } else {
      for (const block of withBreaks(record.typed ?? record.prompt))
        updates.push({ sessionUpdate: 'user_message_chunk', content: block, messageId: promptMessageId(id) });
      const steps = record.steps ?? [];
      const compactionsBefore = (step: number) =>
        features.compaction
          ? compactionsOf(record)
              .filter((c) => c.beforeStep === step)
              .map((c) => compaction(c.id, c.summary))
          : [];
      const steering = (record.steering ?? []).map((steer, index) => ({ ...steer, index }));
      /** The user's messages into the turn that came after its first `answers` answers (0: before any). */
      const steered = (answers: number, last = false) =>
        steering
          .filter((steer) => (last ? steer.afterStep >= answers : steer.afterStep === answers))
          .flatMap((steer) =>
            withBreaks(steer.prompt).map(
              (block): SessionUpdate => ({ sessionUpdate: 'user_message_chunk', content: block, messageId: steeringMessageId(id, steer.index) }),
            ),
          );
      updates.push(...steered(0));
      for (const [i, step] of steps.entries()) updates.push(...compactionsBefore(i), ...stepUpdates(step, id, i), ...steered(i + 1));
      updates.push(...compactionsBefore(steps.length));
      // The plan as the turn left it (the client replaces the whole list with each one).
      if (record.plan) updates.push({ sessionUpdate: 'plan', entries: record.plan });
      const last = stepMessageIds(id, steps.length);
      if (record.reasoning) updates.push(agentThought(record.reasoning, last.reasoning));
      if (record.assistant) updates.push(agentText(record.assistant, last.text));
      updates.push(...steered(steps.length + 1, true));
    }
  }
  return updates;
}

/**
 * `blocks` with a blank line between two text blocks that follow each other (the first not ending
 * its line): a client joins the chunks of one message, and a prompt of several blocks would read as
 * one run-on text.
 */
function withBreaks(blocks: readonly ContentBlock[]): ContentBlock[] {
  return blocks.flatMap((block, i) => {
    const before = blocks[i - 1];
    const joins = block.type === 'text' && before?.type === 'text' && before.text !== '' && !before.text.endsWith('\n');
    return joins ? [{ type: 'text', text: '\n\n' }, block] : [block];
  });
}

/** The compactions saved with a turn that read back (a bad entry is left out). */
function compactionsOf(record: TurnRecord): { id: string; beforeStep: number; summary: string }[] {
  return (record.compactions ?? []).filter((c) => typeof c?.id === 'string' && typeof c.summary === 'string' && Number.isInteger(c.beforeStep));
}

/** One tool step as it was shown: reasoning, text, then each call announced and finished. */
function stepUpdates(step: StepRecord, turnId: string, index: number): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const ids = stepMessageIds(turnId, index);
  if (step.reasoning) updates.push(agentThought(step.reasoning, ids.reasoning));
  if (step.text) updates.push(agentText(step.text, ids.text));
  for (const result of step.results) {
    // A call never run (the turn was cancelled first) was never shown: it has no ACP id.
    if (!result.toolCallId) continue;
    const call: SessionUpdate = {
      sessionUpdate: 'tool_call',
      toolCallId: result.toolCallId,
      title: result.title,
      kind: result.kind as ToolKind,
      status: 'pending',
      rawInput: result.rawInput,
    };
    if (result.locations) call.locations = result.locations as ToolCallLocation[];
    updates.push(call, {
      sessionUpdate: 'tool_call_update',
      toolCallId: result.toolCallId,
      status: result.status,
      content: result.content as ToolCallContent[],
    });
  }
  return updates;
}
