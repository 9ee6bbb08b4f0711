/**
 * A model turn of a prompt: the context kept from an earlier command and the mode note put in
 * front, the prompt saved before the model is asked (a crash loses at most the answer), the model
 * asked (`model-sender.ts`) with the steering inbox open, then the turn's record (`turn-record.ts`)
 * and, after the first turn, the session's title saved before the answer goes out.
 */
import type { ContentBlock, PromptResponse } from '@agentclientprotocol/sdk/unstable';
import { lastToldMode, withNotes, withUnanswered, withUnansweredOnce, type LiveConversation } from '../sessions/conversation.js';
import { liveConversationOf } from '../sessions/live-records.js';
import type { Session } from '../sessions/session.js';
import { titleFromPrompt } from '../sessions/session-store.js';
import { promptToUserContent } from '../context/prompt-content.js';
import { toolMessageRules } from '../context/tool-messages.js';
import { costSince } from '../loop/cost-meter.js';
import type { PromptTurn } from '../loop/prompt-turn.js';
import { modeNoteFor, sessionMode } from '../loop/session-modes.js';
import type { AgentState } from './agent-state.js';
import type { ModelSender } from './model-sender.js';
import { turnResponse } from './prompt-failure.js';
import { turnRecord } from './turn-record.js';
import type { TurnSaving } from './turn-saving.js';

/** What a model turn asks: `asked` the prompt sent; `typed` what the user sent when `asked` is its expansion; `renewFacts` for /init. */
export interface Asked {
  asked: ContentBlock[];
  typed?: ContentBlock[] | undefined;
  renewFacts?: boolean;
}

/** Runs model turns; one per agent (`PromptRunner`). */
export class ModelTurns {
  constructor(
    private readonly state: AgentState,
    private readonly model: ModelSender,
    private readonly saving: TurnSaving,
  ) {}

  /**
   * A model turn of `asked`. `typed`: what the user sent when `asked` is its expansion (a user
   * command, /init), kept for replay and the title; `renewFacts`: the next turn reads the prompt
   * facts afresh (/init). @defaultValue renewFacts false
   */
  async run(turn: PromptTurn, { asked, typed, renewFacts = false }: Asked): Promise<PromptResponse> {
    const { session, send, turnId } = turn;
    const conversation = this.conversation(session);
    // Context shared with an earlier command that took no arguments goes in front.
    const live = this.state.sessions.of(session);
    const kept = live.kept;
    live.kept = undefined;
    const prompt = kept ? withUnanswered(kept, asked) : asked;
    // The mode is told in the conversation when it changed since the model was last told (the system prompt and tools stay put).
    const mode = this.state.config.tools ? sessionMode(session) : undefined;
    const note = mode ? modeNoteFor(mode, lastToldMode(session.records)) : undefined;
    const before = this.model.meter(session).total;
    // The prompt is on disk before the model is asked, so a crash loses at most the answer: the
    // turn's record (same id) replaces it when the turn ends, however it ends.
    await this.saving.saveStarted(session, {
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
    if (this.state.sessions.of(session).takenOver) return { stopReason: 'cancelled' };
    // Messages the user sends from now on are this turn's (`_session/steering`).
    turn.inbox.open();
    const asking = withUnansweredOnce(conversation.unanswered, prompt);
    const outcome = await this.model.ask(turn, {
      conversation,
      // So are changes of the instruction files and the date (the system prompt says them as the conversation began).
      current: (factsNote) => ({ role: 'user', content: promptToUserContent(withNotes([factsNote, note], asking)) }),
      tools: true,
    });
    // What the user sent into the turn, the messages no answer followed included (they go in front of the next prompt).
    const steering = turn.inbox.close(outcome.steps.length + (outcome.text ? 1 : 0));
    // Every turn is kept, a failed one too: the user's prompt stays in the session (shown on
    // `session/load`); what the model reads of it again is the live conversation's to say.
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
    await this.saving.save(session, record);
    const title = session.title ? undefined : titleFromPrompt(typed ?? prompt);
    if (title) {
      session.title = title;
      const at = new Date().toISOString();
      await this.saving.save(session, { type: 'meta', at, title });
      await send([{ sessionUpdate: 'session_info_update', title, updatedAt: at }]);
    }
    return turnResponse(outcome);
  }

  /** The conversation sent to the model, its tool calls as the session's provider wants them (DeepSeek wants their reasoning back). */
  conversation(session: Session): LiveConversation {
    const target = this.state.registry.resolve(session.model);
    return liveConversationOf(session, toolMessageRules(target?.endpoint.profile));
  }
}
