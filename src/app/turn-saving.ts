/**
 * Saving what a prompt leaves: a record kept in the live session and written to the store before
 * the answer goes out; a session another process took over meanwhile is noted on its live session
 * (`LiveSession.takenOver`), so the prompt answers why.
 */
import { addRecord, unloadRecords } from '../sessions/live-records.js';
import type { Session } from '../sessions/session.js';
import { SessionStoreError, type SessionRecord } from '../sessions/session-store.js';
import type { AgentState } from './agent-state.js';

/** Saves the records of a session's turns; one per agent (`PromptRunner`). */
export class TurnSaving {
  constructor(private readonly state: AgentState) {}

  /** Writes `record` to disk only (the prompt of a turn starting), not to the live session. */
  saveStarted(session: Session, record: SessionRecord): Promise<void> {
    return this.save(session, record, false);
  }

  /**
   * Keeps `record` in the session (unless not `live`) and on disk, durably, before the answer
   * goes out. Never rejects: a store failure is logged; a session deleted meanwhile saves nothing;
   * one another process took over is marked (`LiveSession.takenOver`) and its records let go of,
   * to be read again with the lease before its next turn.
   */
  async save(session: Session, record: SessionRecord, live = true): Promise<void> {
    if (live && (record.type === 'turn' || record.type === 'clear' || record.type === 'compact')) addRecord(session, record);
    try {
      await (await this.state.store).append(session.id, record);
    } catch (error) {
      // Deleted while its turn ran: nothing to save into.
      if (!this.state.sessions.get(session.id)) return;
      if (error instanceof SessionStoreError && error.code === 'busy') {
        unloadRecords(session);
        this.state.sessions.of(session).takenOver = error;
        return;
      }
      this.state.logger.error('could not save the session; this turn will be missing after a restart', {
        sessionId: session.id,
        error: (error as Error).message,
      });
    }
  }
}
