/**
 * What a live session keeps in memory, and what it costs per turn. `Session.records` holds only
 * the live part of the conversation: from its latest reset (a `/clear`, a `/compact`, or a turn
 * compacted inside, kept as the first record) to its latest turn; what a reset replaced stays on
 * disk, read again only by `session/load` (replay), `session/fork` and `/undo` of a compacted
 * turn. Beside the live records, an index of the whole history, updated as each record is added
 * (never by walking the history again): the tool-call ids in use, whether the model already
 * answered an image, the cost saved with its turns, the plan and the system prompt's facts before
 * the live part (`history-index.ts`), and the live conversation as the model is sent it. An idle
 * session's records can be let go of ({@link unloadIdle}) and read again on demand.
 *
 * Every function here gives what the same question asked of the whole history would: the
 * property tests hold them to `liveConversation`, `lastToldMode`, `savedCost`, `systemFacts` and
 * `toldFacts` over all records.
 */
import type { PlanEntry } from '@agentclientprotocol/sdk/unstable';
import type { PromptFacts } from '../context/prompt-facts.js';
import { stubRanges } from '../context/stub-ranges.js';
import type { ToolMessageRules } from '../context/tool-messages.js';
import type { Cost } from '../openai/reported-cost.js';
import { appendTurn, liveConversation, type ConversationRecord, type LiveConversation } from './conversation.js';
import { indexHistory, indexTurn, isReset, latestPlan, liveStart, type SessionIndex } from './history-index.js';
import type { TurnRecord } from './session-records.js';
import { systemFacts } from './told-facts.js';
import type { Session, SessionState } from './session.js';

/** What these functions need of a session. */
type SessionRecords = Pick<Session, 'records'>;

const indexes = new WeakMap<SessionRecords, SessionIndex>();

/**
 * Loads `records`, a session's whole history as read: its live part becomes `session.records`,
 * the rest is indexed and let go of.
 */
export function loadRecords(session: SessionRecords, records: readonly ConversationRecord[]): void {
  const start = liveStart(records);
  const index = indexHistory(records, start);
  indexes.set(session, index);
  session.records.length = 0;
  for (let i = start; i < records.length; i++) session.records.push(records[i]!);
}

/** The index of `session`, made from its records when it has none yet (a new session). */
function indexOf(session: SessionRecords): SessionIndex {
  let index = indexes.get(session);
  if (!index) {
    loadRecords(session, [...session.records]);
    index = indexes.get(session)!;
  }
  return index;
}

/**
 * Adds a conversation record (a turn, `/clear`, `/compact`) to the session: kept, indexed, and
 * at a reset everything before it let go of (it stays on disk).
 */
export function addRecord(session: SessionRecords, record: ConversationRecord): void {
  const index = indexOf(session);
  if (record.type === 'turn') indexTurn(index, record);
  if (isReset(record)) {
    index.planBefore = latestPlan(session.records) ?? index.planBefore;
    index.factsBefore = systemFacts(session.records, index.factsBefore);
    index.recordsBefore ||= session.records.length > 0;
    index.turnsBefore ||= session.records.some((kept) => kept.type === 'turn');
    session.records.length = 0;
  }
  session.records.push(record);
  const live = index.live;
  if (!live) return;
  if (isReset(record)) index.live = undefined;
  else extendLive(live.conversation, record as TurnRecord, live.rules);
}

/** Adds a turn (not a reset) to a live conversation built before it, as `liveConversation` would have. */
function extendLive(live: LiveConversation, turn: TurnRecord, rules: ToolMessageRules): void {
  live.stubbed = stubRanges(turn.context?.stubbed);
  appendTurn(live, turn, rules);
}

/**
 * The conversation the model is sent of the session (`liveConversation` of its whole history),
 * built once and then extended turn by turn; the caller must not change it.
 */
export function liveConversationOf(session: SessionRecords, rules: ToolMessageRules): LiveConversation {
  const index = indexOf(session);
  if (index.live?.rules !== rules) index.live = { rules, conversation: liveConversation(session.records, rules) };
  const { conversation } = index.live;
  return { ...conversation, turns: [...conversation.turns], unanswered: [...conversation.unanswered] };
}

/**
 * Every tool-call id the session's turns used (the model-facing ids), so new calls never reuse
 * one; the turn adds the ids it hands out (they stay taken, saved or not).
 */
export function usedToolCallIds(session: SessionRecords): Set<string> {
  return indexOf(session).toolCallIds;
}

/** The prompt facts the session's system prompt had before its live records (`told-facts.ts` `systemFacts` of what is on disk only). */
export function factsBeforeOf(session: SessionRecords): PromptFacts | undefined {
  return indexOf(session).factsBefore;
}

/** Whether the session's model already answered a prompt with an image: then images returned by tools are sent to it too. */
export function sentImages(session: SessionRecords): boolean {
  return indexOf(session).sentImages;
}

/** The sum of the costs saved with the session's turns (`usage.cost`), in the first one's currency. */
export function savedCostOf(session: SessionRecords): Cost | undefined {
  const cost = indexOf(session).cost;
  return cost && { ...cost };
}

/** The session's plan now: the latest one a turn still in the conversation wrote, or `[]`. */
export function currentPlanOf(session: SessionRecords): PlanEntry[] {
  return latestPlan(session.records) ?? indexOf(session).planBefore;
}

/**
 * What `/undo` may take back: the index in `session.records` of the latest turn, `behind-reset`
 * when a `/clear` or `/compact` came after it, `none` when the session has no turn.
 */
export function undoableTurn(session: SessionRecords): number | 'behind-reset' | 'none' {
  const index = session.records.findLastIndex((record) => record.type === 'turn');
  // The latest turn came before the live records: a reset (their first record) came after it.
  if (index === -1) return indexOf(session).turnsBefore ? 'behind-reset' : 'none';
  return session.records.slice(index + 1).some((record) => record.type === 'clear' || record.type === 'compact') ? 'behind-reset' : index;
}

/**
 * Takes the turn at `at` (from {@link undoableTurn}) out of the session. A turn compacted inside
 * (the first live record) stood for what came before it: the session's records are let go of,
 * to be read again from disk (the `undo` record saved) before its next turn.
 */
export function removeTurn(session: SessionRecords, at: number): void {
  const index = indexOf(session);
  const [turn] = session.records.splice(at, 1);
  index.live = undefined;
  if (turn?.type === 'turn' && turn.context?.summary !== undefined && index.recordsBefore) unloadRecords(session);
}

const lastUsed = new WeakMap<SessionRecords, number>();

/** Notes that the session is in use at `now` (ms since the epoch): it is not idle. */
export function markUsed(session: SessionRecords, now = Date.now()): void {
  lastUsed.set(session, now);
}

/**
 * Lets go of the records of every one of `sessions` unused for `idleMs` or longer at `now` (ms)
 * and not `busy` (a turn running or a prompt arriving). Returns every such idle session, whose
 * lease the caller gives back (a session `/undo` let go of, or one written to since, as well), and
 * how many of them left memory now. A session never marked used counts as used now.
 */
export function unloadIdle<S extends SessionRecords>(
  sessions: Iterable<S>,
  busy: (session: S) => boolean,
  now: number,
  idleMs: number,
): { idle: S[]; unloaded: number } {
  const idle: S[] = [];
  let unloadedNow = 0;
  for (const session of sessions) {
    const used = lastUsed.get(session) ?? (lastUsed.set(session, now), now);
    if (busy(session) || now - used < idleMs) continue;
    if (!isUnloaded(session)) {
      unloadRecords(session);
      unloadedNow++;
    }
    idle.push(session);
  }
  return { idle, unloaded: unloadedNow };
}

/**
 * Lets go of the session's records and index (an idle session, or one another process took over:
 * its records on disk are the history now); {@link isUnloaded} until loaded again.
 */
export function unloadRecords(session: SessionRecords): void {
  indexes.delete(session);
  unloaded.add(session);
  session.records.length = 0;
}

const unloaded = new WeakSet<SessionRecords>();

/** Whether the session's records were let go of and must be read again ({@link loadRecords}) before its next turn. */
export function isUnloaded(session: SessionRecords): boolean {
  return unloaded.has(session);
}

/** Loads the records read again for an unloaded session. */
export function reloadRecords(session: SessionRecords, records: readonly ConversationRecord[]): void {
  unloaded.delete(session);
  loadRecords(session, records);
}

/**
 * A session restored from the store (`state.records`: its whole history); only the live part of
 * the history stays in memory (its index is made as it is read).
 */
export function restoredSession(state: SessionState): Session {
  const session: Session = { ...state, records: [] };
  loadRecords(session, state.records);
  return session;
}
