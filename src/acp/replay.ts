/**
 * What a client is shown when it loads a session: every stored record as the `session/update`s
 * it first saw. Pure.
 *
 * Source: ACP `session/load` replays history as `user_message_chunk` / `agent_thought_chunk` /
 * `agent_message_chunk` (https://agentclientprotocol.com/protocol/v1/session-setup#loading-sessions).
 */
import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk/unstable';
import type { StepRecord } from '../sessions/session-records.js';
import { CLEARED_TEXT, compactedText, type ConversationRecord } from '../sessions/conversation.js';
import { agentText } from '../loop/to-acp.js';

/**
 * The updates that show the whole conversation again, in order: per turn its prompt blocks as
 * `user_message_chunk`s, its reasoning as one `agent_thought_chunk`, its answer as one
 * `agent_message_chunk`, each tool step before it as its reasoning, text and, per call, a `tool_call`
 * followed by a `tool_call_update` with the call's status and content, then the plan the turn left
 * as a `plan` update; a `/clear` or `/compact` as the command and its outcome.
 */
export function replayUpdates(records: readonly ConversationRecord[]): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const user = (text: string): SessionUpdate => ({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text } });
  for (const record of records) {
    if (record.type === 'clear') updates.push(user('/clear'), agentText(CLEARED_TEXT));
    else if (record.type === 'compact') updates.push(user('/compact'), agentText(compactedText(record.summary)));
    else {
      for (const block of record.typed ?? record.prompt) updates.push({ sessionUpdate: 'user_message_chunk', content: block });
      for (const step of record.steps ?? []) updates.push(...stepUpdates(step));
      // The plan as the turn left it (the client replaces the whole list with each one).
      if (record.plan) updates.push({ sessionUpdate: 'plan', entries: record.plan });
      if (record.reasoning) updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: record.reasoning } });
      if (record.assistant) updates.push(agentText(record.assistant));
    }
  }
  return updates;
}

/** One tool step as it was shown: reasoning, text, then each call announced and finished. */
function stepUpdates(step: StepRecord): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  if (step.reasoning) updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: step.reasoning } });
  if (step.text) updates.push(agentText(step.text));
  for (const result of step.results) {
    // A call never run (the turn was cancelled first) was never shown: it has no ACP id.
    if (!result.toolCallId) continue;
    const call: SessionUpdate = { sessionUpdate: 'tool_call', toolCallId: result.toolCallId, title: result.title, kind: result.kind as ToolKind, status: 'pending', rawInput: result.rawInput };
    if (result.locations) call.locations = result.locations as ToolCallLocation[];
    updates.push(call, { sessionUpdate: 'tool_call_update', toolCallId: result.toolCallId, status: result.status, content: result.content as ToolCallContent[] });
  }
  return updates;
}
