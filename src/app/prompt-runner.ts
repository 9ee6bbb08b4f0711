/**
 * One `session/prompt`, start to end: its {@link PromptTurn} built, then a slash command (`/compact`
 * in `compact-command.ts`, `/undo` in `undo.ts`, a user command expanded, `user-commands.ts`) or a
 * model turn (`model-turn.ts`), run in the session's turn line; what it leaves is saved
 * (`turn-saving.ts`) before the answer goes out.
 */
import { RequestError, type AgentContext, type ContentBlock, type PromptResponse } from '@agentclientprotocol/sdk/unstable';
import { CLEARED_TEXT } from '../sessions/conversation.js';
import type { Session } from '../sessions/session.js';
import type { Arrival } from '../sessions/turn-line.js';
import type { SessionRecord } from '../sessions/session-store.js';
import { initPrompt, keptContextText, parseSlashCommand, slashHelpText, splitCommandPrompt } from './slash-commands.js';
import { agentText } from '../loop/to-acp.js';
import { newMessageId } from '../loop/notify.js';
import { sessionMode } from '../loop/session-modes.js';
import type { AgentState } from './agent-state.js';
import type { ClientPeer } from './client-peer.js';
import { compactConversation } from './compact-command.js';
import { configOptions } from './session-config.js';
import { turnExtras } from '../loop/turn-extras.js';
import type { PromptTurn } from '../loop/prompt-turn.js';
import { undoPrompt } from './undo.js';
import { ModelSender } from './model-sender.js';
import { ModelTurns } from './model-turn.js';
import { turnResponse } from './prompt-failure.js';
import { cancelAwareSink } from './turn-cancel.js';
import { TurnSaving } from './turn-saving.js';

/** Runs prompts; one instance per agent. */
export class PromptRunner {
  /** The model side of each turn, with each session's cost meter. */
  private readonly model: ModelSender;
  private readonly saving: TurnSaving;
  private readonly turns: ModelTurns;

  constructor(private readonly state: AgentState) {
    this.saving = new TurnSaving(state);
    this.model = new ModelSender(state, (session, record) => this.save(session, record));
    this.turns = new ModelTurns(state, this.model, this.saving);
  }

  /**
   * The {@link PromptTurn} of a prompt to `session` from `client`, whose connection is `peer` (what
   * it advertised), placed in the session's line by `placed` (its signal and steering inbox): built
   * once, where the turn starts (`session/prompt`, a steering message that starts a turn). Its
   * updates go to every holder (`LiveSession.turnSink`), its requests (permission, files) to `client`.
   */
  start(session: Session, client: AgentContext, peer: ClientPeer, placed: Arrival): PromptTurn {
    // Once the turn is cancelled, nothing of its answer is sent (turn-cancel.ts).
    const send = cancelAwareSink(this.state.sessions.of(session).turnSink(client, peer), placed.signal);
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
        const live = this.state.sessions.of(session);
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
        return keep(await compactConversation(deps, turn, this.turns.conversation(session)));
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
      return this.turns.run(turn, { asked: expansion ? [...context, ...expansion.prompt] : prompt, typed: expansion ? prompt : undefined });
    }, placed);
    const live = this.state.sessions.of(session);
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
    return this.turns.run(turn, { asked: initPrompt(prompt, context), typed: [...context, ...prompt], renewFacts: true });
  }

  private save(session: Session, record: SessionRecord): Promise<void> {
    return this.saving.save(session, record);
  }
}
