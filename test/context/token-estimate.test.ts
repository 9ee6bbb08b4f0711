/**
 * Token estimates (text, messages, images), calibration, the prompt budget, and the notice shown
 * when history was left out.
 */
import { describe, expect, it } from 'vitest';
import {
  calibrationFactor,
  estimateImageTokens,
  estimateMessageTokens,
  estimateTextTokens,
  estimateTokens,
  MESSAGE_OVERHEAD_TOKENS,
  promptBudget,
  answerRoom,
  REPLY_PRIMING_TOKENS,
  UNKNOWN_IMAGE_TOKENS,
} from '../../src/context/token-estimate.js';
import { imageDimensions } from '../../src/context/image-size.js';
import { trimmingNotice } from '../../src/context/compaction.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { dataUrl, gif, jpeg, png, webp } from './image-headers.js';

/** A message whose estimate is exactly `tokens` (content of `tokens - overhead` ASCII tokens). */
const user = (tokens: number, tag = ''): ChatMessage => ({ role: 'user', content: tag.padEnd(4 * (tokens - MESSAGE_OVERHEAD_TOKENS), '.') });
const assistant = (tokens: number, tag = ''): ChatMessage => ({ role: 'assistant', content: tag.padEnd(4 * (tokens - MESSAGE_OVERHEAD_TOKENS), '.') });
const b64 = (data: number[]) => Buffer.from(data).toString('base64');

describe('estimateTextTokens', () => {
  it.each([
    ['', 0],
    ['abcd', 1],
    ['abcde', 2],
    ['a'.repeat(400), 100],
    ['你好世界', 4],
    ['こんにちは', 5],
    ['привет', 3],
    ['😀', 2],
    ['abcd你好', 3],
    ['你好abcd', 3],
    ['ab\u007fc\u0080', 2],
  ])('%j → %i', (text, tokens) => {
    expect(estimateTextTokens(text)).toBe(tokens);
  });
});

describe('estimateMessageTokens / estimateTokens', () => {
  it('counts the per-message overhead and the text', () => {
    expect(estimateMessageTokens({ role: 'user', content: 'a'.repeat(40) })).toBe(MESSAGE_OVERHEAD_TOKENS + 10);
    expect(estimateMessageTokens({ role: 'assistant', content: '' })).toBe(MESSAGE_OVERHEAD_TOKENS);
  });

  it('counts text parts as text and image parts as images', () => {
    const url = dataUrl('image/png', png(1024, 1024));
    const message: ChatMessage = {
      role: 'user',
      content: [
        { type: 'text', text: 'a'.repeat(20) },
        { type: 'image_url', image_url: { url } },
      ],
    };
    expect(estimateMessageTokens(message)).toBe(MESSAGE_OVERHEAD_TOKENS + 5 + 765);
  });

  it('counts other fields (tool calls) as their JSON text', () => {
    const toolCalls = [{ id: 'call_1', type: 'function' as const, function: { name: 'read', arguments: '{"path":"a.txt"}' } }];
    const message: ChatMessage = { role: 'assistant', content: null, tool_calls: toolCalls };
    expect(estimateMessageTokens(message)).toBe(MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(JSON.stringify(toolCalls)));
    const result: ChatMessage = { role: 'tool', tool_call_id: 'call_1', content: 'x'.repeat(40) };
    expect(estimateMessageTokens(result)).toBe(MESSAGE_OVERHEAD_TOKENS + estimateTextTokens('call_1') + 10);
  });

  it('adds the reply priming once per request, and nothing for no messages', () => {
    expect(estimateTokens([])).toBe(0);
    expect(estimateTokens([user(10), assistant(20)])).toBe(REPLY_PRIMING_TOKENS + 30);
  });
});

describe('image estimates', () => {
  it.each([
    ['PNG', png(1920, 1080), { width: 1920, height: 1080 }],
    ['GIF', gif(300, 200), { width: 300, height: 200 }],
    ['WebP lossy', webp('VP8 ', 1023, 767), { width: 1023, height: 767 }],
    ['WebP lossless', webp('VP8L', 16383, 2), { width: 16383, height: 2 }],
    ['WebP extended', webp('VP8X', 4000, 3000), { width: 4000, height: 3000 }],
    ['JPEG', jpeg(640, 480), { width: 640, height: 480 }],
    ['progressive JPEG', jpeg(720, 477, [], 0xc2), { width: 720, height: 477 }],
    ['JPEG with 120 KB of EXIF and ICC segments before the frame', jpeg(4032, 3024, [60_000, 60_000]), { width: 4032, height: 3024 }],
  ])('reads the size of a %s', (_name, data, size) => {
    expect(imageDimensions(b64(data))).toEqual(size);
  });

  it('reads no size from other data', () => {
    expect(imageDimensions('')).toBeUndefined();
    expect(imageDimensions(b64([...Buffer.from('BM not a supported format, just some bytes')]))).toBeUndefined();
    expect(imageDimensions(b64(png(0, 10)))).toBeUndefined();
    expect(imageDimensions(b64([0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff]))).toBeUndefined(); // segment running past the end
    expect(imageDimensions('!!!! not base64 ####')).toBeUndefined();
  });

  it("applies OpenAI's documented costs", () => {
    // https://platform.openai.com/docs/guides/images-vision#calculating-costs
    expect(estimateImageTokens(dataUrl('image/png', png(1024, 1024)))).toBe(765);
    expect(estimateImageTokens(dataUrl('image/jpeg', jpeg(2048, 4096)))).toBe(1105);
    expect(estimateImageTokens(dataUrl('image/jpeg', jpeg(4096, 8192)), 'low')).toBe(85);
    // Small images are not scaled up: one tile.
    expect(estimateImageTokens(dataUrl('image/gif', gif(300, 200)))).toBe(255);
    // 1920 × 1080 → 1365 × 768 → 3 × 2 tiles.
    expect(estimateImageTokens(dataUrl('image/webp', webp('VP8X', 1920, 1080)))).toBe(1105);
  });

  it('uses the fixed cost when the size is unknown', () => {
    expect(UNKNOWN_IMAGE_TOKENS).toBe(1105);
    expect(estimateImageTokens('https://example.com/cat.png')).toBe(UNKNOWN_IMAGE_TOKENS);
    expect(estimateImageTokens('data:image/png;base64,AAAA')).toBe(UNKNOWN_IMAGE_TOKENS);
    expect(estimateImageTokens('data:image/svg+xml,<svg/>')).toBe(UNKNOWN_IMAGE_TOKENS);
  });

  it('reads data URLs with extra parameters', () => {
    expect(estimateImageTokens(`data:image/png;name=a.png;base64,${b64(png(100, 100))}`)).toBe(255);
  });
});

describe('calibrationFactor', () => {
  it('scales by the provider count over our estimate', () => {
    expect(calibrationFactor({ estimated: 1000, actual: 1200 })).toBeCloseTo(1.2);
    expect(calibrationFactor({ estimated: 1000, actual: 700 })).toBeCloseTo(0.7);
  });
  it('is bounded to 0.5–3', () => {
    expect(calibrationFactor({ estimated: 1000, actual: 100_000 })).toBe(3);
    expect(calibrationFactor({ estimated: 1000, actual: 1 })).toBe(0.5);
  });
  it('is 1 without a usable sample', () => {
    expect(calibrationFactor(undefined)).toBe(1);
    expect(calibrationFactor({ estimated: 10, actual: 30 })).toBe(1); // template overhead dominates tiny prompts
    expect(calibrationFactor({ estimated: 1000, actual: 0 })).toBe(1);
    expect(calibrationFactor({ estimated: Number.NaN, actual: 1000 })).toBe(1);
    expect(calibrationFactor({ estimated: 1000, actual: Number.POSITIVE_INFINITY })).toBe(1);
  });
});

describe('promptBudget', () => {
  it('leaves the answer room (maxTokens, else min(25 %, max(4096, 1/8)) of the window) and a 3 % margin', () => {
    expect(promptBudget(128_000)).toBe(128_000 - 16_000 - 3840);
    expect(promptBudget(32_768)).toBe(32_768 - 4096 - 984);
    expect(answerRoom(4096)).toBe(1024);
    expect(answerRoom(200_000)).toBe(25_000);
    expect(answerRoom(400_000)).toBe(50_000);
    expect(promptBudget(8000)).toBe(8000 - 2000 - 240);
    expect(promptBudget(8000, 1000)).toBe(8000 - 1000 - 240);
    expect(promptBudget(8000, 1000, 10)).toBe(7990);
    expect(promptBudget(8000, 9000)).toBe(0);
  });
});

describe('trimmingNotice', () => {
  it('names the count and the window', () => {
    expect(trimmingNotice(3, 128_000)).toBe("3 earlier turns were left out to fit the model's context window (128,000 tokens).");
    expect(trimmingNotice(1, 8192)).toBe("1 earlier turn was left out to fit the model's context window (8,192 tokens).");
    expect(trimmingNotice(1200, 1_000_000)).toBe("1,200 earlier turns were left out to fit the model's context window (1,000,000 tokens).");
  });
  it('names steps of the turn too', () => {
    expect(trimmingNotice(0, 8000, 1)).toBe("1 earlier step of this turn was left out to fit the model's context window (8,000 tokens).");
    expect(trimmingNotice(2, 8000, 3)).toBe("2 earlier turns and 3 earlier steps of this turn were left out to fit the model's context window (8,000 tokens).");
  });
  it('is empty when nothing was left out', () => {
    expect(trimmingNotice(0, 128_000)).toBe('');
  });
});
