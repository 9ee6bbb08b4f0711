/**
 * One model request (a step of the turn) against the endpoint: stream it, forward text and reasoning as they
 * arrive, and settle on a stop reason, usage and (on failure) an explanation.
 *
 * Wiring only: the chat client yields items, the accumulator turns them into events, `to-acp` turns
 * events into updates, `user-errors` turns failures into words.
 */
import type { StopReason, Usage } from '@agentclientprotocol/sdk/unstable';
import type { ChatCompletionsClient, ChatRequest } from '../openai/chat-client.js';
import { ProviderError, ProviderHttpError, ProviderReportedError } from '../openai/errors.js';
import type { ChatErrorObject } from '../openai/openai-types.js';
import { agentText, eventsToUpdates, mapFinishReason, toAcpUsage, usageUpdate, type MessageIds } from './to-acp.js';
import { newMessageId } from './notify.js';
import type { AnswerToolCall, LoopTurn, TextToolCalls, TurnCallbacks } from './loop-input.js';
import { LITELLM_COST_HEADER, reportedCost } from '../openai/reported-cost.js';
import { ChatStreamAccumulator, type StreamEvent } from '../openai/chat-stream-accumulator.js';
import { canonicalArguments } from './loop-guard.js';
import { describeContextOverflow } from '../openai/user-errors.js';
import { errorMeta, type ErrorMeta } from '../openai/failure-facts.js';
import { recognizeOverflow } from '../openai/context-overflow.js';
import type { LearnedWindows } from '../endpoints/learned-windows.js';
import { describeFailure } from '../openai/failure-hints.js';
import { isToolTemplateError } from '../openai/tools-unsupported.js';
import { redactText } from '../shared/redact.js';

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
  /** Where a window stated by an overflow answer is remembered (the endpoint's memory). @defaultValue nowhere */
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
 * Runs one model request. Never throws for provider failures or cancellation: a failure is explained to
 * the user as an `agent_message_chunk` and reported as `end_turn` with `error` set; a
 * cancellation returns `cancelled` with what had been shown so far. A context overflow before
 * anything was shown is not explained: it comes back as `overflow` (see {@link ModelRequestOutcome}).
 */
export async function runModelRequest(input: ModelRequestInput): Promise<ModelRequestOutcome> {
  const { chat, request } = input;
  const { signal, send, logger, cost, notify } = input.callbacks;
  const ids = input.messageIds ?? { text: newMessageId(), reasoning: newMessageId() };
  const accumulator = new ChatStreamAccumulator();
  let costHeader: string | null | undefined;
  let finished = false;
  let retries = 0;
  const progress = {
    get committed() {
      return accumulator.hasOutput;
    },
    get finished() {
      return finished;
    },
    onRetry(attempt: number) {
      retries = attempt;
    },
    onAnswer(headers: { get(name: string): string | null | undefined }) {
      costHeader = headers.get(LITELLM_COST_HEADER);
    },
  };
  // Text from where a tool call written as text may begin is kept back (see TextToolCalls).
  const screen = input.textToolCalls?.screen();
  const forward = async (events: StreamEvent[]) => {
    if (screen) events = events.flatMap((event): StreamEvent[] => (event.type === 'text' ? shownPart(screen.push(event.text)) : [event]));
    const updates = eventsToUpdates(events, ids);
    if (updates.length > 0) await send(updates);
  };
  try {
    let streamError: ChatErrorObject | undefined;
    for await (const batch of chat.stream(request, signal, progress)) {
      const events: StreamEvent[] = [];
      for (const item of batch) accumulator.pushInto(item, events);
      for (const event of events) {
        if (event.type === 'finish') finished = true;
        else if (event.type === 'error') streamError ??= event.error;
      }
      await forward(events);
      if (streamError) break;
    }
    await forward(accumulator.flush());
    if (streamError) throw reportedError(chat.options.url, streamError);
    const result = accumulator.result();
    let toolCalls: AnswerToolCall[] = result.toolCalls;
    let text = result.text;
    if (screen && input.textToolCalls) {
      const read = input.textToolCalls.read(text);
      const shown = text.slice(0, screen.shownLength);
      if (read.calls.length > 0) {
        // The prose before the calls not yet shown (kept back by a marker that was none) is shown; what follows the calls is not.
        const rest = read.prose.length > shown.length ? read.prose.slice(shown.length) : '';
        if (rest) await send(eventsToUpdates([{ type: 'text', text: rest }], ids));
        text = shown + rest;
        toolCalls = withTextCalls(read.calls, toolCalls);
        await notify?.(TEXT_TOOL_CALLS_NOTICE);
      } else {
        if (text.length > shown.length) await send(eventsToUpdates([{ type: 'text', text: text.slice(shown.length) }], ids));
        // A server that put the whole answer in the reasoning (thinking forced open) puts the call there too.
        const inReasoning = toolCalls.length === 0 ? input.textToolCalls.read(result.reasoning, true).calls : [];
        if (inReasoning.length > 0) {
          toolCalls = inReasoning;
          await notify?.(TEXT_TOOL_CALLS_NOTICE);
        }
      }
    }
    const outcome: ModelRequestOutcome = { stopReason: mapFinishReason(result.finishReason), text, reasoning: result.reasoning, toolCalls };
    if (result.usage) {
      outcome.usage = toAcpUsage(result.usage);
      cost?.take(reportedCost(result.usage, costHeader));
      if (input.contextWindow) await send([usageUpdate(result.usage, input.contextWindow, cost?.total)]);
    }
    return outcome;
  } catch (error) {
    const seen = accumulator.result();
    // Text kept back (a possible text tool call) was never shown: it is not part of what the user saw.
    if (screen) seen.text = seen.text.slice(0, screen.shownLength);
    if (signal.aborted) return { stopReason: 'cancelled', text: seen.text, reasoning: seen.reasoning, toolCalls: [] };
    const failure = error instanceof ProviderError ? error : undefined;
    if (
      input.mayRefuseTools &&
      failure instanceof ProviderHttpError &&
      !seen.text &&
      !seen.reasoning &&
      isToolTemplateError(failure.status, failure.providerMessage ?? failure.body)
    ) {
      logger.info("the chat template refused the request's tools", { model: request.model, status: failure.status });
      return { stopReason: 'end_turn', error: errorMeta(failure), text: '', reasoning: '', toolCalls: [], templateRefused: true };
    }
    const overflow = failure ? recognizeOverflow(failure) : undefined;
    if (overflow?.window) input.learned?.learn(chat.options.url, request.model, overflow.window);
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
      ? redactText(`${describeContextOverflow(overflow, input.windowFix)}${said ? `\nThe provider said: ${said}` : ''}`, chat.secrets)
      : failure
        ? await describeFailure(failure, { model: request.model, retries, secrets: chat.secrets, baseUrl: chat.options.baseUrl }, chat.options)
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
      cost?.take(reportedCost(seen.usage, costHeader));
      if (input.contextWindow) await send([usageUpdate(seen.usage, input.contextWindow, cost?.total)]).catch(() => undefined);
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
}

/** A text event for what may be shown now, or none. */
function shownPart(text: string): StreamEvent[] {
  return text === '' ? [] : [{ type: 'text', text }];
}

/**
 * The answer's calls: those read from its text first (the content comes before the structured
 * calls in a stream), then the structured ones; a text call that repeats a structured one (same
 * name, same arguments: a server that both parsed the call and left it in the content) once.
 */
function withTextCalls(read: readonly AnswerToolCall[], streamed: readonly AnswerToolCall[]): AnswerToolCall[] {
  const key = (call: AnswerToolCall) => `${call.name}\u0000${canonicalArguments(call.arguments)}`;
  const structured = new Set(streamed.map(key));
  return [...read.filter((call) => !structured.has(key(call))), ...streamed];
}

function reportedError(url: string, error: ChatErrorObject): ProviderReportedError {
  const message = typeof error.message === 'string' && error.message ? error.message : JSON.stringify(error);
  const code = error.code !== undefined && error.code !== null ? String(error.code) : undefined;
  const status = typeof error.status_code === 'number' ? error.status_code : typeof error.code === 'number' ? error.code : undefined;
  return new ProviderReportedError(url, message, code, status);
}
