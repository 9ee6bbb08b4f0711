/**
 * One model request of the agent loop with its messages fitted to the context window: the
 * keeper's plan (cuts, stubs, a compaction told as such), the text path for a template without
 * tools, the answer's cap, and the recovery from an answer saying the prompt was over the window
 * (retried smaller, the window learned for the next turn). The steps around it are `agent-loop.ts`.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { ChatCompletionsClient, ChatRequest } from '../openai/chat-client.js';
import type { ChatMessage } from '../openai/openai-types.js';
import type { Logger } from '../log.js';
import type { ContextKeeper, ContextSources } from '../context/context-keeper.js';
import { answerRoom } from '../context/token-estimate.js';
import type { LearnedWindows } from '../endpoints/learned-windows.js';
import { respellToolCallIds } from '../context/tool-call-ids.js';
import type { ToolMessageRules } from '../context/tool-messages.js';
import { agentText, agentThought, stepMessageIds } from './to-acp.js';
import type { Notify } from './notify.js';
import { compactionEnded, compactionStarted, compactionSummary } from './compaction-updates.js';
import type { CostMeter } from './cost-meter.js';
import { describeContextOverflow } from '../openai/user-errors.js';
import { runModelRequest, type TextToolCalls, type ModelRequestOutcome } from './model-request.js';
import { toTextToolPath } from '../context/text-tool-path.js';
import type { TextToolPaths } from '../endpoints/text-tool-path.js';
import { opensLikeCall } from '../tools/calls/text/text-call-hold.js';

/** The tool definitions of one request (its `tools`). */
type ToolDefinitions = NonNullable<ChatRequest['tools']>;

/** What {@link fittedRequest} reads of the loop's input (`AgentLoopInput`, its memories given). */
export interface FittedRequestInput {
  client: ChatCompletionsClient;
  request: Omit<ChatRequest, 'messages'>;
  context: ContextSources;
  toolMessageRules: ToolMessageRules;
  textToolCalls?: ((definitions: ToolDefinitions, textPath: boolean) => TextToolCalls) | undefined;
  textPaths: TextToolPaths;
  learned: LearnedWindows;
  signal: AbortSignal;
  send: (updates: SessionUpdate[]) => Promise<void>;
  logger: Logger;
  cost?: CostMeter | undefined;
  notify?: Notify | undefined;
  compactionUpdates?: boolean | undefined;
}

/** A compaction made inside the turn, for the record (and so for a replay in place). */
export interface TurnCompaction {
  /** Its ACP `compactionId`. */
  id: string;
  /** The steps of the turn done before it (it was made before request `beforeStep`, 0-based). */
  beforeStep: number;
  /** The summary that replaced the earlier context. */
  summary: string;
}

/**
 * One model request with its messages fitted to the window: the user is told of a compaction or
 * of history left out; an answer saying the prompt was over the window is retried smaller
 * (bounded, `ContextKeeper.overflow`), then the turn ends with a message naming the window and the
 * fix. For an endpoint and model on the text path (`endpoints/text-tool-path.ts`) the request is
 * spelled by `toTextToolPath`; a template error answering a request with tools puts them there
 * and sends the same step again, once. `{ stop }` when the turn must end (the user was told).
 */
export async function fittedRequest(
  input: FittedRequestInput,
  keeper: ContextKeeper,
  offer: { definitions: ToolDefinitions } | undefined,
  at: { turnId: string; step: number; compactions: TurnCompaction[] },
): Promise<ModelRequestOutcome | { stop: true; usage?: undefined }> {
  const { signal, send, logger } = input;
  /** The compaction under way in this preparation, when the client is told of compactions as entities. */
  let compactionId: string | undefined;
  const summarize = async (messages: ChatMessage[]) => {
    if (input.compactionUpdates) {
      compactionId = `${at.turnId}-c${at.compactions.length}`;
      await send([compactionStarted(compactionId)]);
    }
    // Capped like every request of the turn: a summary that repeats itself stops at the answer's room.
    const request: ChatRequest = { ...input.request, messages };
    if (request.maxTokens === undefined && keeper.contextWindow !== undefined) request.maxTokens = answerRoom(keeper.contextWindow);
    const summary = await runModelRequest({ client: input.client, request, signal, send: async () => undefined, logger, cost: input.cost });
    return summary.error || summary.stopReason === 'cancelled'
      ? undefined
      : {
          text: summary.text,
          // Small models answer a summary request with a call, even without tools.
          toolCalls: summary.toolCalls.length + (opensLikeCall(summary.text) ? 1 : 0),
          cut: summary.stopReason === 'max_tokens',
        };
  };
  const tools = offer && offer.definitions.length > 0 ? offer.definitions : undefined;
  const paths = input.textPaths;
  const url = input.client.options.url;
  /** Set once an overflow answer named no window and the keeper guessed a smaller one. */
  let guessed = false;
  let overflowed: number | undefined;
  for (;;) {
    compactionId = undefined;
    const prepared = await keeper.prepare(tools, summarize);
    if ('stop' in prepared) {
      if (compactionId) await send([compactionEnded(compactionId, 'failed', prepared.stop)]);
      logger.warn('turn ended: the context window is too small', { contextWindow: keeper.contextWindow });
      await send([agentText(prepared.stop)]);
      return { stop: true };
    }
    let notices = prepared.notices;
    if (compactionId) {
      // The keeper's first notice is the compaction's (`compactionNotice`): told as the entity instead.
      const summary = keeper.state().summary ?? '';
      logger.info(notices[0] ?? 'context compacted');
      notices = notices.slice(1);
      await send([...(summary ? [compactionSummary(compactionId, summary)] : []), compactionEnded(compactionId, signal.aborted ? 'cancelled' : 'completed')]);
      at.compactions.push({ id: compactionId, beforeStep: at.step, summary });
    }
    const messages = respellToolCallIds(prepared.messages, input.toolMessageRules);
    // A template that cannot take tools: they go in the system message, calls and results as text
    // (also for a request without tools whose history has tool calls, e.g. /compact's).
    const toolShaped = tools !== undefined || messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0));
    const textPath = toolShaped && paths.has(url, input.request.model);
    const pathNotice = textPath ? paths.takeNotice(url, input.request.model) : undefined;
    if (pathNotice) {
      logger.info(pathNotice);
      if (input.notify)
        await input.notify({ severity: 'info', title: 'Tools sent as text', description: pathNotice, fallback: { text: `${pathNotice}\n\n`, as: 'thought' } });
      else notices = [...notices, pathNotice];
    }
    for (const notice of notices) {
      logger.info(notice);
      await send([agentThought(`${notice}\n\n`)]);
    }
    const request: ChatRequest = { ...input.request, messages: textPath ? toTextToolPath(messages, tools ?? []) : messages };
    if (tools && !textPath) request.tools = tools;
    // The answer's cap is the room the plan left it, so a model repeating itself stops there instead of filling the window.
    if (request.maxTokens === undefined && keeper.contextWindow !== undefined) request.maxTokens = answerRoom(keeper.contextWindow);
    const names = tools?.length ?? 0;
    const mayRefuseTools = !textPath && toolShaped;
    const outcome = await runModelRequest({
      client: input.client,
      request,
      signal,
      send,
      contextWindow: keeper.contextWindow,
      windowFix: input.context.windowFix,
      learned: input.learned,
      logger,
      textToolCalls: offer && names > 0 ? input.textToolCalls?.(offer.definitions, textPath) : undefined,
      mayRefuseTools,
      messageIds: stepMessageIds(at.turnId, at.step),
      cost: input.cost,
      // On the text path, calls written as text are what was asked for: the text path's notice says it all.
      notify: textPath ? undefined : input.notify,
    });
    if (outcome.templateRefused) {
      // Once: the step goes again on the text path, where a refusal is explained like any failure.
      logger.warn('the chat template cannot take tools; using the text path for this endpoint and model', { model: input.request.model });
      paths.use(url, input.request.model, 'template-error');
      continue;
    }
    if (!outcome.overflow) {
      keeper.calibrate(outcome.usage?.inputTokens);
      // The size that worked after an overflow that named no window is remembered, so the next turn starts there.
      if (guessed && !outcome.error && keeper.contextWindow !== undefined) {
        input.learned.learn(input.client.options.url, input.request.model, keeper.contextWindow);
        logger.info('remembering the context window that worked after an overflow answer that named none', {
          model: input.request.model,
          contextWindow: keeper.contextWindow,
        });
      }
      if (overflowed !== undefined && !outcome.error && outcome.stopReason !== 'cancelled')
        await input.notify?.(overflowRecovered(keeper.contextWindow ?? overflowed, input.context.windowFix));
      return outcome;
    }
    overflowed = outcome.overflow.window ?? keeper.contextWindow ?? 0;
    logger.warn('the server says the prompt is over the context window', { contextWindow: keeper.contextWindow, told: outcome.overflow.window });
    if (outcome.overflow.window === undefined) guessed = true;
    if (!keeper.overflow(outcome.overflow.window)) {
      await send([
        agentText(
          `${keeper.steps.length > 0 ? '\n\n' : ''}${describeContextOverflow({ window: outcome.overflow.window ?? keeper.contextWindow }, input.context.windowFix)}`,
        ),
      ]);
      return { ...outcome, error: outcome.error ?? { kind: 'http', retryable: false } };
    }
  }
}

/** Told once per session when a request over the window was sent again smaller and went through. */
function overflowRecovered(window: number, windowFix: string | undefined): Parameters<Notify>[0] {
  const size = window > 0 ? ` (${String(Math.round(window)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} tokens)` : '';
  return {
    once: 'overflow-recovered',
    severity: 'warning',
    title: 'Request cut to fit the context window',
    description: `The server said the request was over the model's context window${size}, so openai-acp sent it again with less of the history. To give the model more room: ${windowFix ?? 'run it with a larger context window and set OPENAI_CONTEXT_WINDOW to it'}.`,
  };
}
