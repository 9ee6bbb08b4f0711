/**
 * Costs as providers report them: OpenRouter's `usage.cost` (from the recorded stream in
 * test/fixtures/providers), LiteLLM's `x-litellm-response-cost` header; bad values left out with a
 * debug line; a session's total in its first currency; never a price of our own.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CostMeter } from '../../src/loop/cost-meter.js';
import { loadRecords, savedCostOf } from '../../src/sessions/live-records.js';
import { createLogger } from '../../src/shared/log.js';
import { addCost, reportedCost } from '../../src/openai/reported-cost.js';

describe('reportedCost', () => {
  it("reads OpenRouter's usage.cost from the recorded stream", () => {
    const sse = readFileSync(new URL('../fixtures/providers/openrouter__anthropic_text_processing_comment.sse', import.meta.url), 'utf8');
    const usage = sse
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)))
      .find((chunk) => chunk.usage)?.usage;
    expect(reportedCost(usage, null)).toEqual({ cost: { amount: 0.000106, currency: 'USD' } });
  });

  it("reads LiteLLM's header when the usage has no cost, and prefers the usage's", () => {
    expect(reportedCost({ prompt_tokens: 1 }, '0.00042')).toEqual({ cost: { amount: 0.00042, currency: 'USD' } });
    expect(reportedCost({ cost: 0.1 }, '0.2')).toEqual({ cost: { amount: 0.1, currency: 'USD' } });
  });

  it('reports nothing without a cost, and a bad value as bad', () => {
    expect(reportedCost({ prompt_tokens: 5 }, undefined)).toBeUndefined();
    expect(reportedCost(undefined, '')).toBeUndefined();
    expect(reportedCost({ cost: null }, null)).toBeUndefined();
    for (const bad of [-1, 'abc', Number.NaN, Infinity, {}]) expect(reportedCost({ cost: bad }, null)).toHaveProperty('bad');
    expect(reportedCost(undefined, 'free')).toHaveProperty('bad');
    expect(reportedCost(undefined, '-0.5')).toHaveProperty('bad');
  });
});

describe('CostMeter', () => {
  it('adds up, keeps the first currency, and leaves out bad or foreign costs with a debug line', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (line) => void lines.push(line) });
    const meter = new CostMeter(undefined, logger);
    expect(meter.total).toBeUndefined();
    meter.take(undefined);
    meter.take({ cost: { amount: 0.000106, currency: 'USD' } });
    meter.take({ cost: { amount: 0.000106, currency: 'USD' } });
    meter.take({ bad: 'usage.cost -1' });
    meter.take({ cost: { amount: 5, currency: 'EUR' } });
    expect(meter.total!.amount).toBeCloseTo(0.000212, 12);
    expect(meter.total!.currency).toBe('USD');
    expect(lines.filter((line) => line.includes('a reported cost was left out'))).toHaveLength(2);
  });

  it("starts from the costs saved with a session's turns", () => {
    const records = [
      { type: 'turn', usage: { cost: { amount: 1, currency: 'USD' } } },
      { type: 'clear' },
      { type: 'turn', usage: {} },
      { type: 'turn', usage: { cost: { amount: 0.5, currency: 'USD' } } },
      { type: 'turn', usage: { cost: { amount: -3, currency: 'USD' } } },
    ];
    const savedCost = (list: unknown[]) => {
      const session = { records: [] };
      loadRecords(session, list as never[]);
      return savedCostOf(session);
    };
    expect(savedCost(records)).toEqual({ amount: 1.5, currency: 'USD' });
    expect(savedCost([])).toBeUndefined();
    const meter = new CostMeter(savedCost(records));
    meter.take({ cost: { amount: 0.25, currency: 'USD' } });
    expect(meter.total).toEqual({ amount: 1.75, currency: 'USD' });
    expect(meter.added).toEqual({ amount: 0.25, currency: 'USD' });
  });

  it('addCost refuses to add another currency', () => {
    expect(addCost({ amount: 1, currency: 'USD' }, { amount: 1, currency: 'credits' })).toHaveProperty('bad');
  });
});
