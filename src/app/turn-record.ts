/**
 * The record a model turn leaves in its session (`sessions/session-records.ts`), built from what
 * the turn was asked and what the agent loop gave back: the answer and its steps, the notes told
 * in front of the prompt, the facts, usage and cost, the messages the user sent into it. Pure.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { Cost } from '../openai/reported-cost.js';
import type { SteeringRecord, TurnRecord } from '../sessions/session-records.js';
import type { SentTurn } from './model-sender.js';

/** What a turn's record is made of, besides the loop's outcome. */
export interface TurnRecordParts {
  /** When the turn ended, ISO 8601. */
  at: string;
  /** The turn's id (the ACP message ids of its updates derive from it). */
  id: string;
  /** The prompt as sent to the model (context kept from an earlier command in front). */
  prompt: ContentBlock[];
  /** What the user typed, when `prompt` is its expansion (a user command, `/init`). */
  typed?: ContentBlock[] | undefined;
  /** Messages the user sent into the turn (`_session/steering`). */
  steering: SteeringRecord[];
  /** The session mode's rule told in front of the prompt, when it changed. */
  modeNote?: string | undefined;
  /** The session mode the model was told of. */
  mode?: string | undefined;
  /** The next turn reads the prompt facts afresh (`/init`). */
  renewFacts: boolean;
  /** What the provider reported the turn cost, when anything. */
  cost?: Cost | undefined;
}

/**
 * The record every model turn leaves, failed ones included (a failure with nothing shown keeps the
 * user's prompt for `session/load`; `failed` says the model need not read it again); optional
 * fields only when they say something. The turn's plan and checkpoint are added by its extras.
 */
export function turnRecord(outcome: SentTurn, parts: TurnRecordParts): TurnRecord {
  const record: TurnRecord = {
    type: 'turn',
    at: parts.at,
    id: parts.id,
    prompt: parts.prompt,
    assistant: outcome.text,
    reasoning: outcome.reasoning,
    stopReason: outcome.stopReason,
  };
  // Answered with an error, not `cancelled`: the kind of failure and its status.
  if (outcome.error && outcome.stopReason !== 'cancelled')
    record.failed = outcome.error.status === undefined ? { kind: outcome.error.kind } : { kind: outcome.error.kind, status: outcome.error.status };
  if (outcome.compactions) record.compactions = outcome.compactions;
  if (parts.typed) record.typed = parts.typed;
  if (outcome.steps.length > 0) record.steps = outcome.steps;
  if (outcome.context && (outcome.context.summary !== undefined || outcome.context.stubbed.length > 0)) record.context = outcome.context;
  if (outcome.usage)
    record.usage = { inputTokens: outcome.usage.inputTokens, outputTokens: outcome.usage.outputTokens, totalTokens: outcome.usage.totalTokens };
  if (parts.steering.length > 0) record.steering = parts.steering;
  if (parts.modeNote) record.modeNote = parts.modeNote;
  if (parts.mode) record.mode = parts.mode;
  if (outcome.facts?.save) record.facts = outcome.facts.save;
  if (outcome.facts?.note) record.factsNote = outcome.facts.note;
  if (parts.renewFacts) record.renewFacts = true;
  if (parts.cost) record.usage = { ...record.usage, cost: parts.cost };
  return record;
}
