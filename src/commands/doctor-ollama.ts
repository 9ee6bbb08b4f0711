/**
 * `doctor`'s lines about Ollama's native chat API: which API the agent uses, the window it asks
 * Ollama for, and, kept apart from it, what the server reports: the window it runs now and the
 * trained one (see `endpoints/ollama-native.ts`).
 */
import type { OllamaWindowFacts } from '../endpoints/ollama-native.js';
import { grouped } from '../shared/grouped.js';

const tokens = (value: number) => `${grouped(value)} tokens`;

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
      const why =
        facts.asked < facts.setting && facts.trained === facts.asked
          ? `OPENAI_ACP_OLLAMA_NUM_CTX ${facts.setting}, capped by the trained window`
          : facts.asked === facts.setting
            ? 'OPENAI_ACP_OLLAMA_NUM_CTX'
            : 'options.num_ctx of OPENAI_EXTRA_BODY';
      rows.push(['window asked', `${tokens(facts.asked)} asked of Ollama (${why})`]);
    }
  }
  rows.push([
    'runtime window',
    facts?.runtime ? `${tokens(facts.runtime)} reported by the server (/api/ps: the model as loaded now)` : 'the model is not loaded now (/api/ps)',
  ]);
  rows.push(['trained window', facts?.trained ? `${tokens(facts.trained)} reported by the server (/api/show)` : 'not reported (/api/show)']);
  return rows.map(([name, value]) => `    ${name.padEnd(16)}${value}`);
}

/**
 * The "chat URL" configuration row of an endpoint with a native chat API, before any request:
 * `/api/chat` unless `OPENAI_ACP_OLLAMA_NUM_CTX=0`, with the `/v1` URL used should the server not
 * serve it (the "chat API" row of the checks says which it was).
 * @param v1ChatUrl - the Chat Completions URL, masked
 */
export function ollamaChatUrl(root: string, inUse: boolean, v1ChatUrl: string): string {
  if (!inUse) return `${v1ChatUrl} (OpenAI-compatible /v1: OPENAI_ACP_OLLAMA_NUM_CTX=0)`;
  return `${root}/api/chat (Ollama's native API; ${v1ChatUrl} if the server does not serve it)`;
}
