/**
 * What a client is shown when it loads a session: every stored record as the `session/update`s
 * it first saw. Pure.
 *
 * Source: ACP `session/load` replays history as `user_message_chunk` / `agent_thought_chunk` /
 * `agent_message_chunk` (https://agentclientprotocol.com/protocol/v1/session-setup#loading-sessions).
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { CLEARED_TEXT, compactedText, type ConversationRecord } from '../sessions/conversation.js';
import { agentText } from './to-acp.js';

/**
 * The updates that show the whole conversation again, in order: per turn its prompt blocks as
 * `user_message_chunk`s, its reasoning as one `agent_thought_chunk`, its answer as one
 * `agent_message_chunk`; a `/clear` or `/compact` as the command and its outcome.
 */
export function replayUpdates(records: readonly ConversationRecord[]): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const user = (text: string): SessionUpdate => ({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text } });
  for (const record of records) {
    if (record.type === 'clear') updates.push(user('/clear'), agentText(CLEARED_TEXT));
    else if (record.type === 'compact') updates.push(user('/compact'), agentText(compactedText(record.summary)));
    else {
      for (const block of record.prompt) updates.push({ sessionUpdate: 'user_message_chunk', content: block });
      if (record.reasoning) updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: record.reasoning } });
      if (record.assistant) updates.push(agentText(record.assistant));
    }
  }
  return updates;
}
