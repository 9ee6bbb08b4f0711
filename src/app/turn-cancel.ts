/**
 * A cancelled turn is exact: from the moment a `session/cancel` for it is read (its arrival's
 * signal aborts, `sessions/turn-line.ts`), nothing of its answer is sent and it answers
 * `cancelled`, whatever it was doing (streaming, a permission answer just given, a command
 * running, a tool result on its way). The signal is the one source of truth, read at the two places
 * that speak to the client: the update sink ({@link cancelAwareSink}) and the answer
 * ({@link cancelledOr}).
 *
 * Source: ACP prompt turn, cancellation (https://agentclientprotocol.com/protocol/v1/prompt-turn#cancellation):
 * "the Agent MUST respond to the original session/prompt request with the cancelled stop reason";
 * updates after the cancel may still report tool calls' final states, sent before the answer.
 */
import type { PromptResponse, SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { UpdateSink } from '../tools/index.js';

/**
 * What a cancelled turn still tells: the final state of a tool call it started (so a client does
 * not show it running for ever), and the session's own facts (title, usage meter, options,
 * commands). Never the answer's text, thoughts, plan, or a new tool call.
 */
const AFTER_CANCEL: ReadonlySet<SessionUpdate['sessionUpdate']> = new Set([
  'tool_call_update',
  'usage_update',
  'session_info_update',
  'config_option_update',
  'available_commands_update',
]);

/** Whether `update` may still be sent once the turn is cancelled. */
function sentAfterCancel(update: SessionUpdate): boolean {
  return AFTER_CANCEL.has(update.sessionUpdate);
}

/**
 * `send` that drops what a turn cancelled by `signal` must no longer say (its chunks, thoughts,
 * plan, new tool calls): each batch is filtered when it is handed over, so nothing of the answer
 * is queued after the cancel was read.
 */
export function cancelAwareSink(send: UpdateSink, signal: AbortSignal): UpdateSink {
  return async (updates) => {
    const kept = signal.aborted ? updates.filter(sentAfterCancel) : updates;
    if (kept.length > 0) await send(kept);
  };
}

/**
 * The answer of a turn whose cancel flag is `signal`: `cancelled` (with the usage spent so far,
 * never a failure) once the signal aborted, else `answer()` (which may throw a failure). A turn
 * that threw after its cancel was read answers `cancelled` too.
 */
export async function cancelledOr(signal: AbortSignal, answer: () => Promise<PromptResponse>): Promise<PromptResponse> {
  let response: PromptResponse;
  try {
    response = await answer();
  } catch (error) {
    if (signal.aborted) return { stopReason: 'cancelled' };
    throw error;
  }
  if (!signal.aborted) return response;
  return response.usage ? { stopReason: 'cancelled', usage: response.usage } : { stopReason: 'cancelled' };
}
