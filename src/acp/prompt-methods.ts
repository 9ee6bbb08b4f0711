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
import { markUsed } from '../sessions/session-memory.js';
import { sessionNotFound, type AgentState } from './agent-state.js';
import type { ClientPeer } from './client-peer.js';
import { updateSender, type PromptRunner } from './prompt-runner.js';
import { checkPromptBlocks } from './validate-params.js';

/** The parameters of `session/cancel` sent as a request (the SDK knows it only as a notification). */
export const cancelParams = z.object({ sessionId: z.string() }).passthrough();

/**
 * Runs `session/prompt` from the connection of `peer`: checks the blocks, answers an empty prompt
 * `end_turn` without a request upstream or a saved turn, and otherwise runs the turn once the
 * endpoints are known.
 * @throws {RequestError} -32002 for an unknown session (or one this connection did not open), -32602 for an invalid block.
 */
export async function prompt(
  state: AgentState,
  runner: PromptRunner,
  params: { sessionId: string; prompt: ContentBlock[] },
  client: AgentContext,
  signal: AbortSignal,
  peer: ClientPeer,
): Promise<PromptResponse> {
  const session = state.session(params.sessionId);
  // A session this connection did not open (new, load, resume, fork) is not its to prompt.
  if (!peer.sessions.has(session.id)) throw sessionNotFound(session.id);
  checkPromptBlocks(params.prompt);
  if (params.prompt.length === 0) return { stopReason: 'end_turn' };
  // A session/cancel from here on reaches the turn, even before the turn has started; so does
  // the end of this connection (its requests' signals abort).
  const arrived = state.sessions.arrive(session.id, signal);
  try {
    // An idle session's conversation left memory: read it again first.
    await state.useSession(session);
    await state.endpointsKnown();
    return await runner.run(session, params.prompt, updateSender(client, session.id), arrived.signal, client, peer);
  } finally {
    markUsed(session);
    state.quiet.worked();
    arrived.done();
  }
}

/**
 * Cancels the session's turn, or the prompt still arriving, when the connection of `peer` holds
 * the session; an unknown or idle session is no error. Answers `{}`.
 */
export function cancel(state: AgentState, params: { sessionId: string }, peer: ClientPeer): Record<string, never> {
  if (peer.sessions.has(params.sessionId) && state.sessions.cancel(params.sessionId)) state.logger.debug('turn cancelled', { sessionId: params.sessionId });
  return {};
}
