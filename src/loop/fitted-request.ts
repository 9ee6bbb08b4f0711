/**
 * One model request of the agent loop with its messages fitted to the context window: the
 * keeper's plan (cuts, stubs, a compaction told as such), the text path for a template without
 * tools, the answer's cap, and the recovery from an answer saying the prompt was over the window
 * (retried smaller, the window learned for the next turn). The steps around it are `agent-loop.ts`.
 */
import type { ChatRequest } from '../openai/chat-client.js';
import type { ChatMessage } from '../openai/openai-types.js';
import type { ContextKeeper } from '../context/context-keeper.js';
import { answerRoom } from '../context/token-estimate.js';
import { respellToolCallIds } from '../context/tool-call-ids.js';
import { toTextToolPath } from '../context/text-tool-path.js';
import { describeContextOverflow } from '../openai/user-errors.js';
import { type ChatToolDefinition, opensLikeCall, textCallReader } from '../tools/index.js';
import { compactionEnded, compactionStarted, compactionSummary } from './compaction-updates.js';
import type { AnswerToolCall, LoopTurn, TextToolCalls, TurnCallbacks, TurnEndpoint } from './loop-input.js';
import { runModelRequest, type ModelRequestOutcome } from './model-request.js';
import type { Notify } from './notify.js';
import { agentText, stepMessageIds } from './to-acp.js';
import { grouped } from '../shared/grouped.js';

/** The step a request is made for: its tools, and where it is in the turn. */
export interface RequestStep {
  /** The tools offered (the request's `tools`); empty: none. */
  tools: readonly ChatToolDefinition[];
  /** How to give this server a larger window (a clause of the provider profile), for the words after an overflow. */
  windowFix?: string | undefined;
  /** The steps of the turn done before this one. */
  index: number;
  /** The compactions made in the turn so far; one made for this request is added. */
  compactions: TurnCompaction[];
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

/** The endpoint a request goes to (what it learned present) and where the turn reports besides its updates. */
export interface FittedTurn {
  endpoint: Pick<TurnEndpoint, 'chat' | 'request' | 'toolMessageRules' | 'template'> & { learned: NonNullable<TurnEndpoint['learned']> };
  callbacks: TurnCallbacks;
}

/**
 * One model request of `turn` (its updates, cancel and id: message and compaction ids derive from it) with its messages fitted to the window: the user is told of a compaction or
 * of history left out; an answer saying the prompt was over the window is retried smaller
 * (bounded, `ContextKeeper.overflow`), then the turn ends with a message naming the window and the
 * fix. For an endpoint and model on the text path (`endpoints/learned-text-paths.ts`) the request is
 * spelled by `toTextToolPath`; a template error answering a request with tools puts them there
 * and sends the same step again, once. `{ stop }` when the turn must end: its words for the user.
 */
export async function fittedRequest(
  turn: Pick<LoopTurn, 'signal' | 'send' | 'turnId'>,
  { endpoint, callbacks }: FittedTurn,
  keeper: ContextKeeper,
  at: RequestStep,
): Promise<ModelRequestOutcome | { stop: string; usage?: undefined }> {
  const { signal, send } = turn;
  const { logger, notify } = callbacks;
  const { chat, learned } = endpoint;
  /** The compaction under way in this preparation, when the client is told of compactions as entities. */
  let compactionId: string | undefined;
  const summarize = async (messages: ChatMessage[], withTools = false, cap?: number) => {
    if (callbacks.compactionUpdates) {
      compactionId = `${turn.turnId}-c${at.compactions.length}`;
      await send([compactionStarted(compactionId)]);
    }
    // The session's own request is spelled as the turn's requests are (same bytes, same prefix), its answer asked in text.
    const request: ChatRequest = withTools ? summaryRequest(endpoint, messages, tools, paths.has(url, model)) : { ...endpoint.request, messages };
    // Capped like every request of the turn: a summary that repeats itself stops at the answer's room.
    if (request.maxTokens === undefined && keeper.contextWindow !== undefined) request.maxTokens = answerRoom(keeper.contextWindow);
    if (cap !== undefined) request.maxTokens = Math.min(request.maxTokens ?? cap, cap);
    const summary = await runModelRequest({ chat, request, callbacks: { signal, send: async () => undefined, logger, cost: callbacks.cost } });
    return summary.error || summary.stopReason === 'cancelled'
      ? undefined
      : {
          text: summary.text,
          // Small models answer a summary request with a call, even without tools.
          toolCalls: summary.toolCalls.length + (opensLikeCall(summary.text) ? 1 : 0),
          cut: summary.stopReason === 'max_tokens',
        };
  };
  const tools = at.tools.length > 0 ? at.tools : undefined;
  const paths = learned.textPaths;
  const url = chat.options.url;
  const model = endpoint.request.model;
  /** Set once an overflow answer named no window and the keeper guessed a smaller one. */
  let guessed = false;
  let overflowed: number | undefined;
  for (;;) {
    compactionId = undefined;
    const prepared = await keeper.prepare(tools, summarize);
    if ('stop' in prepared) {
      if (compactionId) await send([compactionEnded(compactionId, 'failed', prepared.stop)]);
      logger.warn('turn ended: the context window is too small', { contextWindow: keeper.contextWindow });
      return { stop: prepared.stop };
    }
    let notices = prepared.notices;
    if (compactionId) {
      // The keeper's first notice is the compaction's (`compactionNotice`): told as the entity instead.
      const summary = keeper.state().summary ?? '';
      logger.info(notices[0] ?? 'context compacted');
      notices = notices.slice(1);
      await send([...(summary ? [compactionSummary(compactionId, summary)] : []), compactionEnded(compactionId, signal.aborted ? 'cancelled' : 'completed')]);
      at.compactions.push({ id: compactionId, beforeStep: at.index, summary });
    }
    const messages = respellToolCallIds(prepared.messages, endpoint.toolMessageRules);
    // A template that cannot take tools: they go in the system message, calls and results as text
    // (also for a request without tools whose history has tool calls, e.g. /compact's).
    const toolShaped = tools !== undefined || messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0));
    const textPath = toolShaped && paths.has(url, model);
    const pathNotice = textPath ? paths.takeNotice(url, model) : undefined;
    if (pathNotice) {
      logger.info(pathNotice);
      if (notify) await notify({ severity: 'info', title: 'Tools sent as text', description: pathNotice, fallback: { text: `${pathNotice}\n\n` } });
      else notices = [...notices, pathNotice];
    }
    for (const notice of notices) {
      logger.info(notice);
      // The agent's own words, never a thought: a client shows thoughts as the model's (acpx `[thinking]`).
      await send([agentText(`${notice}\n\n`)]);
    }
    const request: ChatRequest = { ...endpoint.request, messages: textPath ? toTextToolPath(messages, tools ?? []) : messages };
    if (tools && !textPath) request.tools = tools;
    // The answer's cap is the room the plan left it, so a model repeating itself stops there instead of filling the window.
    if (request.maxTokens === undefined && keeper.contextWindow !== undefined) request.maxTokens = answerRoom(keeper.contextWindow);
    const outcome = await runModelRequest({
      chat,
      request,
      // On the text path, calls written as text are what was asked for: the text path's notice says it all.
      callbacks: { signal, send, logger, cost: callbacks.cost, notify: textPath ? undefined : notify },
      contextWindow: keeper.contextWindow,
      windowFix: at.windowFix,
      learned: learned.windows,
      textToolCalls: tools ? textToolCallRecogniser(tools, textPath, endpoint.template) : undefined,
      mayRefuseTools: !textPath && toolShaped,
      messageIds: stepMessageIds(turn.turnId, at.index),
    });
    if (outcome.templateRefused) {
      // Once: the step goes again on the text path, where a refusal is explained like any failure.
      logger.warn('the chat template cannot take tools; using the text path for this endpoint and model', { model });
      paths.use(url, model, 'template-error');
      continue;
    }
    if (!outcome.overflow) {
      keeper.calibrate(outcome.usage?.inputTokens);
      // The size that worked after an overflow that named no window is remembered, so the next turn starts there.
      if (guessed && !outcome.error && keeper.contextWindow !== undefined) {
        learned.windows.learn(url, model, keeper.contextWindow);
        logger.info('remembering the context window that worked after an overflow answer that named none', {
          model,
          contextWindow: keeper.contextWindow,
        });
      }
      if (overflowed !== undefined && !outcome.error && outcome.stopReason !== 'cancelled')
        await notify?.(overflowRecovered(keeper.contextWindow ?? overflowed, at.windowFix));
      return outcome;
    }
    overflowed = outcome.overflow.window ?? keeper.contextWindow ?? 0;
    logger.warn('the server says the prompt is over the context window', { contextWindow: keeper.contextWindow, told: outcome.overflow.window });
    if (outcome.overflow.window === undefined) guessed = true;
    if (!keeper.overflow(outcome.overflow.window)) {
      const words = describeContextOverflow({ window: outcome.overflow.window ?? keeper.contextWindow }, at.windowFix);
      return { ...outcome, error: { ...(outcome.error ?? { kind: 'http', retryable: false }), message: words } };
    }
  }
}

/**
 * The summary request with the turn's tools: the messages spelled as {@link fittedRequest} spells
 * every request (tool call ids, the text path), the tools offered as before with
 * `tool_choice: "none"` (the answer is text; the prompt the server builds keeps its prefix).
 */
function summaryRequest(
  endpoint: Pick<TurnEndpoint, 'request' | 'toolMessageRules'>,
  planned: ChatMessage[],
  tools: readonly ChatToolDefinition[] | undefined,
  textPath: boolean,
): ChatRequest {
  const messages = respellToolCallIds(planned, endpoint.toolMessageRules);
  const request: ChatRequest = { ...endpoint.request, messages: textPath ? toTextToolPath(messages, tools ?? []) : messages };
  if (tools && !textPath) {
    request.tools = tools;
    request.toolChoice = 'none';
  }
  return request;
}

/**
 * The recogniser of tool calls written as text, for the tools of one request (`textCallReader`
 * of `tools/`): each call read is handed on as a streamed one would be (`id` empty), with what
 * refusing it needs (`cut`, `refusal`, `hint`).
 * @internal built from tool definitions alone, so it is checked without a turn.
 * @param textPath - the request is spelled for the text path: a refusal's example uses its format.
 * @param template - the server's chat template, when known: its family's reader goes first.
 */
export function textToolCallRecogniser(definitions: readonly ChatToolDefinition[], textPath = false, template?: string): TextToolCalls {
  const reader = textCallReader(definitions, textPath, template);
  return {
    screen: reader.screen,
    read: (text, reasoning) => {
      const read = reader.read(text, reasoning);
      return { prose: read.prose, calls: read.calls.map((call): AnswerToolCall => ({ id: '', ...call })) };
    },
  };
}

/** Told once per session when a request over the window was sent again smaller and went through. */
function overflowRecovered(window: number, windowFix: string | undefined): Parameters<Notify>[0] {
  const size = window > 0 ? ` (${grouped(window)} tokens)` : '';
  return {
    once: 'overflow-recovered',
    severity: 'warning',
    title: 'Request cut to fit the context window',
    description: `The server said the request was over the model's context window${size}, so openai-acp sent it again with less of the history. To give the model more room: ${windowFix ?? 'run it with a larger context window and set OPENAI_CONTEXT_WINDOW to it'}.`,
  };
}
