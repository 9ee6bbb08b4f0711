/**
 * One model request (a step of the turn) against the endpoint: stream it, show text and reasoning as they
 * arrive, and settle on a stop reason, usage and (on failure) an explanation.
 *
 * Wiring only: the chat client yields items, the answer reader (`answer-reader.ts`) reads them into
 * events to show and the answer, `to-acp` turns events into updates, `request-outcome.ts` turns failures
 * into words.
 */
import type { ChatCompletionsClient, ChatRequest } from '../openai/chat-client.js';
import type { StreamEvent } from '../openai/chat-stream-accumulator.js';
import { LITELLM_COST_HEADER, reportedCost } from '../openai/reported-cost.js';
import type { LearnedWindows } from '../endpoints/learned-windows.js';
import { AnswerReader } from './answer-reader.js';
import type { LoopTurn, TextToolCalls, TurnCallbacks } from './loop-input.js';
import { newMessageId } from './notify.js';
import { failedOutcome, reportedError, type ModelRequestOutcome } from './request-outcome.js';
import { eventsToUpdates, mapFinishReason, toAcpUsage, usageUpdate, type MessageIds } from './to-acp.js';

export type { ModelRequestOutcome } from './request-outcome.js';

/** What a model request needs. */
export interface ModelRequestInput {
  /** The endpoint's chat client. */
  chat: ChatCompletionsClient;
  request: ChatRequest;
  /** Where its updates, notices (here: tool calls read from text), logs and cost go, and its cancel (the turn's, a newer prompt, shutdown). */
  callbacks: Pick<LoopTurn, 'signal' | 'send'> & Pick<TurnCallbacks, 'logger' | 'notify' | 'cost'>;
  /** Context window in tokens; enables `usage_update`. */
  contextWindow?: number | undefined;
  /** Set when tools were offered: recognise tool calls written as text. */
  textToolCalls?: TextToolCalls | undefined;
  /** How to give this server a larger window (the profile's `contextWindowFix`), for the words after an overflow. */
  windowFix?: string | undefined;
  /** Where a window stated by an overflow answer is remembered (what the agent learned of the endpoint). @defaultValue nowhere */
  learned?: LearnedWindows | undefined;
  /** True when the request carries tools or tool messages: a template error is then returned as `templateRefused`. */
  mayRefuseTools?: boolean | undefined;
  /** The ACP message ids of this answer's text and reasoning. @defaultValue two fresh ids */
  messageIds?: MessageIds | undefined;
}

/**
 * Told once per session when the model's tool calls were read from its text.
 * @internal the tests look for these exact words in what is sent.
 */
export const TEXT_TOOL_CALLS_NOTICE = {
  once: 'text-tool-calls',
  severity: 'info',
  title: 'Tool calls read from text',
  description:
    "The model wrote its tool calls as text instead of the API's tool_calls, and openai-acp read them from the text. If calls go astray, run the model with a chat template that supports tools (llama.cpp: --jinja; Ollama: a model tagged for tools).",
} as const;

/**
 * Runs one model request. Never throws for provider failures or cancellation: a failure is reported as
 * `end_turn` with `error` set, its `message` the failure in the user's words (see `failedOutcome`); a
 * cancellation returns `cancelled` with what had been shown so far. A context overflow before
 * anything was shown is not explained: it comes back as `overflow` (see {@link ModelRequestOutcome}).
 */
export async function runModelRequest(input: ModelRequestInput): Promise<ModelRequestOutcome> {
  const { chat, request } = input;
  const { signal, send, cost, notify } = input.callbacks;
  const ids = input.messageIds ?? { text: newMessageId(), reasoning: newMessageId() };
  const reader = new AnswerReader(input.textToolCalls);
  let costHeader: string | null | undefined;
  let retries = 0;
  const progress = {
    get committed() {
      return reader.hasOutput;
    },
    get finished() {
      return reader.finished;
    },
    onRetry(attempt: number) {
      retries = attempt;
    },
    onAnswer(headers: { get(name: string): string | null | undefined }) {
      costHeader = headers.get(LITELLM_COST_HEADER);
    },
  };
  const show = async (events: StreamEvent[]) => {
    const updates = eventsToUpdates(events, ids);
    if (updates.length > 0) await send(updates);
  };
  try {
    for await (const batch of chat.stream(request, signal, progress)) {
      await show(reader.push(batch));
      if (reader.error) break;
    }
    await show(reader.flush());
    if (reader.error) throw reportedError(chat.options.url, reader.error);
    const { show: rest, answer } = reader.end();
    await show(rest);
    if (answer.fromText) await notify?.(TEXT_TOOL_CALLS_NOTICE);
    const { text, reasoning, toolCalls } = answer;
    const outcome: ModelRequestOutcome = { stopReason: mapFinishReason(answer.finishReason), text, reasoning, toolCalls };
    if (answer.usage) {
      outcome.usage = toAcpUsage(answer.usage);
      cost?.take(reportedCost(answer.usage, costHeader));
      if (input.contextWindow) await send([usageUpdate(answer.usage, input.contextWindow, cost?.total)]);
    }
    return outcome;
  } catch (error) {
    const seen = reader.seen();
    if (signal.aborted) return { stopReason: 'cancelled', text: seen.text, reasoning: seen.reasoning, toolCalls: [] };
    return failedOutcome(error, { ...input, ...input.callbacks, retries, costHeader, seen });
  }
}
