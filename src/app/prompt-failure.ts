/**
 * A failed turn as clients show a failure once: the `session/prompt` request answered with a
 * JSON-RPC error (-32603) whose message is the failure in the user's words (the cause, the server
 * and its status, what to do) and whose `data` is the kind of failure (`{kind, status?,
 * retryable}`). The words are not also streamed as an `agent_message_chunk`: every client tried
 * shows the error's message where the user reads the answer, so a chunk would show them twice.
 * Text the model streamed before the failure ends its line first (`loop/request-outcome.ts`), so a
 * client that appends its error block to the answer (CodeCompanion) opens the block on a line of
 * its own. The turn was saved (with what the model had answered) before this response goes out.
 *
 * What the clients do with it (read in their code):
 * - CodeCompanion (olimorris/codecompanion.nvim @ f1afd02 `lua/codecompanion/acp/init.lua`,
 *   `interactions/chat/acp/handler.lua`): `handle_error` appends ```` ````txt\n<message>\n```` ````
 *   to the chat right after the streamed text, then the next `## Me` header.
 * - agent-shell (xenodium/agent-shell `agent-shell--make-error-handler`): a block
 *   `Error (<code>)` with the message and the raw answer under Details; the shell goes on.
 * - acpx (`normalizeOutputError`): `[error] RUNTIME: <message>`, exit code 1.
 * - Zed: the error's message in the thread's error callout.
 * Programs read the failure from the code and `data`, as from the reference agents
 * (agentclientprotocol/claude-agent-acp @ f422c7c `src/acp-agent.ts`: `RequestError.internalError`
 * for a result with `is_error`; zed-industries/codex-acp @ 3cd8e9e `src/thread.rs`:
 * `Error::internal_error().data({message, codex_error_info})`); unlike theirs, the message is not
 * the SDK's generic `Internal error`, which reads as the agent's own crash. A cancelled turn is no
 * failure: it answers `stopReason: "cancelled"` (https://agentclientprotocol.com/protocol/v1/prompt-turn#cancellation).
 */
import { RequestError, type PromptResponse } from '@agentclientprotocol/sdk/unstable';
import type { AgentLoopOutcome } from '../loop/agent-loop.js';
import { failureSummary, type ErrorMeta } from '../openai/failure-facts.js';
import { AGENT_NAME } from '../shared/version.js';

/** JSON-RPC's internal error code: the turn could not be done (https://www.jsonrpc.org/specification#error_object). */
const TURN_FAILED = -32603;

/**
 * The prompt runner's response for a turn's outcome: its `stopReason` and `usage`, and its failure,
 * when there was one, in `_meta["openai-acp"].error` (the kind of failure, whether asking again
 * may help, the user's words), which {@link promptResponse} turns into the JSON-RPC error.
 */
export function turnResponse(outcome: Pick<AgentLoopOutcome, 'stopReason' | 'usage' | 'error'>): PromptResponse {
  const response: PromptResponse = { stopReason: outcome.stopReason };
  if (outcome.usage) response.usage = outcome.usage;
  return outcome.error ? { ...response, _meta: { [AGENT_NAME]: { error: outcome.error } } } : response;
}

/** The words of a failure: its own, else its summary as a sentence (`The endpoint answered HTTP 500.`). */
function failureWords(failure: ErrorMeta): string {
  const words = failure.message?.trim() || failureSummary(failure);
  return `${words[0]!.toUpperCase()}${words.slice(1)}${/[.!?]$/.test(words) ? '' : '.'}`;
}

/**
 * The response to `session/prompt` for `response` as the prompt runner made it: `response` itself,
 * unless it carries a failure (`_meta["openai-acp"].error`, set by {@link turnResponse}) and was
 * not cancelled.
 * @throws {RequestError} -32603 with the failure's words as its message ({@link failureWords}) and
 *   `{kind, status?, retryable}` as `data`, for a failed turn.
 */
export function promptResponse(response: PromptResponse): PromptResponse {
  const failure = (response._meta?.[AGENT_NAME] as { error?: ErrorMeta } | undefined)?.error;
  if (!failure || response.stopReason === 'cancelled') return response;
  const { message: _words, ...data } = failure;
  throw new RequestError(TURN_FAILED, failureWords(failure), data);
}
