/**
 * One `session/prompt`, start to end: a slash command (`/compact` in `compact-command.ts`, `/undo`
 * in `undo.ts`), or a model turn with the conversation trimmed to the context window (sent by
 * `model-sender.ts`), then the turn saved (`turn-record.ts`) before the answer goes out.
 */
import { RequestError, type AgentContext, type ContentBlock, type PromptResponse } from '@agentclientprotocol/sdk/unstable';
import { CLEARED_TEXT, lastToldMode, withNotes, withUnanswered, type LiveConversation } from '../sessions/conversation.js';
import { addRecord, liveConversationOf, unloadRecords } from '../sessions/session-memory.js';
import { promptToUserContent } from '../context/prompt-content.js';
import type { Arrival, Session } from '../sessions/session-manager.js';
import { SessionStoreError, titleFromPrompt, type SessionRecord } from '../sessions/session-store.js';
import { initPrompt, keptContextText, parseSlashCommand, slashHelpText, splitCommandPrompt } from './slash-commands.js';
import { agentText } from '../loop/to-acp.js';
import { newMessageId } from '../loop/notify.js';
import { costSince } from '../loop/cost-meter.js';
import { toolMessageRules } from '../context/tool-messages.js';
import { modeNoteFor, sessionMode } from '../loop/session-modes.js';
import type { AgentState } from './agent-state.js';
import type { ClientPeer } from './client-peer.js';
import { compactConversation } from './compact-command.js';
import { configOptions } from './session-config.js';
import { turnExtras } from '../loop/turn-extras.js';
import type { PromptTurn } from '../loop/prompt-turn.js';
import { undoPrompt } from './undo.js';
import { ModelSender } from './model-sender.js';
import { turnResponse } from './prompt-failure.js';
import { cancelAwareSink } from './turn-cancel.js';
import { leavesRecord, turnRecord } from './turn-record.js';

/** Runs prompts; one instance per agent. */
export class PromptRunner {
  /** The model side of each turn, with each session's cost meter. */
  private readonly model: ModelSender;

  constructor(private readonly state: AgentState) {
    this.model = new ModelSender(state, (session, record) => this.save(session, record));
  }

  /**
   * The {@link PromptTurn} of a prompt to `session` from `client`, whose connection is `peer` (what
   * it advertised), placed in the session's line by `placed` (its signal and steering inbox): built
   * once, where the turn starts (`session/prompt`, a steering message that starts a turn). Its
   * updates go to every holder (`LiveSession.turnSink`), its requests (permission, files) to `client`.
   */
  start(session: Session, client: AgentContext, peer: ClientPeer, placed: Arrival): PromptTurn {
    // Once the turn is cancelled, nothing of its answer is sent (turn-cancel.ts).
    const send = cancelAwareSink(this.state.liveOf(session).turnSink(client, peer), placed.signal);
    const extras = turnExtras({
      session,
      send,
      saveOptions: (options) => this.save(session, { type: 'meta', at: new Date().toISOString(), options }),
      configOptions: (s) => configOptions(this.state, s),
    });
    return {
      session,
      turnId: newMessageId(),
      signal: placed.signal,
      send,
      client,
      features: peer.features,
      capabilities: peer.capabilities,
      inbox: placed.inbox,
      extras,
    };
  }

  /**
   * Answers one prompt of `turn`, placed in the session's line by `placed` (its turn waits for the
   * prompts before it; its steering inbox is open while its agent loop runs). Never rejects for provider failures (they are explained to
   * the user); a store failure is logged and the answer still goes out, but for a session another
   * process took over meanwhile (its lease, `sessions/session-lease.ts`).
   * @throws {RequestError} -32603 naming the other process, with `{sessionId, reason: "busy"}`, when
   *   the turn could not be saved because another process took the session over.
   */
  async run(turn: PromptTurn, prompt: ContentBlock[], placed: Arrival): Promise<PromptResponse> {
    const { session, send } = turn;
    const problem = this.state.whyNoTurn();
    // The configuration's problem is the failure's words, shown once as the error's message.
    if (problem) return turnResponse({ stopReason: 'end_turn', error: { kind: 'config', retryable: false, message: problem } });
    const mcp = () => this.state.slotOf(session).tools?.mcp;
    // Command files changed since the list was sent: the client hears of it before the answer.
    const commands = await this.state.commands.refresh(this.state.slotOf(session), session.cwd, mcp());
    if (commands) await send([{ sessionUpdate: 'available_commands_update', availableCommands: commands }]);
    // A command may come as the last text block after context blocks (a shared file, a selection).
    const { line, context } = splitCommandPrompt(prompt);
    const command = parseSlashCommand(line);
    /** After a command that takes no arguments: its context is kept for the next prompt, and the user told. */
    const keep = async <T>(answer: T): Promise<T> => {
      if (context.length > 0 && command && command !== 'init') {
        const live = this.state.liveOf(session);
        live.kept = [...(live.kept ?? []), ...context];
        await send([agentText(keptContextText(context.length))]);
      }
      return answer;
    };
    if (command === 'help') {
      await send([agentText(slashHelpText(this.state.commands.list(this.state.slotOf(session))))]);
      return keep({ stopReason: 'end_turn' });
    }
    const answer = await this.state.slotOf(session).line.run<PromptResponse>(async (signal) => {
      if (signal.aborted) return { stopReason: 'cancelled' };
      if (command === 'clear') return keep(await this.clear(turn));
      if (command === 'compact') {
        const deps = { state: this.state, model: this.model, save: (s: Session, record: SessionRecord) => this.save(s, record) };
        return keep(await compactConversation(deps, turn, this.conversation(session)));
      }
      if (command === 'undo') return keep(await this.undo(turn));
      // A command that takes arguments takes its context with it.
      if (command === 'init') return this.init(turn, line, context);
      let expansion: Awaited<ReturnType<typeof this.state.commands.expand>>;
      try {
        expansion = await this.state.commands.expand(this.state.slotOf(session), line, mcp(), signal);
      } catch (error) {
        // Cancelled while an MCP prompt was fetched: the prompt answers `cancelled`, not an error.
        if (signal.aborted) return { stopReason: 'cancelled' };
        throw error;
      }
      if (expansion?.kind === 'error') {
        await send([agentText(expansion.message)]);
        return { stopReason: 'end_turn' };
      }
      return this.turn(turn, { asked: expansion ? [...context, ...expansion.prompt] : prompt, typed: expansion ? prompt : undefined });
    }, placed);
    const live = this.state.liveOf(session);
    const takenOver = live.takenOver;
    if (takenOver) {
      live.takenOver = undefined;
      throw new RequestError(-32603, takenOver.message, { sessionId: session.id, reason: 'busy' });
    }
    return answer;
  }

  private async clear({ session, send }: PromptTurn): Promise<PromptResponse> {
    await this.save(session, { type: 'clear', at: new Date().toISOString() });
    await send([agentText(CLEARED_TEXT)]);
    return { stopReason: 'end_turn' };
  }

  /** `/undo`: nothing goes to the model; files are restored through the client when it writes them (`undo.ts`). */
  private undo(turn: PromptTurn): Promise<PromptResponse> {
    const { session } = turn;
    const roots = this.state.slotOf(session).tools?.roots ?? { cwd: session.cwd, extra: [] };
    const saveUndo = () => this.save(session, { type: 'undo', at: new Date().toISOString() });
    return undoPrompt(turn, { roots, saveUndo });
  }

  /** `/init`: a model turn asked to survey the project and write AGENTS.md with the edit tools. */
  private async init(turn: PromptTurn, prompt: ContentBlock[], context: ContentBlock[] = []): Promise<PromptResponse> {
    const { session, send } = turn;
    const blocked = !this.state.config.tools
      ? 'tools are off (OPENAI_ACP_TOOLS=off)'
      : sessionMode(session) === 'read-only'
        ? 'the session is read-only: choose another mode first'
        : undefined;
    if (blocked) {
      await send([agentText(`/init cannot write AGENTS.md: ${blocked}.`)]);
      return { stopReason: 'end_turn' };
    }
    // The next turn's system prompt has the AGENTS.md this one writes (renewFacts).
    return this.turn(turn, { asked: initPrompt(prompt, context), typed: [...context, ...prompt], renewFacts: true });
  }

  /**
   * A model turn of `asked`. `typed`: what the user sent when `asked` is its expansion (a user
   * command, /init), kept for replay and the title; `renewFacts`: the next turn reads the prompt
   * facts afresh (/init). @defaultValue renewFacts false
   */
  private async turn(
    turn: PromptTurn,
    { asked, typed, renewFacts = false }: { asked: ContentBlock[]; typed?: ContentBlock[] | undefined; renewFacts?: boolean },
  ): Promise<PromptResponse> {
    const { session, send, turnId } = turn;
    const conversation = this.conversation(session);
    // Context shared with an earlier command that took no arguments goes in front.
    const live = this.state.liveOf(session);
    const kept = live.kept;
    live.kept = undefined;
    const prompt = kept ? withUnanswered(kept, asked) : asked;
    // The mode is told in the conversation when it changed since the model was last told (the system prompt and tools stay put).
    const mode = this.state.config.tools ? sessionMode(session) : undefined;
    const note = mode ? modeNoteFor(mode, lastToldMode(session.records)) : undefined;
    const before = this.model.meter(session).total;
    // The prompt is on disk before the model is asked, so a crash loses at most the answer: the
    // turn's record (same id) replaces it, an undo takes it back when the turn leaves none.
    await this.saveStarted(session, {
      type: 'turn',
      at: new Date().toISOString(),
      id: turnId,
      prompt,
      ...(typed ? { typed } : {}),
      assistant: '',
      reasoning: '',
      stopReason: 'cancelled',
    });
    // Another process took the session over: nothing is asked; `run` answers why.
    if (this.state.liveOf(session).takenOver) return { stopReason: 'cancelled' };
    // Messages the user sends from now on are this turn's (`_session/steering`).
    turn.inbox.open();
    const outcome = await this.model.ask(turn, {
      conversation,
      // So are changes of the instruction files and the date (the system prompt says them as the conversation began).
      current: (factsNote) => ({ role: 'user', content: promptToUserContent(withNotes([factsNote, note], withUnanswered(conversation.unanswered, prompt))) }),
      tools: true,
    });
    // What the user sent into the turn, the messages no answer followed included (they go in front of the next prompt).
    const steering = turn.inbox.close(outcome.steps.length + (outcome.text ? 1 : 0));
    if (leavesRecord(outcome, steering)) {
      const record = turnRecord(outcome, {
        at: new Date().toISOString(),
        id: turnId,
        prompt,
        typed,
        steering,
        modeNote: note,
        mode,
        renewFacts,
        cost: costSince(before, this.model.meter(session).total),
      });
      turn.extras.fill(record);
      await this.save(session, record);
      const title = session.title ? undefined : titleFromPrompt(typed ?? prompt);
      if (title) {
        session.title = title;
        const at = new Date().toISOString();
        await this.save(session, { type: 'meta', at, title });
        await send([{ sessionUpdate: 'session_info_update', title, updatedAt: at }]);
      }
    } else await this.saveStarted(session, { type: 'undo', at: new Date().toISOString() });
    return turnResponse(outcome);
  }

  /** The conversation sent to the model, its tool calls as the session's provider wants them (DeepSeek wants their reasoning back). */
  private conversation(session: Session): LiveConversation {
    const target = this.state.registry.resolve(session.model);
    return liveConversationOf(session, toolMessageRules(target?.endpoint.profile));
  }

  /** Writes `record` to disk only (the prompt of a turn starting, or its undo), not to the live session. */
  private saveStarted(session: Session, record: SessionRecord): Promise<void> {
    return this.save(session, record, false);
  }

  /** Keeps `record` in the session (unless not `live`) and on disk (durably, before the answer goes out); see {@link run} for a session taken over. */
  private async save(session: Session, record: SessionRecord, live = true): Promise<void> {
    if (live && record.type !== 'meta' && record.type !== 'undo') addRecord(session, record);
    try {
      await (await this.state.store).append(session.id, record);
    } catch (error) {
      // Deleted while its turn ran: nothing to save into.
      if (!this.state.sessions.get(session.id)) return;
      // Another process writes the session now: what this one holds is no longer its history (read
      // again, with the lease, before the next turn), and the prompt answers with the reason.
      if (error instanceof SessionStoreError && error.code === 'busy') {
        unloadRecords(session);
        this.state.liveOf(session).takenOver = error;
        return;
      }
      this.state.logger.error('could not save the session; this turn will be missing after a restart', {
        sessionId: session.id,
        error: (error as Error).message,
      });
    }
  }
}
