/**
 * The index of a live session's whole history (see `live-records.ts`): what the records before
 * its live part said (plan, system prompt facts, whether turns came), and what all its turns add
 * up to (tool-call ids in use, an image answered, the saved cost). Built once from the records
 * as loaded, then extended record by record, never by walking the history again.
 */
import type { PlanEntry } from '@agentclientprotocol/sdk/unstable';
import type { PromptFacts } from '../context/prompt-facts.js';
import type { ToolMessageRules } from '../context/tool-messages.js';
import { addCost, type Cost } from '../openai/reported-cost.js';
import type { ConversationRecord, LiveConversation } from './conversation.js';
import type { TurnRecord } from './session-records.js';
import { systemFacts } from './told-facts.js';

/** The index of one live session (see the module comment). */
export interface SessionIndex {
  toolCallIds: Set<string>;
  sentImages: boolean;
  cost: Cost | undefined;
  /** The plan of the latest turn before the live records (`[]`: none). */
  planBefore: PlanEntry[];
  /** The prompt facts the system prompt had as of the record before the live ones (`told-facts.ts` `systemFacts`). */
  factsBefore: PromptFacts | undefined;
  /** Whether records came before the live ones (on disk only), and whether turns among them. */
  recordsBefore: boolean;
  turnsBefore: boolean;
  /** The live conversation as last built, for the tool-message rules it was built with. */
  live: { rules: ToolMessageRules; conversation: LiveConversation } | undefined;
}

/** Whether `record` starts a new live part: what came before it is no longer sent to the model. */
export function isReset(record: ConversationRecord): boolean {
  return record.type === 'clear' || record.type === 'compact' || record.context?.summary !== undefined;
}

/** Where the live part of `records` starts: its latest reset, or 0. */
export function liveStart(records: readonly ConversationRecord[]): number {
  for (let i = records.length - 1; i >= 0; i--) if (isReset(records[i]!)) return i;
  return 0;
}

/** The plan of the latest turn of `records` that wrote one, or `undefined`. */
export function latestPlan(records: readonly ConversationRecord[]): PlanEntry[] | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i]!;
    if (record.type === 'turn' && record.plan) return record.plan;
  }
  return undefined;
}

/** Whether a saved `usage.cost` is one (a file edited by hand may hold anything): a finite amount of 0 or more, in a named currency. */
function isCost(value: unknown): value is Cost {
  const cost = value as Cost | null | undefined;
  return typeof cost === 'object' && cost !== null && Number.isFinite(cost.amount) && cost.amount >= 0 && typeof cost.currency === 'string';
}

/** Adds one turn to the history-wide facts of `index`. */
export function indexTurn(index: SessionIndex, turn: TurnRecord): void {
  for (const step of turn.steps ?? []) for (const call of step.toolCalls) index.toolCallIds.add(call.id);
  // A failed turn proves nothing of the endpoint's images (the failure may be their refusal).
  if (turn.stopReason === 'end_turn' && !turn.failed && turn.prompt.some((block) => block.type === 'image')) index.sentImages = true;
  const cost = turn.usage?.cost;
  if (isCost(cost)) {
    const next = addCost(index.cost, cost);
    if ('total' in next) index.cost = next.total;
  }
}

/** The index of `records`, a session's whole history as loaded, whose live part starts at `start`. */
export function indexHistory(records: readonly ConversationRecord[], start: number): SessionIndex {
  const index: SessionIndex = {
    toolCallIds: new Set(),
    sentImages: false,
    cost: undefined,
    planBefore: latestPlan(records.slice(0, start)) ?? [],
    factsBefore: systemFacts(records.slice(0, start)),
    recordsBefore: start > 0,
    turnsBefore: records.slice(0, start).some((record) => record.type === 'turn'),
    live: undefined,
  };
  for (const record of records) if (record.type === 'turn') indexTurn(index, record);
  return index;
}
