/**
 * Which prompt facts (date, instruction files: `context/prompt-facts.ts`) a session's records say
 * the model knows: those its system prompt is built from, and those it was last told of, notes
 * included. Pure; the records are the session's live history (turns, /clear, /compact), and
 * `before` what {@link systemFacts} gives of the records before them (on disk only,
 * `live-records.ts` `factsBeforeOf`): a live history that starts with a turn compacted inside
 * keeps the system prompt of the turns it summarised.
 */
import type { PromptFacts } from '../context/prompt-facts.js';
import type { ConversationRecord } from './conversation.js';
import type { TurnRecord } from './session-records.js';

/** Whether the turn read the facts afresh: they are its system prompt's. */
const tookFacts = (record: TurnRecord) => record.facts !== undefined && record.factsNote === undefined;

/**
 * The facts the session's system prompt is built from: those of the latest turn that read them
 * afresh, unless a /clear, a /compact or an `/init` turn (`renewFacts`) came after it; `undefined`
 * when the next turn must read them afresh (a new session, or a file saved before facts were).
 * `before`: the system prompt's facts as of the record before `records[0]`.
 */
export function systemFacts(records: readonly ConversationRecord[], before?: PromptFacts): PromptFacts | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i]!;
    if (record.type !== 'turn' || record.renewFacts) return undefined;
    if (tookFacts(record)) return record.facts;
  }
  return before;
}

/**
 * The facts the model was last told of: the latest answered turn's since the system prompt's (a
 * note in an unanswered turn was not kept in the conversation); the system prompt's when a turn
 * compacted inside summarised the notes before it away. `undefined` with {@link systemFacts}.
 */
export function toldFacts(records: readonly ConversationRecord[], before?: PromptFacts): PromptFacts | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i]!;
    if (record.type !== 'turn' || record.renewFacts) return undefined;
    const answered = Boolean(record.assistant) || (record.steps?.length ?? 0) > 0;
    if (record.facts && (answered || tookFacts(record))) return record.facts;
    if (record.context?.summary !== undefined) return systemFacts(records.slice(0, i + 1), before);
  }
  return undefined;
}

/** The turn without its facts and their note (a fork reads them afresh); the record itself when it has none. */
export function withoutFacts<T extends { type: string }>(record: T): T {
  if (record.type !== 'turn') return record;
  const turn = record as unknown as TurnRecord;
  if (turn.facts === undefined && turn.factsNote === undefined && turn.renewFacts === undefined) return record;
  const { facts: _facts, factsNote: _note, renewFacts: _renew, ...rest } = turn;
  return rest as unknown as T;
}
