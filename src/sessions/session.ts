/**
 * The one type of a session's data in memory: its id, directory, records and chosen options, and
 * a new one (one restored from the store is `live-records.ts`'s `restoredSession`). The agent's live session around it
 * (holders, what it keeps in memory, its closing) is `app/live-session.ts`'s `LiveSession`, kept
 * in the one registry `app/live-sessions.ts`.
 */
import type { ConversationRecord } from './conversation.js';

/** One conversation. */
export interface Session {
  readonly id: string;
  /** Working directory the client gave at `session/new`. */
  readonly cwd: string;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
  /**
   * The live conversation: turns, `/clear`s and `/compact`s from the latest reset on, oldest
   * first (as stored); what came before is on disk only. Added to through `addRecord`
   * (`live-records.ts`), which keeps the session's index.
   */
  readonly records: ConversationRecord[];
  /** The model value this session's next request uses (`providerId/modelId` with several endpoints). */
  model: string;
  /** Other config option values by config id, e.g. `{thought_level: "high"}`. */
  readonly options: Record<string, string>;
  /** Title shown in session lists; set after the first turn. */
  title?: string | undefined;
  /**
   * The estimate and the provider's `prompt_tokens` of the latest request, in tokens, used to
   * calibrate the next estimate; absent until a provider reported usage.
   */
  calibration?: { estimated: number; actual: number } | undefined;
}

/** What restoring a session from the store needs. */
export type SessionState = Omit<Session, 'calibration'>;

/** A new session in `cwd` using `model`, with a fresh unique id (a UUID) and no records. */
export function newSession(cwd: string, model: string): Session {
  // Web Crypto's randomUUID: node:crypto is then loaded at the first session, not at start-up.
  return { id: globalThis.crypto.randomUUID(), cwd, createdAt: new Date().toISOString(), records: [], model, options: {} };
}
