/**
 * How a model request ended, and the outcome of one that failed: a failure in the user's words
 * (`openai/user-errors.ts`, `failure-hints.ts`, scrubbed by `shared/redact.ts`), or, before anything
 * was shown, a context overflow or a chat template that refused the tools handed back to the caller.
 */
import type { StopReason, Usage } from '@agentclientprotocol/sdk/unstable';
import type { LearnedWindows } from '../endpoints/learned-windows.js';
import type { ChatCompletionsClient, ChatRequest } from '../openai/chat-client.js';
import type { ChatStreamResult } from '../openai/chat-stream-accumulator.js';
import { recognizeOverflow } from '../openai/context-overflow.js';
import { ProviderError, ProviderHttpError, ProviderReportedError } from '../openai/errors.js';
import { describeFailure } from '../openai/failure-hints.js';
import type { ChatErrorObject } from '../openai/openai-types.js';
import { reportedCost } from '../openai/reported-cost.js';
import { isToolTemplateError } from '../openai/tools-unsupported.js';
import { describeContextOverflow } from '../openai/user-errors.js';
import { errorMeta, type ErrorMeta } from '../openai/failure-facts.js';
import type { Logger } from '../shared/log.js';
import { redactText } from '../shared/redact.js';
import type { CostMeter } from './cost-meter.js';
import type { AnswerToolCall, LoopTurn } from './loop-input.js';
import { agentText, mapFinishReason, toAcpUsage, usageUpdate } from './to-acp.js';

/** How a model request ended. */
export interface ModelRequestOutcome {
  stopReason: StopReason;
  /** Token usage of the request, when the provider reported it. */
  usage?: Usage;
  /** Set when the request failed before the model finished its answer; its `message` is the failure in the user's words. */
  error?: ErrorMeta;
  /** The assistant text the user saw (complete, or partial when cancelled or broken off). */
  text: string;
  /** The reasoning text the user saw. */
  reasoning: string;
  /** The tool calls the answer asked for, complete, in order (none when it failed or was cancelled). */
  toolCalls: AnswerToolCall[];
  /**
   * Set when the request failed because it is larger than the model's context window (see
   * `openai/context-overflow.ts`) and nothing had been shown yet: the user has NOT been told (the
   * caller prunes and retries, or gives up with `describeContextOverflow`); `error` is set too.
   * `window`: the window the answer stated, in tokens (already remembered for the endpoint and model).
   */
  overflow?: { window?: number };
  /**
   * Set when the server's chat template refused the request's tools or tool messages
   * (`isToolTemplateError`) and nothing had been shown: the user has NOT been told (the caller
   * switches to the text path and sends the step again); `error` is set too.
   */
  templateRefused?: true;
}

/** A request that failed: where it went, where its words go, and what the user had seen of its answer. */
export interface FailedRequest {
  chat: Pick<ChatCompletionsClient, 'options' | 'secrets'>;
  request: Pick<ChatRequest, 'model'>;
  send: LoopTurn['send'];
  logger: Logger;
  cost?: CostMeter | undefined;
  /** Context window in tokens; enables `usage_update`. */
  contextWindow?: number | undefined;
  /** How to give this server a larger window, for the words after an overflow. */
  windowFix?: string | undefined;
  /** Where a window stated by an overflow answer is remembered. @defaultValue nowhere */
  learned?: LearnedWindows | undefined;
  /** True when the request carried tools or tool messages: a template error is then `templateRefused`. */
  mayRefuseTools?: boolean | undefined;
  /** Attempts retried before the failure (for the words). */
  retries: number;
  /** The answer's LiteLLM cost header, when it had one. */
  costHeader: string | null | undefined;
  /** What the user saw of the answer (`AnswerReader.seen`). */
  seen: ChatStreamResult;
}

/**
 * The outcome of a request that failed with `error` (not a cancel). Never throws: the words are
 * told as an `agent_message_chunk` only after a whole answer (an error reported after its finish
 * reason, which then ends by that reason); otherwise they are the outcome's `error.message`, and
 * text already shown gets its line ended. An overflow or a refused template before anything was
 * shown comes back unexplained (see {@link ModelRequestOutcome}).
 */
export async function failedOutcome(error: unknown, at: FailedRequest): Promise<ModelRequestOutcome> {
  const { chat, request, send, logger, cost, seen } = at;
  const failure = error instanceof ProviderError ? error : undefined;
  if (
    at.mayRefuseTools &&
    failure instanceof ProviderHttpError &&
    !seen.text &&
    !seen.reasoning &&
    isToolTemplateError(failure.status, failure.providerMessage ?? failure.body)
  ) {
    logger.info("the chat template refused the request's tools", { model: request.model, status: failure.status });
    return { stopReason: 'end_turn', error: errorMeta(failure), text: '', reasoning: '', toolCalls: [], templateRefused: true };
  }
  const overflow = failure ? recognizeOverflow(failure) : undefined;
  if (overflow?.window) at.learned?.learn(chat.options.url, request.model, overflow.window);
  if (failure && overflow && !seen.text && !seen.reasoning) {
    logger.info('the request is over the context window', { model: request.model, ...overflow });
    return {
      stopReason: 'end_turn',
      error: errorMeta(failure),
      text: '',
      reasoning: '',
      toolCalls: [],
      overflow: overflow.window ? { window: overflow.window } : {},
      ...(seen.usage ? { usage: toAcpUsage(seen.usage) } : {}),
    };
  }
  const said = failure instanceof ProviderHttpError ? failure.providerMessage : failure?.message;
  const words = overflow
    ? redactText(`${describeContextOverflow(overflow, at.windowFix)}${said ? `\nThe provider said: ${said}` : ''}`, chat.secrets)
    : failure
      ? await describeFailure(failure, { model: request.model, retries: at.retries, secrets: chat.secrets, baseUrl: chat.options.baseUrl }, chat.options)
      : redactText(`Internal error in openai-acp: ${(error as Error)?.message ?? String(error)}`, chat.secrets);
  if (failure) logger.warn('model request failed', { kind: failure.kind, error: failure.message });
  else logger.error('model request failed with an internal error', { error: (error as Error)?.stack ?? String(error) });
  // An error reported inside the stream may follow a finish reason and come with the usage: both still count.
  const reported = failure instanceof ProviderReportedError;
  // An error reported after the model's finish reason leaves a whole answer: it ends by that reason,
  // not as a failure (unless the answer asked for tools, which are not run), its words told after it.
  const finished = reported && seen.finishReason !== null && seen.toolCalls.length === 0;
  const lineEnd = seen.text && !seen.text.endsWith('\n') ? '\n' : '';
  // A failure's words go in the prompt's error answer (app/prompt-failure.ts), shown once by the
  // client; the answer streamed so far ends its line, so a client's error block starts on a line of its own.
  if (finished) await send([agentText(`${lineEnd}${lineEnd}${words}\n`)]).catch(() => undefined);
  else if (lineEnd) await send([agentText(lineEnd)]).catch(() => undefined);
  if (reported && seen.usage) {
    cost?.take(reportedCost(seen.usage, at.costHeader));
    if (at.contextWindow) await send([usageUpdate(seen.usage, at.contextWindow, cost?.total)]).catch(() => undefined);
  }
  return {
    stopReason: finished ? mapFinishReason(seen.finishReason) : 'end_turn',
    ...(finished ? {} : { error: { ...(failure ? errorMeta(failure) : { kind: 'internal' as const, retryable: false }), message: words } }),
    text: seen.text,
    reasoning: seen.reasoning,
    toolCalls: [],
    ...(seen.usage ? { usage: toAcpUsage(seen.usage) } : {}),
  };
}

/** The failure an error reported inside the stream is (`{message, code, status_code}` as the provider wrote it). */
export function reportedError(url: string, error: ChatErrorObject): ProviderReportedError {
  const message = typeof error.message === 'string' && error.message ? error.message : JSON.stringify(error);
  const code = error.code !== undefined && error.code !== null ? String(error.code) : undefined;
  const status = typeof error.status_code === 'number' ? error.status_code : typeof error.code === 'number' ? error.code : undefined;
  return new ProviderReportedError(url, message, code, status);
}
