/**
 * A failed turn as clients see a failure: the `session/prompt` request answered with a JSON-RPC
 * error (-32603, a short message, the kind of failure in `data`) instead of a `stopReason`. The
 * explanation stays in the conversation: it was sent as an `agent_message_chunk` before, and the
 * turn was saved (with what the model had answered) before this response goes out.
 *
 * The convention is the one of Claude's ACP agent (agentclientprotocol/claude-agent-acp @ f422c7c
 * `src/acp-agent.ts`: a result with `is_error` throws `RequestError.internalError(undefined,
 * result)`, whether or not text was streamed before) and of codex-acp (zed-industries/codex-acp
 * @ 3cd8e9e `src/thread.rs`: an `EventMsg::Error` answers the prompt with
 * `Error::internal_error().data({message, codex_error_info})`). A cancelled turn is not a
 * failure: it answers `stopReason: "cancelled"` (https://agentclientprotocol.com/protocol/v1/prompt-turn#cancellation).
 */
import { RequestError, type PromptResponse } from '@agentclientprotocol/sdk/unstable';
import type { AgentLoopOutcome } from '../loop/agent-loop.js';
import { failureSummary, type ErrorMeta } from '../openai/user-errors.js';
import { AGENT_NAME } from '../shared/version.js';

/**
 * The prompt runner's response for a turn's outcome: its `stopReason` and `usage`, and its failure,
 * when there was one, in `_meta["openai-acp"].error` (the kind of failure and whether asking again
 * may help), which {@link promptResponse} turns into the JSON-RPC error.
 */
export function turnResponse(outcome: Pick<AgentLoopOutcome, 'stopReason' | 'usage' | 'error'>): PromptResponse {
  const response: PromptResponse = { stopReason: outcome.stopReason };
  if (outcome.usage) response.usage = outcome.usage;
  return outcome.error ? { ...response, _meta: { [AGENT_NAME]: { error: outcome.error } } } : response;
}

/**
 * The response to `session/prompt` for `response` as the prompt runner made it: `response` itself,
 * unless it carries a failure (`_meta["openai-acp"].error`, set by {@link turnResponse}) and was
 * not cancelled.
 * @throws {RequestError} -32603 `Internal error: <the failure in a few words>` with the
 *   {@link ErrorMeta} (`{kind, status?, retryable}`) as `data`, for a failed turn.
 */
export function promptResponse(response: PromptResponse): PromptResponse {
  const failure = (response._meta?.[AGENT_NAME] as { error?: ErrorMeta } | undefined)?.error;
  if (!failure || response.stopReason === 'cancelled') return response;
  throw RequestError.internalError({ ...failure }, failureSummary(failure));
}
