/**
 * `doctor`'s lines about Ollama's native chat API: which API the agent uses, the window it asks
 * for, the window the server runs now, and the trained window (see `endpoints/ollama-native.ts`).
 */
import type { OllamaWindowFacts } from '../endpoints/ollama-native.js';

const tokens = (value: number) => `${value.toLocaleString('en-US')} tokens`;

/**
 * The rows for one endpoint, indented like the configuration rows.
 * @param facts - what the endpoint's native router saw; `undefined` when the server could not be asked
 */
export function ollamaRows(facts: OllamaWindowFacts | undefined): string[] {
  const rows: [string, string][] = [];
  if (!facts) {
    rows.push(['chat API', 'unknown: the server could not be asked']);
  } else if (facts.api.kind === 'v1') {
    const why = facts.setting === 0 ? 'OPENAI_ACP_OLLAMA_NUM_CTX=0' : `the native /api/chat is not served (${facts.api.reason})`;
    rows.push(['chat API', `OpenAI-compatible /v1: ${why}, so the window is the server's own`]);
  } else {
    rows.push(['chat API', `Ollama native ${facts.api.url} (options.num_ctx)`]);
    if (facts.asked !== undefined) {
      const why = facts.asked < facts.setting && facts.trained === facts.asked ? `OPENAI_ACP_OLLAMA_NUM_CTX ${facts.setting}, capped by the trained window` : facts.asked === facts.setting ? 'OPENAI_ACP_OLLAMA_NUM_CTX' : 'options.num_ctx of OPENAI_EXTRA_BODY';
      rows.push(['window asked', `${tokens(facts.asked)} (${why})`]);
    }
  }
  rows.push(['runtime window', facts?.runtime ? `${tokens(facts.runtime)} (/api/ps: the model as loaded now)` : 'the model is not loaded now (/api/ps)']);
  rows.push(['trained window', facts?.trained ? `${tokens(facts.trained)} (/api/show)` : 'not reported (/api/show)']);
  return rows.map(([name, value]) => `    ${name.padEnd(16)}${value}`);
}
