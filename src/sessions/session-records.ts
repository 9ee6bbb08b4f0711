/**
 * Session records: the types of the lines of a session file and their validation. Reading a
 * whole file's text into a {@link StoredSession} or a {@link SessionSummary} is in
 * `session-text.ts`. Pure (no I/O); the file format itself is described in `session-store.ts`.
 */
import type { ContentBlock, PlanEntry } from '@agentclientprotocol/sdk/unstable';
import { isTurnCheckpoint, type TurnCheckpoint } from './checkpoints.js';
import { isStubRanges, type StubRanges } from '../context/stub-ranges.js';
import { isPromptFacts, type PromptFacts } from '../context/prompt-facts.js';
import { isRecord } from '../json-value.js';

/** A completed (or cancelled/failed-with-partial-output) prompt turn. */
export interface TurnRecord {
  type: 'turn';
  /** When the turn ended, ISO 8601. */
  at: string;
  /** The turn's id: the ACP message ids the client saw derive from it, so a replay shows the same ones. */
  id?: string;
  /** The ACP prompt blocks as received. */
  prompt: ContentBlock[];
  /**
   * The prompt as the user sent it, when `prompt` is what it stood for (a command file, an MCP
   * prompt, `/init`, expanded): shown on `session/load` and used for the title.
   */
  typed?: ContentBlock[];
  /** The assistant's text ('' when none). */
  assistant: string;
  /** The reasoning text ('' when none). */
  reasoning: string;
  /** The ACP stop reason the turn ended with (`end_turn`, `cancelled`, …). */
  stopReason: string;
  /** Token counts of the turn, and its cost when the provider reported one (ACP `Cost`). */
  usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number; cost?: { amount: number; currency: string } };
  /** Compactions made inside the turn (told to clients as `compaction_update`): id, the steps before it, summary. */
  compactions?: { id: string; beforeStep: number; summary: string }[];
  /**
   * The answers of this turn that called tools, in order, each with the results of its calls;
   * `assistant` and `reasoning` are then the last answer's (the one that called no tool).
   */
  steps?: StepRecord[];
  /**
   * What the model was sent of the history when the turn ended, so the next turn starts from it
   * (the record itself keeps everything, for `session/load`): `summary` replaces everything
   * before this turn and its first `summarizedSteps` steps (a compaction inside the turn);
   * `stubbed`: the tool results sent as stubs, as `[from, to)` ranges of their indexes over the
   * live conversation's tool results, oldest first (`context/stub-ranges.ts`; older files hold a
   * count `n`, the first `n`).
   */
  context?: { summary?: string; summarizedSteps?: number; stubbed?: number | StubRanges };
  /** The plan as the turn left it, when the model wrote one in it (the whole list). */
  plan?: PlanEntry[];
  /** What `/undo` needs: the files the turn changed and the commands it ran. */
  checkpoint?: TurnCheckpoint;
  /**
   * The session mode's rule, told to the model in front of this turn's prompt (in its user
   * message) because the mode changed since the model was last told; absent when unchanged.
   */
  modeNote?: string;
  /** The session mode the model had been told of when the turn ended (e.g. `plan`, `ask`). */
  mode?: string;
  /**
   * The date and instruction files as read for this turn (`context/prompt-facts.ts`), saved when
   * the turn read them afresh (its system prompt is built from them, as every later turn's until
   * the next /clear, /compact or /init) or when its `factsNote` told the model they changed.
   */
  facts?: PromptFacts;
  /** What changed since the model was last told, put in front of this turn's prompt (in its user message). */
  factsNote?: string;
  /** Set on an `/init` turn: the next turn reads the facts afresh, so its system prompt has the AGENTS.md just written. */
  renewFacts?: true;
  /** Messages the user sent into the turn while it ran (`_session/steering`), in the order they came. */
  steering?: SteeringRecord[];
}

/**
 * One message the user sent into a running turn (ACP's steering extension, `_session/steering`).
 * It came after the turn's first `afterStep` model answers (its tool steps, then its final answer)
 * and went into the request that followed them; one that no answer of the turn followed (the turn
 * was cancelled or failed first) is put in front of the next prompt, as an unanswered prompt is.
 */
export interface SteeringRecord {
  /** When it came, ISO 8601. */
  at: string;
  /** The model answers of the turn before it (1 or more for one given to the model). */
  afterStep: number;
  /** The ACP content blocks as sent. */
  prompt: ContentBlock[];
}

/** One model answer that called tools, and what each call gave back. */
export interface StepRecord {
  /** The answer's text ('' when none). */
  text: string;
  /** The answer's reasoning ('' when none). */
  reasoning: string;
  /** The calls as the model made them: `id` is the `tool_call_id` the model sees. */
  toolCalls: { id: string; name: string; arguments: string; extra?: Record<string, unknown> }[];
  /** One result per call, in the same order. */
  results: ToolResultRecord[];
}

/** What one tool call gave back, for the model (`forModel`) and for a replay to the client. */
export interface ToolResultRecord {
  /** The model-facing `tool_call_id` (the call's `id`). */
  id: string;
  /** The ACP `toolCallId` the client saw. */
  toolCallId: string;
  title: string;
  /** ACP `ToolKind`. */
  kind: string;
  status: 'completed' | 'failed';
  rawInput?: unknown;
  /** ACP `ToolCallContent[]` as shown (terminals replaced by their output text). */
  content: unknown[];
  locations?: unknown[];
  /** The `tool` message content the model was sent. */
  forModel: string;
}

/** Session metadata change: title, model, other config options (merged over earlier meta records). */
interface MetaRecord {
  type: 'meta';
  at: string;
  title?: string;
  model?: string;
  /** Config option values by option id; merged key by key over earlier ones. */
  options?: Record<string, string>;
}

/** `/clear`: turns before this are kept in the file but no longer sent to the model. */
export interface ClearRecord {
  type: 'clear';
  at: string;
  /** Its id, for the message ids of a replay. */
  id?: string;
}

/** `/compact`: a model-written summary that replaces every earlier turn in what is sent. */
export interface CompactRecord {
  type: 'compact';
  at: string;
  /** Its id: the `compactionId` and message ids the client saw derive from it. */
  id?: string;
  summary: string;
}

/** `/undo`: the latest turn before this record (not undone already) is no longer part of the conversation. */
interface UndoRecord {
  type: 'undo';
  at: string;
}

/** One line of a session file after the header. */
export type SessionRecord = TurnRecord | MetaRecord | ClearRecord | CompactRecord | UndoRecord;

/** A session as loaded: the header, the meta records merged, and the history. */
export interface StoredSession {
  sessionId: string;
  cwd: string;
  createdAt: string;
  /** `at` of the last record in file order, or `createdAt` when there is none. */
  updatedAt: string;
  /** The latest meta `title`. */
  title?: string;
  /** The latest meta `model`. */
  model?: string;
  /** Every meta `options`, later keys over earlier ones. */
  options: Record<string, string>;
  /** turn, clear and compact records in file order */
  records: Array<TurnRecord | ClearRecord | CompactRecord>;
}

/** What `session/list` shows of a session. */
export interface SessionSummary {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt: string;
}

type Json = Record<string, unknown>;
const optString = (v: unknown) => v === undefined || typeof v === 'string';
const optNumber = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isFinite(v));
const isStep = (step: unknown) =>
  isRecord(step) &&
  typeof step.text === 'string' &&
  typeof step.reasoning === 'string' &&
  Array.isArray(step.toolCalls) &&
  step.toolCalls.every((c) => isRecord(c) && typeof c.id === 'string' && typeof c.name === 'string' && typeof c.arguments === 'string') &&
  Array.isArray(step.results) &&
  // One result per call, same order: the model is sent a tool message per tool_call_id (providers refuse a call without one).
  step.results.length === step.toolCalls.length &&
  step.results.every(
    (r, i) =>
      isRecord(r) &&
      r.id === (step.toolCalls as Json[])[i]?.id &&
      typeof r.toolCallId === 'string' &&
      (r.status === 'completed' || r.status === 'failed') &&
      typeof r.forModel === 'string' &&
      Array.isArray(r.content),
  );

/** Whether `value` is a list of {@link SteeringRecord}s. */
function isSteering(value: unknown): value is SteeringRecord[] {
  return (
    Array.isArray(value) &&
    value.every(
      (s) =>
        isRecord(s) &&
        typeof s.at === 'string' &&
        Number.isInteger(s.afterStep) &&
        (s.afterStep as number) >= 0 &&
        Array.isArray(s.prompt) &&
        s.prompt.every((b) => isRecord(b) && typeof b.type === 'string'),
    )
  );
}

const PLAN_STATUSES: readonly unknown[] = ['pending', 'in_progress', 'completed'];
const PLAN_PRIORITIES: readonly unknown[] = ['high', 'medium', 'low'];
/** Whether `value` is a list of ACP `PlanEntry`s. */
function isPlan(value: unknown): value is PlanEntry[] {
  return (
    Array.isArray(value) &&
    value.every((e) => isRecord(e) && typeof e.content === 'string' && PLAN_STATUSES.includes(e.status) && PLAN_PRIORITIES.includes(e.priority))
  );
}

/**
 * `value` as a {@link SessionRecord} when it is one (extra fields kept), else undefined. Checks
 * the fields each type requires and the types of the optional ones.
 */
export function parseRecord(value: unknown): SessionRecord | undefined {
  if (!isRecord(value) || typeof value.at !== 'string') return undefined;
  const v = value;
  switch (v.type) {
    case 'turn': {
      const usage = v.usage;
      const ok =
        Array.isArray(v.prompt) &&
        v.prompt.every((b) => isRecord(b) && typeof b.type === 'string') &&
        typeof v.assistant === 'string' &&
        typeof v.reasoning === 'string' &&
        typeof v.stopReason === 'string' &&
        (usage === undefined || (isRecord(usage) && optNumber(usage.inputTokens) && optNumber(usage.outputTokens) && optNumber(usage.totalTokens))) &&
        (v.steps === undefined || (Array.isArray(v.steps) && v.steps.every(isStep))) &&
        (v.context === undefined ||
          (isRecord(v.context) &&
            optString(v.context.summary) &&
            optNumber(v.context.summarizedSteps) &&
            (optNumber(v.context.stubbed) || isStubRanges(v.context.stubbed))));
      if (!ok) return undefined;
      // A plan or checkpoint that does not read back is left out, not the whole turn.
      if (v.plan !== undefined && !isPlan(v.plan)) delete v.plan;
      if (v.typed !== undefined && !(Array.isArray(v.typed) && v.typed.every((b) => isRecord(b) && typeof b.type === 'string'))) delete v.typed;
      if (v.checkpoint !== undefined && !isTurnCheckpoint(v.checkpoint)) delete v.checkpoint;
      if (v.modeNote !== undefined && typeof v.modeNote !== 'string') delete v.modeNote;
      if (v.mode !== undefined && typeof v.mode !== 'string') delete v.mode;
      if (v.steering !== undefined && !isSteering(v.steering)) delete v.steering;
      if (v.facts !== undefined && !isPromptFacts(v.facts)) delete v.facts;
      if (v.factsNote !== undefined && typeof v.factsNote !== 'string') delete v.factsNote;
      if (v.renewFacts !== undefined && v.renewFacts !== true) delete v.renewFacts;
      if (v.id !== undefined && typeof v.id !== 'string') delete v.id;
      if (
        v.compactions !== undefined &&
        !(
          Array.isArray(v.compactions) &&
          v.compactions.every((c) => isRecord(c) && typeof c.id === 'string' && typeof c.summary === 'string' && Number.isInteger(c.beforeStep))
        )
      )
        delete v.compactions;
      return v as unknown as TurnRecord;
    }
    case 'meta': {
      const options = v.options;
      const ok =
        optString(v.title) &&
        optString(v.model) &&
        (options === undefined || (isRecord(options) && Object.values(options).every((o) => typeof o === 'string')));
      return ok ? (v as unknown as MetaRecord) : undefined;
    }
    case 'clear':
      if (v.id !== undefined && typeof v.id !== 'string') delete v.id;
      return v as unknown as ClearRecord;
    case 'undo':
      return v as unknown as UndoRecord;
    case 'compact':
      if (v.id !== undefined && typeof v.id !== 'string') delete v.id;
      return typeof v.summary === 'string' ? (v as unknown as CompactRecord) : undefined;
    default:
      return undefined;
  }
}
