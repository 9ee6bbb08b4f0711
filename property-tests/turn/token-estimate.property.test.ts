import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_MAX,
  CALIBRATION_MIN,
  calibrationFactor,
  estimateImageTokens,
  estimateMessageTokens,
  estimateTokens,
  IMAGE_BASE_TOKENS,
  IMAGE_TILE_TOKENS,
  planContext,
  REPLY_PRIMING_TOKENS,
  type ContextPlanInput,
} from '../../src/turn/context-window.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { dataUrl, gif, jpeg, png, webp } from '../../test/turn/context-window-images.js';

const text = fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 100 }));
const imageUrl = fc.oneof(
  fc.constant('https://example.com/a.png'),
  fc.tuple(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 10_000 })).map(([w, h]) => dataUrl('image/png', png(w, h))),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => dataUrl('image/jpeg', bytes)),
);
const userMessage: fc.Arbitrary<ChatMessage> = fc.oneof(
  text.map((content) => ({ role: 'user' as const, content })),
  fc
    .array(fc.oneof(text.map((t) => ({ type: 'text' as const, text: t })), imageUrl.map((url) => ({ type: 'image_url' as const, image_url: { url } }))), { maxLength: 3 })
    .map((content) => ({ role: 'user' as const, content })),
);
const assistantMessage: fc.Arbitrary<ChatMessage> = text.map((content) => ({ role: 'assistant' as const, content }));
const turn = fc.oneof(
  fc.tuple(userMessage, assistantMessage).map(([u, a]) => [u, a]),
  userMessage.map((u) => [u]),
);
const input: fc.Arbitrary<ContextPlanInput> = fc.record(
  {
    system: fc.option(text.map((content) => ({ role: 'system' as const, content })), { nil: undefined }),
    turns: fc.array(turn, { maxLength: 12 }),
    current: userMessage,
    contextWindow: fc.option(fc.integer({ min: 1, max: 6000 }), { nil: undefined }),
    reserveTokens: fc.option(fc.integer({ min: 0, max: 2000 }), { nil: undefined }),
    maxTokens: fc.option(fc.integer({ min: 1, max: 2000 }), { nil: undefined }),
    calibration: fc.option(fc.record({ estimated: fc.integer({ min: 0, max: 100_000 }), actual: fc.integer({ min: 0, max: 100_000 }) }), { nil: undefined }),
  },
  { requiredKeys: ['turns', 'current', 'contextWindow'] },
);

const sumTokens = (messages: readonly ChatMessage[]) => messages.reduce((n, m) => n + estimateMessageTokens(m), 0);

describe('planContext (property)', () => {
  it('keeps the system prompt first, the current message last, and a suffix of whole turns between', () => {
    fc.assert(
      fc.property(input, (i) => {
        const plan = planContext(i);
        expect(plan.messages[plan.messages.length - 1]).toBe(i.current);
        if (i.system) expect(plan.messages[0]).toBe(i.system);
        expect(plan.droppedTurns + plan.keptTurns).toBe(i.turns.length);
        expect(plan.droppedTurns).toBeGreaterThanOrEqual(0);
        expect(plan.keptTurns).toBeGreaterThanOrEqual(0);
        const middle = plan.messages.slice(i.system ? 1 : 0, -1);
        const kept = i.turns.slice(plan.droppedTurns).flat();
        expect(middle).toHaveLength(kept.length);
        middle.forEach((message, k) => expect(message).toBe(kept[k]));
      }),
      { numRuns: 500 },
    );
  });

  it('stays within the budget whenever system and current fit, and drops no turn it had room for', () => {
    fc.assert(
      fc.property(input, (i) => {
        const plan = planContext(i);
        const factor = calibrationFactor(i.calibration);
        expect(plan.rawEstimatedTokens).toBe(estimateTokens(plan.messages));
        expect(plan.estimatedTokens).toBe(Math.ceil(plan.rawEstimatedTokens * factor));
        if (plan.budget === undefined) {
          expect(plan.droppedTurns).toBe(0);
          return;
        }
        if (plan.fits) expect(plan.estimatedTokens).toBeLessThanOrEqual(plan.budget);
        else expect(plan.keptTurns).toBe(0);
        if (plan.droppedTurns > 0 && plan.fits) {
          // The newest dropped turn would not have fitted.
          const next = i.turns[plan.droppedTurns - 1]!;
          expect(Math.ceil((plan.rawEstimatedTokens + sumTokens(next)) * factor)).toBeGreaterThan(plan.budget);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps no fewer turns in a larger window', () => {
    fc.assert(
      fc.property(input, fc.integer({ min: 0, max: 5000 }), (i, extra) => {
        fc.pre(i.contextWindow !== undefined);
        const small = planContext({ ...i, reserveTokens: i.reserveTokens ?? 0 });
        const large = planContext({ ...i, reserveTokens: i.reserveTokens ?? 0, contextWindow: i.contextWindow! + extra });
        expect(large.keptTurns).toBeGreaterThanOrEqual(small.keptTurns);
      }),
      { numRuns: 300 },
    );
  });
});

describe('estimates (property)', () => {
  it('are additive over messages, with the reply priming counted once', () => {
    fc.assert(
      fc.property(fc.array(userMessage, { minLength: 1, maxLength: 5 }), fc.array(assistantMessage, { minLength: 1, maxLength: 5 }), (a, b) => {
        expect(estimateTokens([...a, ...b])).toBe(estimateTokens(a) + estimateTokens(b) - REPLY_PRIMING_TOKENS);
        expect(estimateTokens(a)).toBeGreaterThan(REPLY_PRIMING_TOKENS);
      }),
    );
  });

  it('price any image between a low-detail image and 8 tiles, and never throw', () => {
    const anyImage = fc.oneof(
      fc.string(),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => dataUrl('image/png', bytes)),
      fc
        .tuple(fc.integer({ min: 1, max: 16_383 }), fc.integer({ min: 1, max: 16_383 }), fc.constantFrom('png', 'gif', 'vp8', 'vp8l', 'vp8x', 'jpeg'))
        .map(([w, h, kind]) =>
          dataUrl('image/x', kind === 'png' ? png(w, h) : kind === 'gif' ? gif(w, h) : kind === 'jpeg' ? jpeg(w, h) : webp(kind === 'vp8' ? 'VP8 ' : kind === 'vp8l' ? 'VP8L' : 'VP8X', w, h)),
        ),
    );
    fc.assert(
      fc.property(anyImage, fc.option(fc.constantFrom('low', 'high', 'auto'), { nil: undefined }), (url, detail) => {
        const tokens = estimateImageTokens(url, detail);
        expect(tokens).toBeGreaterThanOrEqual(IMAGE_BASE_TOKENS);
        expect(tokens).toBeLessThanOrEqual(IMAGE_BASE_TOKENS + 8 * IMAGE_TILE_TOKENS);
        expect((tokens - IMAGE_BASE_TOKENS) % IMAGE_TILE_TOKENS).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  it('calibration factor is always within bounds', () => {
    fc.assert(
      fc.property(fc.double(), fc.double(), (estimated, actual) => {
        const factor = calibrationFactor({ estimated, actual });
        expect(factor).toBeGreaterThanOrEqual(CALIBRATION_MIN);
        expect(factor).toBeLessThanOrEqual(CALIBRATION_MAX);
      }),
    );
  });
});
