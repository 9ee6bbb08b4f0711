/**
 * A line of a session file read back as a {@link SessionRecord} (`session-records.ts`), or
 * nothing when it is not one: the fields each type requires checked, and an optional field that
 * does not read back (a plan, a checkpoint, the steering) left out rather than the whole turn.
 * Pure (no I/O).
 */
import type { PlanEntry } from '@agentclientprotocol/sdk/unstable';
import { isTurnCheckpoint } from './checkpoints.js';
import { isStubRanges } from '../context/stub-ranges.js';
import { isPromptFacts } from '../context/prompt-facts.js';
import { isRecord } from '../shared/json-value.js';
import type {
  ClearRecord,
  CompactRecord,
  McpToolsRecord,
  MetaRecord,
  SavedMcpTool,
  SessionRecord,
  SteeringRecord,
  TurnRecord,
  UndoRecord,
} from './session-records.js';

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

const TOOL_KINDS: readonly unknown[] = ['read', 'edit', 'fetch', 'other'];
/** Whether `value` is one {@link SavedMcpTool}: every field of its type, `parameters` an object schema. */
function isSavedMcpTool(value: unknown): value is SavedMcpTool {
  if (!isRecord(value)) return false;
  const p = value.parameters;
  return (
    ['name', 'server', 'tool', 'description', 'title'].every((key) => typeof value[key] === 'string') &&
    typeof value.readOnly === 'boolean' &&
    TOOL_KINDS.includes(value.kind) &&
    isRecord(p) &&
    p.type === 'object' &&
    isRecord(p.properties) &&
    Array.isArray(p.required) &&
    p.required.every((name) => typeof name === 'string')
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
      if (v.failed !== undefined && !(isRecord(v.failed) && typeof v.failed.kind === 'string' && optNumber(v.failed.status))) delete v.failed;
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
    case 'mcp_tools':
      // All or nothing: a list with one tool left out would not rebuild the request's bytes.
      return Array.isArray(v.tools) && v.tools.every(isSavedMcpTool) ? (v as unknown as McpToolsRecord) : undefined;
    default:
      return undefined;
  }
}
