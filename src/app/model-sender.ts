/**
 * The model side of one prompt turn (or of /compact): the live conversation plus the new message
 * sent to the session's model through the agent loop, with what the loop is given: the context
 * window and its notices, the turn's tools and the MCP notices, the system prompt with the
 * instruction files, the request's model and reasoning effort, what the agent learned of the endpoint, the
 * session's cost meter; all of it for one {@link PromptTurn}. What the turn keeps and answers is
 * `prompt-runner.ts`'s.
 */
import type { ChatRequest } from '../openai/chat-client.js';
import type { ChatMessage } from '../openai/openai-types.js';
import type { LiveConversation } from '../sessions/conversation.js';
import type { Session } from '../sessions/session.js';
import type { SessionRecord } from '../sessions/session-store.js';
import { DEFAULT_THOUGHT_LEVEL } from './model-picker.js';
import { agentText } from '../loop/to-acp.js';
import { CostMeter } from '../loop/cost-meter.js';
import { factsBeforeOf, savedCostOf, sentImages, usedToolCallIds } from '../sessions/live-records.js';
import { runAgentLoop, type AgentLoopOutcome } from '../loop/agent-loop.js';
import { defaultSystemPrompt } from '../context/system-prompt.js';
import { renderInstructions } from '../context/instructions.js';
import { turnFacts, type TurnFacts } from './turn-facts.js';
import { toolSettings } from '../tools/index.js';
import { toolMessageRules } from '../context/tool-messages.js';
import { mcpNotices, noToolsNotice, prepareTurnTools } from '../loop/turn-tools.js';
import type { AgentState } from './agent-state.js';
import { INSTRUCTIONS_OPTION } from './session-config.js';
import type { PromptTurn } from '../loop/prompt-turn.js';
import { heedServerToolSupport, serverChatTemplate } from '../endpoints/learned-text-paths.js';
import { watchLoading } from '../loop/loading-notice.js';

/** What {@link ModelSender.ask} sends besides the turn: the conversation so far and the new message. */
export interface TurnRequest {
  /** The live conversation the message follows. */
  conversation: LiveConversation;
  /** The new message; a function is given the note of what changed in the prompt facts since the model was last told. */
  current: ChatMessage | ((factsNote: string | undefined) => ChatMessage);
  /** A prompt (true: the agent loop with tools, the system prompt from the prompt facts) or a request without them (false: no tools, no inbox). */
  tools: boolean;
  /** A request answered in text (`/compact`): the turn's own request, tools offered with `tool_choice: "none"`, none run, no inbox. */
  answerOnly?: boolean | undefined;
}

/** What the model side of a turn gives back: the loop's outcome, and the prompt facts its system prompt and note said. */
export type SentTurn = AgentLoopOutcome & { facts?: TurnFacts | undefined };

/** Sends turns to the sessions' models; one per agent (inside its `PromptRunner`). */
export class ModelSender {
  /** @param save - keeps a record in the session and on disk (the tools' `meta` records of option changes). */
  constructor(
    private readonly state: AgentState,
    private readonly save: (session: Session, record: SessionRecord) => Promise<void>,
  ) {}

  /**
   * Sends the live conversation plus `current` to the session's model, trimmed to its context
   * window; with `tools` (a prompt, not /compact) and tools on, as an agent loop with tools,
   * its system prompt built from the session's prompt facts (`turn-facts.ts`, when the system
   * prompt is the default one), whose note of what changed `current` puts in front of the prompt.
   * Notices and compaction updates take the form the turn's connection advertised.
   */
  async ask(turn: PromptTurn, request: TurnRequest): Promise<SentTurn> {
    const { session, send, signal, turnId } = turn;
    const target = this.state.registry.resolve(session.model);
    if (!target) throw new Error('no endpoint'); // whyNoTurn() rules this out
    // From here to the first byte of the answer (an Ollama model may be loaded for the window), a loading model is told.
    const loading = watchLoading({
      model: target.model,
      look: (stop) => target.endpoint.loadState(target.model, stop),
      notify: this.state.notifier(session, send, turn.features),
      signal,
    });
    try {
      const outcome = await this.askWatched({ ...turn, send: loading.watched(send, turnId) }, request);
      // A server that went silent while it said it was loading: the words of the time limit say what it said.
      if (outcome.error?.kind === 'timeout' && loading.said) {
        const note = `(The server at ${target.endpoint.settings.baseUrl} was loading the model when the wait began: ${loading.said}.)`;
        return { ...outcome, error: { ...outcome.error, message: outcome.error.message ? `${outcome.error.message}\n${note}` : note } };
      }
      return outcome;
    } finally {
      loading.stop();
    }
  }

  /** {@link ask} with the turn's `send` watched for the answer's first byte. */
  private async askWatched(
    turn: PromptTurn,
    { conversation: { turns, summary, stubbed }, current, tools: withTools, answerOnly }: TurnRequest,
  ): Promise<SentTurn> {
    const { session, send, signal } = turn;
    const config = this.state.config;
    const target = this.state.registry.resolve(session.model)!;
    const notify = this.state.notifier(session, send, turn.features);
    const toolState = withTools && config.tools ? this.state.slotOf(session).tools : undefined;
    for (const notice of mcpNotices(toolState)) await notify(notice);
    // The window before the tools and the system prompt: it sizes fetch_url's and the instruction files' shares.
    const known = await this.state.windows.of(session, signal);
    const contextWindow = known?.window;
    const notice = this.state.windows.notice(session, known);
    if (notice) await notify(notice);
    const tools = toolState
      ? prepareTurnTools({
          session,
          state: toolState,
          client: turn.client,
          capabilities: turn.capabilities,
          profile: target.endpoint.profile,
          extras: turn.extras,
          logger: this.state.logger,
          saveOptions: (options) => this.save(session, { type: 'meta', at: new Date().toISOString(), options }),
          saveMcpTools: (mcpTools) => this.save(session, { type: 'mcp_tools', at: new Date().toISOString(), tools: mcpTools }),
          settings: toolSettings(config, contextWindow, this.state.allowances?.addresses),
          elicitation: turn.features.elicitation,
        })
      : undefined;
    // A llama.cpp template that says it takes no tools: the text path from the first request.
    if (tools) await heedServerToolSupport(target.endpoint, target.model, target.endpoint.learned.textPaths);
    const template = tools ? await serverChatTemplate(target.endpoint, target.model) : undefined;
    // The facts the conversation began with, and a note of what changed since the model was last told.
    const facts =
      tools && config.systemPrompt === undefined
        ? await turnFacts({
            records: session.records,
            before: factsBeforeOf(session),
            cwd: session.cwd,
            extra: toolState?.roots.extra,
            configDir: this.state.configDir,
            root: this.state.root,
            contextWindow,
            now: new Date(),
          })
        : undefined;
    const agentPrompt =
      config.systemPrompt ??
      (tools && facts
        ? defaultSystemPrompt({
            cwd: session.cwd,
            platform: process.platform,
            date: facts.system.date,
            tools: tools.builtinNames,
            instructions: renderInstructions(facts.system.instructions),
          })
        : undefined);
    // The client's own instructions for this session come after ours (which describe the tools).
    const clientInstructions = session.options[INSTRUCTIONS_OPTION];
    const base = clientInstructions ? (agentPrompt ? `${agentPrompt}\n\n${clientInstructions}` : clientInstructions) : agentPrompt;
    const effort = this.state.picker.thoughtLevel(session);
    const request: Omit<ChatRequest, 'messages'> = { model: target.model, maxTokens: config.maxTokens, temperature: config.temperature, slotKey: session.id };
    if (answerOnly) request.toolChoice = 'none';
    if (effort !== DEFAULT_THOUGHT_LEVEL) request.reasoningEffort = effort;
    const outcome = await runAgentLoop(withTools && !answerOnly ? turn : { ...turn, inbox: undefined }, {
      context: {
        system: base,
        summary,
        turns,
        task: typeof current === 'function' ? current(facts?.note) : current,
        contextWindow,
        maxTokens: config.maxTokens,
        calibration: session.calibration,
        stubbed,
        windowFix: known?.fix,
      },
      endpoint: {
        chat: target.endpoint.client,
        request,
        template,
        toolMessageRules: toolMessageRules(target.endpoint.profile),
        takesImages: sentImages(session),
        learned: target.endpoint.learned,
      },
      tools: tools && { offer: tools.offer, session: tools.session, takenIds: usedToolCallIds(session), answerOnly },
      limits: { maxSteps: config.maxSteps },
      callbacks: { logger: this.state.logger, notify, cost: this.meter(session), compactionUpdates: turn.features.compaction },
    });
    if (tools && target.endpoint.client.takesNoTools(target.model)) await notify(noToolsNotice(target.model));
    // Once per model, after its first answer on Ollama's native API: part of it on the CPU at this window.
    const offload = outcome.stopReason === 'cancelled' ? undefined : await target.endpoint.nativeChat?.memoryNotice(target.model);
    if (offload) await send([agentText(`\n\n(${offload})`)]);
    if (outcome.calibration) session.calibration = outcome.calibration;
    return { ...outcome, facts };
  }

  /** The session's cost meter, started from the costs saved with its turns. */
  meter(session: Session): CostMeter {
    const live = this.state.sessions.of(session);
    return (live.cost ??= new CostMeter(savedCostOf(session), this.state.logger));
  }
}
