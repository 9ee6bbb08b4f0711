/**
 * The agent loop and the window: each request carries the answer's room as its cap (unless the
 * user set one), an overflow without a number teaches the size that then worked, and a window the
 * server states below the smallest that works ends the turn at once with the fix.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { UpdateSink } from '../../src/tools/index.js';
import { describe, expect, it } from 'vitest';
import { runAgentLoop } from '../../src/loop/agent-loop.js';
import { TextToolPaths } from '../../src/endpoints/learned-text-paths.js';
import { LearnedWindows } from '../../src/endpoints/learned-windows.js';
import { ProviderHttpError } from '../../src/openai/errors.js';
import type { ChatCompletionsClient, ChatRequest } from '../../src/openai/chat-client.js';
import type { SseItem } from '../../src/openai/sse.js';
import { answerRoom } from '../../src/context/token-estimate.js';
import { createLogger } from '../../src/shared/log.js';

const logger = createLogger({ level: 'error', write: () => undefined });
const FIX = 'restart llama-server with a larger context (`-c 32768`)';
const ok: SseItem[][] = [[{ kind: 'chunk', chunk: { choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] } as never }]];
let port = 1;

/** A client answering each request with the next of `answers` (an error is thrown), recording the requests. */
function scripted(answers: (Error | SseItem[][])[]) {
  const url = `http://127.0.0.1:${port++}/v1/chat/completions`;
  const requests: ChatRequest[] = [];
  const client = {
    options: { url },
    secrets: [],
    async *stream(request: ChatRequest) {
      requests.push(structuredClone(request));
      const answer = answers[Math.min(requests.length - 1, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      for (const batch of answer) yield batch;
    },
  } as unknown as ChatCompletionsClient;
  return { client, requests, url };
}

async function turn(
  client: ChatCompletionsClient,
  options: { contextWindow?: number; maxTokens?: number; task?: string; system?: string; learned?: LearnedWindows } = {},
) {
  const updates: SessionUpdate[] = [];
  const send: UpdateSink = async (batch) => void updates.push(...batch);
  const outcome = await runAgentLoop(
    { signal: new AbortController().signal, send, turnId: globalThis.crypto.randomUUID() },
    {
      endpoint: {
        chat: client,
        request: { model: 'm', maxTokens: options.maxTokens },
        toolMessageRules: { echoReasoning: false, shortToolCallIds: false },
        takesImages: false,
        learned: options.learned && { windows: options.learned, textPaths: new TextToolPaths() },
      },
      context: {
        system: options.system,
        turns: [],
        task: { role: 'user', content: options.task ?? 'hi' },
        contextWindow: options.contextWindow,
        maxTokens: options.maxTokens,
        windowFix: FIX,
      },
      limits: { maxSteps: 5 },
      callbacks: { logger },
    },
  );
  const text = updates.map((u) => (u as { content?: { text?: string } }).content?.text ?? '').join('');
  return { outcome, text };
}

const overflow = (url: string, body: unknown) => new ProviderHttpError(400, { get: () => null }, JSON.stringify(body), url);

describe('the answer cap', () => {
  it("is the room the plan left the answer when the window is known, the user's OPENAI_MAX_TOKENS when set, and absent without a window", async () => {
    const small = scripted([ok]);
    await turn(small.client, { contextWindow: 4096 });
    expect(small.requests[0]!.maxTokens).toBe(1024);
    const cloud = scripted([ok]);
    await turn(cloud.client, { contextWindow: 200_000 });
    expect(cloud.requests[0]!.maxTokens).toBe(answerRoom(200_000));
    expect(cloud.requests[0]!.maxTokens).toBe(25_000);
    const user = scripted([ok]);
    await turn(user.client, { contextWindow: 4096, maxTokens: 300 });
    expect(user.requests[0]!.maxTokens).toBe(300);
    const unknown = scripted([ok]);
    await turn(unknown.client);
    expect(unknown.requests[0]!.maxTokens).toBeUndefined();
  });
});

describe('an overflow answer that names no window', () => {
  it('is retried smaller within the turn, and the size that worked is remembered for the endpoint and model', async () => {
    const bedrock = { message: 'Input is too long for requested model.' };
    const s = scripted([overflow('', bedrock), ok]);
    const learned = new LearnedWindows();
    const { outcome } = await turn(s.client, { contextWindow: 32_768, task: 'x'.repeat(120_000), learned });
    expect(outcome.error).toBeUndefined();
    expect(s.requests).toHaveLength(2);
    const remembered = learned.get(s.url, 'm');
    expect(remembered).toBeDefined();
    expect(remembered!).toBeLessThan(32_768);
    // The request that worked was planned for the remembered window: its cap is that window's room.
    expect(s.requests[1]!.maxTokens).toBe(answerRoom(remembered!));
  });

  it('a window stated below the smallest that works ends the turn at once with the fix', async () => {
    // The system prompt alone (about 1,500 tokens) is over the 512 tokens the server states.
    const llama = {
      error: {
        code: 400,
        message: 'request (1600 tokens) exceeds the available context size (512 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 1600,
        n_ctx: 512,
      },
    };
    const s = scripted([overflow('', llama), ok]);
    const { outcome } = await turn(s.client, { contextWindow: 32_768, system: 'You are a careful agent. '.repeat(240) });
    expect(s.requests).toHaveLength(1);
    expect(outcome.stopReason).toBe('end_turn');
    expect(outcome.error?.message).toContain('512');
    expect(outcome.error?.message).toContain(FIX);
  });
});
