/**
 * `session/fork` (ACP, unstable): a new session with a copy of a held session's conversation
 * (plans and checkpoints are part of its turn records; the prompt facts are not: its first turn
 * reads the instruction files and the date afresh), mode and other options, model and title,
 * independent from then on, saved so that `session/list` shows it. A turn still running in the
 * source is not copied (its prompt, already on disk, is left out): the fork has the state as of
 * the last finished turn.
 *
 * Source: `ForkSessionRequest` / `ForkSessionResponse` in the ACP schema
 * (`@agentclientprotocol/sdk` `schema/v1/schema.unstable.json`): `{sessionId, cwd,
 * additionalDirectories?, mcpServers?}` → `{sessionId, configOptions?, modes?}`.
 */
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../shared/log.js';
import type { Session } from '../sessions/session.js';
import type { LiveSessions } from './live-sessions.js';
import { loadRecords } from '../sessions/live-records.js';
import type { SessionRecord, SessionStore } from '../sessions/session-store.js';
import { withoutFacts } from '../sessions/told-facts.js';

/** Most characters of a fork's title before " (fork)". */
const TITLE_HEAD_MAX = 72;

/** The title of a fork of a session titled `title`: its first 72 characters, then " (fork)". */
function forkTitle(title: string | undefined): string | undefined {
  if (!title) return undefined;
  const head = title.length > TITLE_HEAD_MAX ? `${title.slice(0, TITLE_HEAD_MAX - 1)}…` : title;
  return `${head} (fork)`;
}

/**
 * `records` (the source's history on disk) without the prompt of a turn still running in `source`:
 * a turn's prompt is on disk as the turn starts (`prompt-runner.ts`), but the session holds its
 * record only when it ends, so a last turn record the session does not hold is the running one.
 */
function finishedRecords<T extends SessionRecord>(records: T[], source: Session): T[] {
  const held = new Set(source.records.flatMap((r) => (r.type === 'turn' && r.id ? [r.id] : [])));
  const last = records.findLastIndex((r) => r.type === 'turn');
  const started = records[last];
  if (started?.type !== 'turn' || !started.id || held.has(started.id)) return records;
  return records.filter((_, i) => i !== last);
}

/**
 * Creates the fork of `sourceId` in `cwd` and saves it. A store failure is logged (the fork then
 * lives until the process ends), as for `session/new`.
 * @throws {RequestError} -32602 naming the id when no session of that id is held (unknown, or closed).
 */
export async function copySession(input: { sourceId: string; cwd: string; sessions: LiveSessions; store: SessionStore; logger: Logger }): Promise<Session> {
  const { sessions, logger } = input;
  const source = sessions.get(input.sourceId);
  if (!source)
    throw RequestError.invalidParams({ sessionId: input.sourceId }, `Cannot fork session ${input.sourceId}: no such session is open (unknown, or closed)`);
  const fork = sessions.create(input.cwd, source.model);
  // The whole history as on disk (the source holds only its live part); the fork's first turn
  // reads the instruction files and the date afresh (its system prompt is built from them).
  const history = finishedRecords((await input.store.load(source.id))?.records ?? source.records, source).map(withoutFacts);
  loadRecords(fork, history);
  Object.assign(fork.options, source.options);
  fork.title = forkTitle(source.title);
  if (source.calibration) fork.calibration = { ...source.calibration };
  const meta: SessionRecord = {
    type: 'meta',
    at: fork.createdAt,
    model: fork.model,
    options: { ...fork.options },
    ...(fork.title ? { title: fork.title } : {}),
  };
  try {
    await input.store.create({ sessionId: fork.id, cwd: fork.cwd, createdAt: fork.createdAt }, [...history, meta]);
  } catch (error) {
    logger.error('could not save the forked session; it will not survive a restart', { sessionId: fork.id, error: (error as Error).message });
  }
  logger.debug('session forked', { from: source.id, sessionId: fork.id, records: history.length });
  return fork;
}
