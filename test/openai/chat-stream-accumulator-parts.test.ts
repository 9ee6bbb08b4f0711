/**
 * The accumulator folds its text pieces as they gather (to keep long turns light on memory): the
 * result must still be every piece in order, however many there are and whenever `result()` is
 * asked for in between.
 */
import { describe, expect, it } from 'vitest';
import { ChatStreamAccumulator } from '../../src/openai/chat-stream-accumulator.js';

const chunk = (delta: Record<string, unknown>) => ({ kind: 'chunk' as const, chunk: { choices: [{ index: 0, delta, finish_reason: null }] } });

describe('ChatStreamAccumulator with many deltas', () => {
  it('reassembles thousands of text and reasoning pieces, with result() asked for along the way', () => {
    const acc = new ChatStreamAccumulator();
    let text = '';
    let reasoning = '';
    for (let i = 0; i < 3000; i++) {
      const piece = ` t${i}`;
      if (i % 7 === 0) {
        acc.push(chunk({ reasoning_content: piece }));
        reasoning += piece;
      } else {
        acc.push(chunk(i % 2 === 0 ? { content: piece } : { content: [{ type: 'text', text: piece }] }));
        text += piece;
      }
      if (i % 401 === 0) expect(acc.result().text).toBe(text);
    }
    expect(acc.result()).toMatchObject({ text, reasoning });
  });
});
