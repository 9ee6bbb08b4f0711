/** Reading a `chat.completion.chunk`: which choice counts. */
import { isRecord } from '../shared/json-value.js';
import type { ChatChoiceChunk } from './openai-types.js';

/** The choice to read: the one with `index` 0, else the first one without an index. */
export function pickChoice(choices: ChatChoiceChunk[]): ChatChoiceChunk | undefined {
  let fallback: ChatChoiceChunk | undefined;
  for (const choice of choices) {
    if (!isRecord(choice)) continue;
    if (choice.index === 0) return choice;
    if ((choice.index === undefined || choice.index === null) && fallback === undefined) fallback = choice;
  }
  return fallback;
}
