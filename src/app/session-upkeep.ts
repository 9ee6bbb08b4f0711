/**
 * Sessions' records leaving memory and coming back: an idle session's conversation is let go of
 * (its lease too) and read again, with the lease, before its next turn; a store's refusal as the
 * client hears it.
 */
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../shared/log.js';
import type { Session } from '../sessions/session.js';
import type { LiveSessions } from './live-sessions.js';
import { isUnloaded, markUsed, reloadRecords, unloadIdle } from '../sessions/live-records.js';
import { SessionStoreError, type SessionStore } from '../sessions/session-store.js';
import { sessionNotFound } from './live-session.js';

/** What the upkeep reads of the agent (`AgentState`). */
export interface SessionUpkeepDeps {
  readonly store: Promise<SessionStore>;
  readonly sessions: LiveSessions;
  readonly logger: Logger;
  readonly config: { readonly sessionIdleMs: number };
}

/** A store refusal as the client hears it: an unknown session (-32002), or one whose lease another process has (-32603, its words name that process); any other error as it is. */
export function storeRefusal(error: unknown, sessionId: string): unknown {
  if (!(error instanceof SessionStoreError)) return error;
  if (error.code === 'busy') return new RequestError(-32603, error.message, { sessionId, reason: 'busy' });
  return error.code === 'not-found' ? sessionNotFound(sessionId) : error;
}

/**
 * Makes the session ready for a turn: marked used, and its records read again from the store
 * when they left memory while it was idle (its lease taken again first); two prompts read once.
 * @throws {RequestError} -32603 naming the other process when another process took the session
 *   meanwhile; -32002 when another process deleted it.
 */
export async function useSession(agent: SessionUpkeepDeps, session: Session): Promise<void> {
  markUsed(session);
  if (!isUnloaded(session)) return;
  const live = agent.sessions.of(session);
  let reading = live.reloading;
  if (!reading) {
    reading = (async () => {
      const store = await agent.store;
      await store.lease(session.id);
      reloadRecords(session, (await store.load(session.id))?.records ?? []);
    })().finally(() => (live.reloading = undefined));
    live.reloading = reading;
  }
  await reading.catch((error: unknown) => {
    throw storeRefusal(error, session.id);
  });
}

/** Lets go of the conversations of sessions idle for `config.sessionIdleMs`, and of their leases (a no-op for one given back already). */
export function unloadIdleSessions(agent: SessionUpkeepDeps): void {
  const running = (session: Session) => agent.sessions.live(session.id)?.line.isRunning ?? false;
  const { idle, unloaded } = unloadIdle(agent.sessions.all(), running, Date.now(), agent.config.sessionIdleMs);
  if (unloaded > 0) agent.logger.debug('idle sessions left memory', { sessions: unloaded });
  if (idle.length > 0) void agent.store.then((store) => Promise.all(idle.map((session) => store.release(session.id))));
}
