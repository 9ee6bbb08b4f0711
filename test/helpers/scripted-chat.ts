/**
 * A `ChatCompletionsClient` stand-in for agent-loop tests: each request gets the next scripted
 * answer, streamed as SSE items the way `ChatCompletionsClient.stream()` yields them (one batch
 * per "network read"). Records every request's messages and tool names.
 */
import type { ChatCompletionsClient, ChatRequest } from '../../src/openai/chat-client.js';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import type { SseItem } from '../../src/openai/sse.js';
import { ProviderHttpError } from '../../src/openai/errors.js';

/** One scripted answer. `hang` streams its text, then nothing more until the abort. */
export interface ScriptedAnswer {
  text?: string | string[];
  toolCalls?: { id?: string; name: string; arguments: string }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  hang?: boolean;
  /** The answer's `finish_reason`; default `tool_calls` with calls, else `stop`. */
  finishReason?: string;
  /** The request fails with this HTTP answer instead. */
  error?: { status: number; body: string };
}

/** A request as the fake saw it. */
interface SeenRequest {
  messages: ChatMessage[];
  tools: string[];
  /** True when the request had no `tools` field. */
  noTools?: true;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseItem => ({
  kind: 'chunk',
  chunk: { choices: [{ index: 0, delta, finish_reason: finish }] } as never,
});

/** The SSE batches of one answer. */
function answerItems(answer: ScriptedAnswer): SseItem[][] {
  const batches: SseItem[][] = [];
  const texts = answer.text === undefined ? [] : Array.isArray(answer.text) ? answer.text : [answer.text];
  for (const text of texts) batches.push([chunk({ content: text })]);
  (answer.toolCalls ?? []).forEach((call, index) => {
    batches.push([
      chunk({ tool_calls: [{ index, ...(call.id === undefined ? {} : { id: call.id }), type: 'function', function: { name: call.name, arguments: '' } }] }),
    ]);
    batches.push([chunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] })]);
  });
  const finish: SseItem[] = [chunk({}, answer.finishReason ?? (answer.toolCalls?.length ? 'tool_calls' : 'stop'))];
  if (answer.usage) finish.push({ kind: 'chunk', chunk: { choices: [], usage: answer.usage } as never });
  finish.push({ kind: 'done' });
  batches.push(finish);
  return batches;
}

/** The fake client; throws when asked for more answers than scripted. */
export function scriptedChat(answers: ScriptedAnswer[]) {
  const seen: SeenRequest[] = [];
  let next = 0;
  const client = {
    options: { url: 'http://127.0.0.1:1/v1/chat/completions' },
    async *stream(request: ChatRequest, signal: AbortSignal): AsyncGenerator<SseItem[]> {
      seen.push({
        messages: structuredClone(request.messages),
        tools: (request.tools ?? []).map((t) => t.function.name),
        ...(request.tools ? {} : { noTools: true }),
      });
      const answer = answers[next++];
      if (!answer) throw new Error(`no scripted answer for request ${next}`);
      if (answer.error)
        throw new ProviderHttpError(answer.error.status, new Headers({ 'content-type': 'application/json' }), answer.error.body, client.options.url);
      const batches = answerItems(answer);
      for (const [index, batch] of batches.entries()) {
        // `hang`: the text batches go out, then nothing until the abort.
        if (answer.hang && (index === batches.length - 1 || batch.some((item) => item.kind === 'chunk' && JSON.stringify(item.chunk).includes('tool_calls')))) {
          await new Promise((_, reject) => {
            if (signal.aborted) reject(signal.reason);
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          });
        }
        signal.throwIfAborted();
        yield batch;
      }
    },
  };
  return { client: client as unknown as ChatCompletionsClient, seen, requests: () => next };
}
