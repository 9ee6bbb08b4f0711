import { describe, expect, it } from 'vitest';
import type { SentTurn } from '../../src/app/model-sender.js';
import { turnRecord, type TurnRecordParts } from '../../src/app/turn-record.js';

const prompt = [{ type: 'text' as const, text: 'hello' }];
const parts: TurnRecordParts = { at: '2025-01-01T00:00:00.000Z', id: 't1', prompt, steering: [], renewFacts: false };
const outcome = (extra: Partial<SentTurn> = {}): SentTurn => ({ stopReason: 'end_turn', text: 'hi', reasoning: '', toolCalls: [], steps: [], ...extra });
const failed = { kind: 'http', status: 500, retryable: true } as const;
const facts = { date: '2025-01-01', budget: 4096, instructions: [] };

describe('turnRecord', () => {
  it('keeps a failed turn that showed nothing, its prompt and the kind of failure, and marks no cancelled one failed', () => {
    expect(turnRecord(outcome({ error: failed, text: '' }), parts)).toEqual({
      type: 'turn',
      at: parts.at,
      id: 't1',
      prompt,
      assistant: '',
      reasoning: '',
      stopReason: 'end_turn',
      failed: { kind: 'http', status: 500 },
    });
    expect(turnRecord(outcome({ error: { kind: 'connection', retryable: true }, text: 'half' }), parts).failed).toEqual({ kind: 'connection' });
    expect(turnRecord(outcome({ error: failed, text: '', stopReason: 'cancelled' }), parts)).not.toHaveProperty('failed');
    expect(turnRecord(outcome(), parts)).not.toHaveProperty('failed');
  });

  it('holds the answer and only the optional fields that say something', () => {
    expect(turnRecord(outcome(), parts)).toEqual({ type: 'turn', at: parts.at, id: 't1', prompt, assistant: 'hi', reasoning: '', stopReason: 'end_turn' });
    const unchanged = turnRecord(outcome({ context: { summary: undefined, stubbed: [] } as SentTurn['context'] }), { ...parts, modeNote: '', mode: undefined });
    expect(Object.keys(unchanged)).toEqual(['type', 'at', 'id', 'prompt', 'assistant', 'reasoning', 'stopReason']);
  });

  it('keeps what was typed, the notes, the facts, the usage with its cost, and the steering', () => {
    const typed = [{ type: 'text' as const, text: '/review' }];
    const steering = [{ at: parts.at, afterStep: 1, prompt }];
    const record = turnRecord(
      outcome({
        usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
        facts: { system: facts, save: facts, note: 'The date is now …' },
      }),
      { ...parts, typed, steering, modeNote: 'Plan mode: …', mode: 'plan', renewFacts: true, cost: { amount: 0.5, currency: 'USD' } },
    );
    expect(record).toMatchObject({
      typed,
      steering,
      modeNote: 'Plan mode: …',
      mode: 'plan',
      renewFacts: true,
      factsNote: 'The date is now …',
      usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12, cost: { amount: 0.5, currency: 'USD' } },
    });
    expect(record.facts).toBe(facts);
  });

  it('gives a cost without usage a usage of its own', () => {
    expect(turnRecord(outcome(), { ...parts, cost: { amount: 1, currency: 'USD' } }).usage).toEqual({ cost: { amount: 1, currency: 'USD' } });
  });
});
