/**
 * The session's cumulative cost, as providers report it (`openai/reported-cost.ts`), for
 * `usage_update.cost`; a value that is negative, not a number, or in another currency than the
 * session's first is left out with a debug line.
 *
 * Source: ACP `UsageUpdate.cost` ("Cumulative session cost"), schema `Cost {amount, currency}`.
 */
import type { Logger } from '../shared/log.js';
import { addCost, type Cost, type CostReport } from '../openai/reported-cost.js';

/** Adds up reported costs: the session's total, and what this meter added (the turn's cost). */
export class CostMeter {
  #total: Cost | undefined;
  #added: Cost | undefined;

  /** `start`: the session's cost before this turn (from its saved turns), if any. */
  constructor(
    start: Cost | undefined,
    private readonly logger?: Logger | undefined,
  ) {
    this.#total = start && { ...start };
  }

  /** Takes one request's report; a bad one is logged at debug and left out. */
  take(report: CostReport): void {
    if (!report) return;
    if ('bad' in report) {
      this.logger?.debug('a reported cost was left out', { reason: report.bad });
      return;
    }
    const total = addCost(this.#total, report.cost);
    if ('bad' in total) {
      this.logger?.debug('a reported cost was left out', { reason: total.bad });
      return;
    }
    this.#total = total.total;
    const added = addCost(this.#added, report.cost);
    if ('total' in added) this.#added = added.total;
  }

  /** The session's cumulative cost; `undefined` while no provider reported one. */
  get total(): Cost | undefined {
    return this.#total && { ...this.#total };
  }

  /** What this meter added (one turn's cost); `undefined` when nothing was reported. */
  get added(): Cost | undefined {
    return this.#added && { ...this.#added };
  }
}

/** What was added between two readings of a meter's total; `undefined` for nothing. */
export function costSince(before: Cost | undefined, after: Cost | undefined): Cost | undefined {
  if (!after) return undefined;
  const amount = after.amount - (before && before.currency === after.currency ? before.amount : 0);
  return amount > 0 ? { amount, currency: after.currency } : undefined;
}
