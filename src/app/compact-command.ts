/**
 * `/compact`: the model summarises the live conversation, and the summary replaces it (a
 * `compact` record). A client that advertised `session.compaction` sees it as a compaction entity
 * (`compaction_update` in_progress, the summary as `compaction_summary_chunk`s, then completed,
 * failed or cancelled); any other client sees the summary as the answer and a closing line. An
 * answer that is a tool call, or one cut at its length limit, compacts nothing.
 */
import type { PromptResponse } from '@agentclientprotocol/sdk/unstable';
import { COMPACT_INSTRUCTION } from '../context/compaction.js';
import { promptToUserContent } from '../context/prompt-content.js';
import { estimateTextTokens } from '../context/token-estimate.js';
import { compactionEnded, compactionStarted, summaryToEntity } from '../loop/compaction-updates.js';
import { newMessageId } from '../loop/notify.js';
import { agentText, stepMessageIds, windowUsage } from '../loop/to-acp.js';
import { withUnanswered, type LiveConversation } from '../sessions/conversation.js';
import type { Session } from '../sessions/session.js';
import type { SessionRecord } from '../sessions/session-store.js';
import { opensLikeCall } from '../tools/index.js';
import type { AgentState } from './agent-state.js';
import type { ModelSender } from './model-sender.js';
import type { PromptTurn } from '../loop/prompt-turn.js';
import { turnResponse } from './prompt-failure.js';

/** What `/compact` runs with: the prompt runner's model side and its save. */
export interface CompactDeps {
  state: AgentState;
  model: ModelSender;
  /** Keeps a record in the session and on disk. */
  save: (session: Session, record: SessionRecord) => Promise<void>;
}

/**
 * Runs `/compact` on `conversation` (the session's live conversation as its model is sent it),
 * answering as a prompt turn does: `end_turn` when there is nothing to compact, else the
 * summary request's stop reason and usage, its failure in `_meta` (`prompt-failure.ts`).
 * Notices and compaction updates take the form the turn's connection advertised. The summary
 * request is the session's own request (its system prompt and tools, `tool_choice: "none"`) with
 * the instruction as the last user message, so a server's prefix cache reads only that.
 */
export async function compactConversation(deps: CompactDeps, turn: PromptTurn, conversation: LiveConversation): Promise<PromptResponse> {
  const { session, send, signal } = turn;
  if (conversation.turns.length === 0) {
    await send([agentText('Nothing to compact yet: there are no turns since the conversation started or was last cleared.')]);
    return { stopReason: 'end_turn' };
  }
  const compactionId = newMessageId();
  const entity = turn.features.compaction;
  if (entity) await send([compactionStarted(compactionId)]);
  const toModel = entity ? summaryToEntity(send, compactionId, stepMessageIds(compactionId, 0).text) : send;
  const outcome = await deps.model.ask(
    { ...turn, send: toModel, turnId: compactionId },
    {
      conversation,
      current: { role: 'user', content: promptToUserContent(withUnanswered(conversation.unanswered, [{ type: 'text', text: COMPACT_INSTRUCTION }])) },
      tools: true,
      answerOnly: true,
    },
  );
  // An answer that is a tool call (small models write one even without tools) is not a summary.
  const toolCall = outcome.stopReason === 'end_turn' && !outcome.error && (outcome.toolCalls.length > 0 || opensLikeCall(outcome.text));
  // An answer stopped at its cap (the room the window leaves it) is an incomplete summary.
  const cut = outcome.stopReason === 'max_tokens' && !outcome.error;
  if (toolCall && !entity) {
    await send([agentText('\n\n(That answer is a tool call, not a summary: nothing was compacted.)')]);
  } else if (cut && !entity) {
    await send([agentText('\n\n(The summary was cut at its length limit, so it is incomplete: nothing was compacted.)')]);
  } else if (!toolCall && outcome.stopReason === 'end_turn' && !outcome.error && outcome.text.trim()) {
    await deps.save(session, { type: 'compact', at: new Date().toISOString(), id: compactionId, summary: outcome.text.trim() });
    const turns = conversation.turns.length === 1 ? '1 earlier turn' : `${conversation.turns.length} earlier turns`;
    await send([entity ? compactionEnded(compactionId, 'completed') : agentText(`\n\n(Conversation compacted: this summary now replaces ${turns}.)`)]);
    // The meter follows: the context is now the summary.
    const known = await deps.state.windows.of(session, signal);
    if (known) await send([windowUsage(estimateTextTokens(outcome.text.trim()), known.window, deps.model.meter(session).total)]);
  } else if (entity) {
    const cancelled = outcome.stopReason === 'cancelled' || signal.aborted;
    const why = outcome.error
      ? 'The model could not write the summary (the error says why); the conversation is unchanged.'
      : toolCall
        ? 'The answer was a tool call, not a summary; the conversation is unchanged.'
        : cut
          ? 'The summary was cut at its length limit, so it is incomplete; the conversation is unchanged.'
          : 'The model wrote no summary; the conversation is unchanged.';
    await send([compactionEnded(compactionId, cancelled ? 'cancelled' : 'failed', why)]).catch(() => undefined);
  }
  return turnResponse(outcome);
}
