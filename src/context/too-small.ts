/**
 * The words that end a turn when the context window cannot hold what a request must carry: what
 * did not fit, the smallest window that works, and how to give the model a larger one.
 */
import { grouped } from '../shared/grouped.js';

/** How to give the model a larger window, for the usual local servers (when the server's own fix is not known). */
const FIX =
  'Run the model with a larger context window (Ollama: OLLAMA_CONTEXT_LENGTH=32768 or PARAMETER num_ctx in a ' +
  'Modelfile; llama.cpp: -c; vLLM: --max-model-len; LM Studio: the context length setting) and set ' +
  'OPENAI_CONTEXT_WINDOW to it, or lower OPENAI_MAX_TOKENS.';

/** The fix sentence: the server's own (`Fix: restart Ollama with …`), else the usual servers' ways. */
function fixWords(windowFix: string | undefined): string {
  return windowFix ? `Fix: ${windowFix}.` : FIX;
}

/** What did not fit in the window: the system prompt and the tools, the task, or the current tool call and its result. */
type TooSmallPart = 'system' | 'task' | 'result';

const PART_WORDS: Record<TooSmallPart, string> = {
  system: 'the system prompt and the tool definitions with the room for the answer',
  task: 'this request with the system prompt, the tool definitions and the room for the answer',
  result: 'the latest tool call and its result with the system prompt, the tool definitions, this request and the room for the answer',
};

/**
 * The message that ends a turn when the window cannot hold what it must: it names what did not
 * fit (`part`) and the smallest window that works (`minimum`, tokens), then the fix.
 */
export function tooSmall(window: number, minimum: number | undefined, windowFix?: string, part: TooSmallPart = 'system'): string {
  const need = minimum !== undefined ? `: it needs at least ${grouped(minimum)} tokens` : '';
  return `The model's context window (${grouped(window)} tokens) is too small for ${PART_WORDS[part]}${need}. ${fixWords(windowFix)}`;
}

/**
 * The smallest window (tokens, rounded up to 256) for which `holds` is true, searched from
 * `from` (at least 256): doubling, then bisection; `holds` must be monotone. Past 10^9 tokens
 * the search gives up and returns the window it reached.
 */
export function smallestWindow(holds: (window: number) => boolean, from: number): number {
  let high = Math.max(256, from);
  while (!holds(high)) {
    if (high > 1e9) return high;
    high *= 2;
  }
  let low = Math.floor(high / 2);
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (holds(mid)) high = mid;
    else low = mid;
  }
  return Math.ceil(high / 256) * 256;
}
