/**
 * A compaction told as an entity to a client that advertised `session.compaction`: started
 * (`in_progress`), its summary appended, then ended (`completed`, `failed` with a reason, or
 * `cancelled`). Pure.
 *
 * Source: ACP schema v1 `CompactionUpdate` / `CompactionSummaryChunk` ("Agents MUST only send this
 * update when the Client advertised the `session.compaction` Client capability").
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { UpdateSink } from '../tools/index.js';

/** The update that starts compaction `compactionId`. */
export function compactionStarted(compactionId: string): SessionUpdate {
  return { sessionUpdate: 'compaction_update', compactionId, status: 'in_progress' };
}

/** A piece of the summary of compaction `compactionId`. */
export function compactionSummary(compactionId: string, text: string): SessionUpdate {
  return { sessionUpdate: 'compaction_summary_chunk', compactionId, content: { type: 'text', text } };
}

/** The update that ends compaction `compactionId`; `error` only with `failed`. */
export function compactionEnded(compactionId: string, status: 'completed' | 'cancelled' | 'failed', error?: string): SessionUpdate {
  return status === 'failed' && error
    ? { sessionUpdate: 'compaction_update', compactionId, status, error }
    : { sessionUpdate: 'compaction_update', compactionId, status };
}

/**
 * `send` with the chunks of the message `summaryMessageId` (the model writing the summary) turned
 * into the compaction's summary chunks; every other update goes through unchanged.
 */
export function summaryToEntity(send: UpdateSink, compactionId: string, summaryMessageId: string): UpdateSink {
  return (updates) =>
    send(
      updates.map((u) =>
        u.sessionUpdate === 'agent_message_chunk' && u.messageId === summaryMessageId && u.content.type === 'text'
          ? compactionSummary(compactionId, u.content.text)
          : u,
      ),
    );
}
