/**
 * The contract with the agent loop: an overflow before anything was shown comes back as
 * `overflow` without words, and teaches the window; after something was shown it is explained.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import type { UpdateSink } from '../../src/tools/index.js';
import { describe, expect, it } from 'vitest';
import { runModelRequest } from '../../src/loop/model-request.js';
import { runAgentLoop } from '../../src/loop/agent-loop.js';
import { LearnedWindows } from '../../src/endpoints/learned-windows.js';
import { ProviderHttpError } from '../../src/openai/errors.js';
import type { ChatCompletionsClient } from '../../src/openai/chat-client.js';
import type { SseItem } from '../../src/openai/sse.js';
import { describeContextOverflow, DEFAULT_WINDOW_FIX } from '../../src/openai/user-errors.js';
import { createLogger } from '../../src/shared/log.js';

const logger = createLogger({ level: 'error', write: () => undefined });
const URL_ = 'http://127.0.0.1:1/v1/chat/completions';
const OLLAMA_400 = JSON.stringify({
  error: {
    code: 400,
    message: 'request (5162 tokens) exceeds the available context size (4096 tokens), try increasing it',
    type: 'exceed_context_size_error',
    n_prompt_tokens: 5162,
    n_ctx: 4096,
  },
});
const FIX = 'restart Ollama with a larger window';

/** A client whose request fails with `error` after streaming `items`. */
function failing(error: Error | undefined, items: SseItem[][] = []): ChatCompletionsClient {
  return {
    options: { url: URL_ },
    secrets: [],
    async *stream() {
      for (const batch of items) yield batch;
      if (error) throw error;
    },
  } as unknown as ChatCompletionsClient;
}

async function turn(client: ChatCompletionsClient, learned = new LearnedWindows()) {
  const updates: SessionUpdate[] = [];
  const outcome = await runModelRequest({
    chat: client,
    request: { model: 'qwen3:8b', messages: [{ role: 'user', content: 'hi' }] },
    callbacks: { signal: new AbortController().signal, send: async (batch) => void updates.push(...batch), logger },
    windowFix: FIX,
    learned,
  });
  const text = updates
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => (u as { content: { text: string } }).content.text)
    .join('');
  return { outcome, text, learned };
}

describe('runModelRequest after a context overflow', () => {
  it('returns overflow with the stated window, says nothing, and remembers the window for the endpoint and model', async () => {
    const r = await turn(failing(new ProviderHttpError(400, { get: () => null }, OLLAMA_400, URL_)));
    expect(r.outcome.overflow).toEqual({ window: 4096 });
    expect(r.outcome.error).toMatchObject({ kind: 'http', status: 400 });
    expect(r.outcome.stopReason).toBe('end_turn');
    expect(r.text).toBe('');
    expect(r.learned.get(URL_, 'qwen3:8b')).toBe(4096);
  });

  it('returns an empty overflow when the answer states no window', async () => {
    const body = JSON.stringify({
      error: {
        message: 'Please reduce the length of the messages or completion.',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    });
    const r = await turn(failing(new ProviderHttpError(400, { get: () => null }, body, URL_)));
    expect(r.outcome.overflow).toEqual({});
    expect(r.text).toBe('');
    expect(r.learned.get(URL_, 'qwen3:8b')).toBeUndefined();
  });

  it('explains an overflow reported after text was shown, naming the window and the fix, and still learns it', async () => {
    const items: SseItem[][] = [
      [{ kind: 'chunk', chunk: { choices: [{ index: 0, delta: { content: 'Let me look' }, finish_reason: null }] } as never }],
      [
        {
          kind: 'error',
          error: {
            message: "This model's maximum context length is 6000 tokens. However, you requested 10309 tokens (9309 in the messages, 1000 in the completion).",
          },
        },
      ],
    ];
    const r = await turn(failing(undefined, items));
    expect(r.outcome.overflow).toBeUndefined();
    expect(r.outcome.error).toBeDefined();
    expect(r.outcome.error?.message).toContain(
      "The conversation no longer fits the model's context window (6,000 tokens; the request needed 10,309). Fix: restart Ollama with a larger window.",
    );
    expect(r.outcome.error?.message).toContain('The provider said: This model');
    expect(r.learned.get(URL_, 'qwen3:8b')).toBe(6000);
  });

  it('leaves an ordinary 400 to the ordinary words', async () => {
    const body = JSON.stringify({
      error: {
        message: "Unsupported parameter: 'max_tokens' is not supported with this model.",
        type: 'invalid_request_error',
        param: 'max_tokens',
        code: 'unsupported_parameter',
      },
    });
    const r = await turn(failing(new ProviderHttpError(400, { get: () => null }, body, URL_)));
    expect(r.outcome.overflow).toBeUndefined();
    expect(r.outcome.error?.message).toContain('The endpoint rejected the request (HTTP 400)');
  });
});

describe('the agent loop, its retries spent', () => {
  it('gives up on an overflow with the words naming the window and the fix', async () => {
    const updates: SessionUpdate[] = [];
    const send: UpdateSink = async (batch) => void updates.push(...batch);
    const outcome = await runAgentLoop(
      { signal: new AbortController().signal, send, turnId: globalThis.crypto.randomUUID() },
      {
        context: { turns: [], task: { role: 'user', content: 'hi' }, windowFix: FIX },
        endpoint: {
          chat: failing(new ProviderHttpError(400, { get: () => null }, OLLAMA_400, URL_)),
          request: { model: 'qwen3:8b' },
          toolMessageRules: { echoReasoning: false, shortToolCallIds: false },
          takesImages: false,
        },
        limits: { maxSteps: 5 },
        callbacks: { logger },
      },
    );
    expect(outcome.overflow).toEqual({ window: 4096 });
    const text = updates.map((u) => (u as { content?: { text?: string } }).content?.text ?? '').join('');
    expect(text).toBe('');
    expect(outcome.error?.message).toBe(describeContextOverflow({ window: 4096 }, FIX));
  });
});

describe('describeContextOverflow', () => {
  it('names the window, the request when known, and the fix (generic without one)', () => {
    expect(describeContextOverflow({ window: 4096, requested: 5162 }, FIX)).toBe(
      "The conversation no longer fits the model's context window (4,096 tokens; the request needed 5,162). Fix: restart Ollama with a larger window. Meanwhile, /compact or a new session makes room.",
    );
    expect(describeContextOverflow({})).toBe(
      `The conversation no longer fits the model's context window. Fix: ${DEFAULT_WINDOW_FIX}. Meanwhile, /compact or a new session makes room.`,
    );
  });
});
