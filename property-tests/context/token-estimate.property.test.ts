import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_MAX,
  CALIBRATION_MIN,
  calibrationFactor,
  estimateImageTokens,
  estimateTokens,
  IMAGE_BASE_TOKENS,
  IMAGE_TILE_TOKENS,
  REPLY_PRIMING_TOKENS,
} from '../../src/context/token-estimate.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { dataUrl, gif, jpeg, png, webp } from '../../test/context/image-headers.js';

const text = fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 100 }));
const imageUrl = fc.oneof(
  fc.constant('https://example.com/a.png'),
  fc.tuple(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 10_000 })).map(([w, h]) => dataUrl('image/png', png(w, h))),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => dataUrl('image/jpeg', bytes)),
);
const userMessage: fc.Arbitrary<ChatMessage> = fc.oneof(
  text.map((content) => ({ role: 'user' as const, content })),
  fc
    .array(
      fc.oneof(
        text.map((t) => ({ type: 'text' as const, text: t })),
        imageUrl.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
      ),
      { maxLength: 3 },
    )
    .map((content) => ({ role: 'user' as const, content })),
);
const assistantMessage: fc.Arbitrary<ChatMessage> = text.map((content) => ({ role: 'assistant' as const, content }));

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
          dataUrl(
            'image/x',
            kind === 'png'
              ? png(w, h)
              : kind === 'gif'
                ? gif(w, h)
                : kind === 'jpeg'
                  ? jpeg(w, h)
                  : webp(kind === 'vp8' ? 'VP8 ' : kind === 'vp8l' ? 'VP8L' : 'VP8X', w, h),
          ),
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
