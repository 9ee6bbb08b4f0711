/**
 * The prompt turn's methods: `session/prompt` (one turn, run by the {@link PromptRunner}) and
 * `session/cancel`, which reaches the turn even when it arrives before the turn has started.
 *
 * Sources: ACP prompt turn https://agentclientprotocol.com/protocol/v1/prompt-turn (cancellation:
 * the turn answers `stopReason: "cancelled"`); Open Design (`apps/daemon/src/acp.ts`) sends
 * `session/cancel` as a request with an id rather than a notification.
 */
import type { AgentContext, ContentBlock, PromptResponse } from '@agentclientprotocol/sdk/unstable';
import { z } from 'zod';
import { markUsed } from '../sessions/live-records.js';
import type { AgentState } from '../app/agent-state.js';
import type { ClientPeer } from '../app/client-peer.js';
import { promptUpdates, type LiveSession } from '../app/live-session.js';
import { promptResponse } from '../app/prompt-failure.js';
import { cancelledOr } from '../app/turn-cancel.js';
import { useSession } from '../app/session-upkeep.js';
import type { PromptRunner } from '../app/prompt-runner.js';
import { checkPromptBlocks } from './validate-params.js';

/** The parameters of `session/cancel` sent as a request (the SDK knows it only as a notification). */
export const cancelParams = z.object({ sessionId: z.string() }).passthrough();

/** Where a prompt came from: the request's client and signal, its connection, and the session it holds (`session-authority.ts`). */
export interface PromptSource {
  client: AgentContext;
  signal: AbortSignal;
  peer: ClientPeer;
  live: LiveSession;
}

/**
 * Runs `session/prompt` from the connection of `source.peer`, which holds the session: checks the
 * blocks, answers an empty prompt `end_turn` without a request upstream or a saved turn, and
 * otherwise runs the turn once the session's earlier prompts have ended (a prompt sent while a turn
 * runs waits for it), its conversation is in memory and the endpoints are known. As the turn
 * starts, the session's other holders are told the prompt (`user_message_chunk`s) and from then
 * on see its updates.
 * @throws {RequestError} -32602 for an invalid block, -32603 with `{kind, status?, retryable}` as
 *   data for a failed turn (`promptResponse`, prompt-failure.ts).
 */
export async function prompt(
  state: AgentState,
  runner: PromptRunner,
  params: { sessionId: string; prompt: ContentBlock[] },
  { client, signal, peer, live }: PromptSource,
): Promise<PromptResponse> {
  const { session } = live;
  checkPromptBlocks(params.prompt);
  if (params.prompt.length === 0) return { stopReason: 'end_turn' };
  // In line behind the session's earlier prompts; a session/cancel from here on reaches it, even
  // before its turn has started; so does the end of this connection (its requests' signals abort).
  const placed = live.line.arrive(signal);
  let ran: () => void = () => undefined;
  try {
    await placed.ready;
    ran = live.runFor(peer);
    void live.tell(promptUpdates(params.prompt), peer);
    // An idle session's conversation left memory: read it again first.
    await useSession(state, session);
    await state.endpointsKnown();
    // A failed turn answers with a JSON-RPC error (prompt-failure.ts); a turn whose cancel was read
    // by now answers `cancelled`, whatever it ended with (turn-cancel.ts).
    return await cancelledOr(placed.signal, async () => promptResponse(await runner.run(runner.start(session, client, peer, placed), params.prompt, placed)));
  } finally {
    ran();
    markUsed(session);
    state.quiet.worked();
    placed.done();
  }
}

/**
 * Cancels the session's turn and the prompts waiting for it, whoever's prompt runs it (any holder
 * may stop the session's turn): from here on they send nothing of their answers and answer
 * `cancelled` (`app/turn-cancel.ts`). A cancel for an unknown, finished or idle session is ignored. Answers `{}`.
 */
export function cancel(state: AgentState, params: { sessionId: string }, live: LiveSession | undefined): Record<string, never> {
  if (live?.line.cancel()) state.logger.debug('turn cancelled', { sessionId: params.sessionId });
  return {};
}
