/**
 * What a request cost, as the provider reports it: never a price table of our own, so no report
 * means no cost. Pure.
 *
 * Sources:
 * - OpenRouter: `usage.cost` in the usage chunk of a streamed answer (and the usage of a
 *   non-streaming one), in credits, which are US dollars
 *   (https://openrouter.ai/docs/use-cases/usage-accounting; recorded in
 *   `test/fixtures/providers/openrouter__anthropic_text_processing_comment.sse`: `"cost":0.000106`).
 * - LiteLLM proxy: the `x-litellm-response-cost` response header, in US dollars
 *   (https://docs.litellm.ai/docs/proxy/response_headers).
 */
import type { ChatUsage } from './openai-types.js';

/** A cost: `amount` in `currency` (ISO 4217 code, or another unit such as "credits"). ACP `Cost`. */
export interface Cost {
  amount: number;
  currency: string;
}

/** The LiteLLM proxy's header with the request's cost in USD. */
export const LITELLM_COST_HEADER = 'x-litellm-response-cost';

/** A reported cost, or why a value that looked like one was not taken (for a debug line). */
export type CostReport = { cost: Cost } | { bad: string } | undefined;

/** `value` as an amount: a finite, non-negative number (a numeric string from a header too). */
function amountOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * The cost of one request: the usage's `cost` (OpenRouter) first, else the LiteLLM header; both
 * in USD. `{bad}` for a value present but negative or not a number; `undefined` when none is reported.
 */
export function reportedCost(usage: ChatUsage | undefined, header: string | null | undefined): CostReport {
  const fromUsage = usage?.['cost'];
  if (fromUsage !== undefined && fromUsage !== null) {
    const amount = amountOf(fromUsage);
    return amount === undefined ? { bad: `usage.cost ${JSON.stringify(fromUsage)}` } : { cost: { amount, currency: 'USD' } };
  }
  if (header !== undefined && header !== null && header !== '') {
    const amount = amountOf(header);
    return amount === undefined ? { bad: `${LITELLM_COST_HEADER} ${JSON.stringify(header)}` } : { cost: { amount, currency: 'USD' } };
  }
  return undefined;
}

/**
 * `total` plus `next`: the session's first cost fixes the currency; a cost in another one is
 * left out (`{bad}`), as the sum would mean nothing.
 */
export function addCost(total: Cost | undefined, next: Cost): { total: Cost } | { bad: string } {
  if (!total) return { total: { ...next } };
  if (total.currency !== next.currency) return { bad: `a cost in ${next.currency}, not ${total.currency} as the session's first` };
  return { total: { amount: total.amount + next.amount, currency: total.currency } };
}
