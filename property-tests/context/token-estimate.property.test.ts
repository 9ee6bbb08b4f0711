import fc from 'fast-check';
import { binaryUnit } from '../../test/helpers/binary-unit.js';
import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_MAX,
  CALIBRATION_MIN,
  calibrationFactor,
  estimateImageTokens,
  estimateTextTokens,
  estimateTokens,
  IMAGE_BASE_TOKENS,
  IMAGE_TILE_TOKENS,
  REPLY_PRIMING_TOKENS,
} from '../../src/context/token-estimate.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { dataUrl, gif, jpeg, png, webp } from '../../test/context/image-headers.js';

const text = fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ unit: binaryUnit, maxLength: 100 }));
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

/**
 * The text estimate by its definition (token-estimate.ts): every UTF-16 unit classified on its
 * own, ASCII 1/4 token, CJK, kana, hangul, full-width forms and surrogates 1, any other 1/2.
 */
function referenceTextTokens(text: string): number {
  let tokens = 0;
  for (const unit of text.split('')) {
    const c = unit.charCodeAt(0);
    const wide = (c >= 0x2e80 && c <= 0xd7ff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef) || (c >= 0xd800 && c <= 0xdfff);
    tokens += c < 0x80 ? 0.25 : wide ? 1 : 0.5;
  }
  return Math.ceil(tokens);
}

describe('estimates (property)', () => {
  it('estimate any text as its units classified one by one, however ASCII and other units mix', () => {
    const mixed = fc
      .array(
        fc.oneof(
          fc.string({ maxLength: 40 }),
          text,
          fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
        ),
        { maxLength: 6 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(mixed, (value) => {
        expect(estimateTextTokens(value)).toBe(referenceTextTokens(value));
      }),
      { numRuns: 500 },
    );
  });

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
