/**
 * Properties of `live-records.ts`: over any history (turns with tool steps, plans, costs, images,
 * mode notes, prompt facts and their notes, unanswered and failed turns, compactions inside a turn; `/clear`s
 * and `/compact`s), a session
 * holding only its live records answers every question as the whole history would, whether it was
 * loaded whole or grown record by record, and after `/undo`.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolMessageRules } from '../../src/context/tool-messages.js';
import { lastToldMode, liveConversation, type ConversationRecord } from '../../src/sessions/conversation.js';
import type { PromptFacts } from '../../src/context/prompt-facts.js';
import {
  addRecord,
  currentPlanOf,
  factsBeforeOf,
  loadRecords,
  isUnloaded,
  liveConversationOf,
  reloadRecords,
  removeTurn,
  savedCostOf,
  sentImages,
  undoableTurn,
  usedToolCallIds,
} from '../../src/sessions/live-records.js';
import type { Session } from '../../src/sessions/session.js';
import type { StepRecord, TurnRecord } from '../../src/sessions/session-records.js';
import { systemFacts, toldFacts } from '../../src/sessions/told-facts.js';

const at = '2026-11-23T00:00:00.000Z';
const id = fc.stringMatching(/^[a-z0-9_]{1,8}$/);
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.string({ maxLength: 8 }).map((text): ContentBlock => ({ type: 'text', text })),
  fc.constant<ContentBlock>({ type: 'image', data: 'AAAA', mimeType: 'image/png' }),
);
const step: fc.Arbitrary<StepRecord> = fc
  .record({ text: fc.string({ maxLength: 6 }), ids: fc.uniqueArray(id, { minLength: 1, maxLength: 3 }) })
  .map(({ text, ids }) => ({
    text,
    reasoning: '',
    toolCalls: ids.map((i) => ({ id: i, name: 'read_file', arguments: '{}' })),
    results: ids.map((i) => ({ id: i, toolCallId: `acp-${i}`, title: 't', kind: 'read', status: 'completed' as const, content: [], forModel: `r-${i}` })),
  }));
const turn: fc.Arbitrary<TurnRecord> = fc
  .record({
    prompt: fc.array(block, { minLength: 1, maxLength: 3 }),
    assistant: fc.oneof(fc.constant(''), fc.string({ maxLength: 8 })),
    stopReason: fc.constantFrom('end_turn', 'cancelled'),
    failed: fc.option(fc.constant({ kind: 'http', status: 500 }), { nil: undefined }),
    steps: fc.option(fc.array(step, { maxLength: 3 }), { nil: undefined }),
    plan: fc.option(fc.array(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 2 }), { nil: undefined }),
    cost: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
    mode: fc.option(fc.constantFrom('plan', 'ask', 'full-access'), { nil: undefined }),
    // Read afresh (facts alone), told by a note (facts and note), or an /init turn.
    facts: fc.option(fc.record({ text: fc.constantFrom('a', 'b', 'c'), note: fc.boolean(), renew: fc.boolean() }), { nil: undefined }),
    context: fc.option(
      fc.record({
        summary: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
        summarizedSteps: fc.option(fc.nat(2), { nil: undefined }),
        stubbed: fc.nat(3),
      }),
      { nil: undefined },
    ),
  })
  .map(({ plan, cost, mode, facts, context, steps, failed, ...rest }) => {
    const record: TurnRecord = { type: 'turn', at, reasoning: '', ...rest };
    if (failed) record.failed = failed;
    if (steps) record.steps = steps;
    if (plan) record.plan = plan.map((content) => ({ content, status: 'pending', priority: 'medium' }));
    if (cost !== undefined) record.usage = { cost: { amount: cost, currency: 'USD' } };
    if (mode) Object.assign(record, { mode, modeNote: `Now ${mode}.` });
    if (facts) {
      const read: PromptFacts = { date: '2026-11-23', budget: 100, instructions: [{ path: '/r/AGENTS.md', label: 'AGENTS.md', text: facts.text, notes: [] }] };
      Object.assign(record, { facts: read }, facts.note ? { factsNote: `AGENTS.md is now ${facts.text}.` } : {}, facts.renew ? { renewFacts: true } : {});
    }
    if (context) record.context = context.summary === undefined ? { stubbed: context.stubbed } : context;
    return record;
  });
const record: fc.Arbitrary<ConversationRecord> = fc.oneof(
  { weight: 8, arbitrary: turn },
  { weight: 1, arbitrary: fc.constant({ type: 'clear' as const, at }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((summary) => ({ type: 'compact' as const, at, summary })) },
);
const history = fc.array(record, { maxLength: 30 });
const rulesArb = fc.constantFrom<ToolMessageRules>({ echoReasoning: false, shortToolCallIds: false }, { echoReasoning: true, shortToolCallIds: true });

const newSession = (): Session => ({ id: 's', cwd: '/', createdAt: at, records: [], model: 'm', options: {} });
const idsOf = (records: readonly ConversationRecord[]) =>
  new Set(records.flatMap((r) => (r.type === 'turn' ? (r.steps ?? []).flatMap((s) => s.toolCalls.map((c) => c.id)) : [])));
const imagesOf = (records: readonly ConversationRecord[]) =>
  records.some((r) => r.type === 'turn' && r.stopReason === 'end_turn' && !r.failed && r.prompt.some((b) => b.type === 'image'));
/** The plan of the latest turn that wrote one, over the whole history. */
const currentPlan = (records: readonly ConversationRecord[]) => records.findLast((r): r is TurnRecord => r.type === 'turn' && r.plan !== undefined)?.plan ?? [];
/** The sum of the turns' costs, over the whole history (every cost here is in USD). */
const savedCost = (records: readonly ConversationRecord[]) => {
  const costs = records.flatMap((r) => (r.type === 'turn' && r.usage?.cost ? [r.usage.cost.amount] : []));
  return costs.length === 0 ? undefined : { amount: costs.reduce((a, b) => a + b, 0), currency: 'USD' };
};

/** Every question asked of `session` answers as it would of the whole `records`. */
function expectSameAsWhole(session: Session, records: readonly ConversationRecord[], rules: ToolMessageRules): void {
  expect(liveConversationOf(session, rules)).toEqual(liveConversation(records, rules));
  expect(liveConversation(session.records, rules)).toEqual(liveConversation(records, rules));
  expect(lastToldMode(session.records)).toEqual(lastToldMode(records));
  expect(currentPlanOf(session)).toEqual(currentPlan(records));
  expect(savedCostOf(session)).toEqual(savedCost(records));
  expect(usedToolCallIds(session)).toEqual(idsOf(records));
  expect(sentImages(session)).toBe(imagesOf(records));
  expect(systemFacts(session.records, factsBeforeOf(session))).toEqual(systemFacts(records));
  expect(toldFacts(session.records, factsBeforeOf(session))).toEqual(toldFacts(records));
}

describe('live records', () => {
  it('a session loaded whole holds no more than its live records and answers as the whole history', () => {
    fc.assert(
      fc.property(history, rulesArb, (records, rules) => {
        const session = newSession();
        loadRecords(session, records);
        expect(session.records.length).toBeLessThanOrEqual(records.length);
        if (session.records.length < records.length) expect(session.records[0]).toBe(records[records.length - session.records.length]);
        expectSameAsWhole(session, records, rules);
      }),
    );
  });

  it('a session grown record by record answers as the whole history after every record (its live conversation extended, not rebuilt)', () => {
    fc.assert(
      fc.property(history, rulesArb, (records, rules) => {
        const session = newSession();
        for (const [i, next] of records.entries()) {
          // Asking before the record builds the cached conversation that the record then extends.
          liveConversationOf(session, rules);
          addRecord(session, next);
          expectSameAsWhole(session, records.slice(0, i + 1), rules);
        }
      }),
    );
  });

  it('/undo of the latest turn answers as the whole history without it, reading it again when the turn stood for what came before', () => {
    fc.assert(
      fc.property(history, rulesArb, (records, rules) => {
        const session = newSession();
        for (const next of records) addRecord(session, next);
        const last = records.findLastIndex((r) => r.type === 'turn');
        const undoable = undoableTurn(session);
        const behind = last !== -1 && records.slice(last + 1).some((r) => r.type !== 'turn');
        if (last === -1 || behind) {
          expect(undoable).toBe(last === -1 ? 'none' : 'behind-reset');
          return;
        }
        expect(undoable).toBe(session.records.length - (records.length - last));
        removeTurn(session, undoable as number);
        const rest = records.filter((_, i) => i !== last);
        if (isUnloaded(session)) reloadRecords(session, rest);
        expect(liveConversationOf(session, rules)).toEqual(liveConversation(rest, rules));
        expect(currentPlanOf(session)).toEqual(currentPlan(rest));
        expect(toldFacts(session.records, factsBeforeOf(session))).toEqual(toldFacts(rest));
      }),
    );
  });
});
