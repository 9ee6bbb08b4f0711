/**
 * The chat client's switch to a native wire: a router that routes the model sends the native body
 * to its URL and the NDJSON answer comes out as the same items; a "not served" answer falls back to
 * Chat Completions at once (and tells the router); out of memory is final; a stream without its
 * done line is retried like a broken SSE stream while nothing was shown.
 */
import { describe, expect, it } from 'vitest';
import { ChatCompletionsClient, type ChatRequest } from '../../src/openai/chat-client.js';
import { ProviderStreamError } from '../../src/openai/errors.js';
import { ProviderMemoryError, type NativeChatRouter } from '../../src/openai/native-chat.js';
import { ChatStreamAccumulator } from '../../src/openai/chat-stream-accumulator.js';
import { servePerTest, type Handler } from '../helpers/loopback-server.js';

const serve = servePerTest();
const request: ChatRequest = { model: 'qwen3:8b', messages: [{ role: 'user', content: 'hello' }], maxTokens: 100 };
const ndjson = (...lines: object[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('');

function router(url: string, log: string[]): NativeChatRouter {
  let served = true;
  return {
    target: async () => (served ? { url, numCtx: 32768, think: 'boolean' } : undefined),
    fallBack: (reason) => void ((served = false), log.push(`fallBack ${reason}`)),
    answered: (model) => void log.push(`answered ${model}`),
  };
}

async function run(client: ChatCompletionsClient) {
  const accumulator = new ChatStreamAccumulator();
  const progress = {
    get committed() {
      return accumulator.hasOutput;
    },
    get finished() {
      return accumulator.result().finishReason !== null;
    },
  };
  for await (const batch of client.stream(request, new AbortController().signal, progress)) for (const item of batch) accumulator.push(item);
  return accumulator.result();
}

describe('ChatCompletionsClient with a native router', () => {
  it('sends the native body to the native URL and reads NDJSON into the same result', async () => {
    const handler: Handler = (req, res) => {
      if (req.url !== '/api/chat') return void res.writeHead(500).end();
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.end(
        ndjson(
          { message: { role: 'assistant', content: 'Hi' }, done: false },
          { message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 5, eval_count: 1 },
        ),
      );
    };
    const server = await serve(handler);
    const native = server.url.replace('/v1/chat/completions', '/api/chat');
    const log: string[] = [];
    const result = await run(new ChatCompletionsClient({ url: server.url, maxRetries: 0, native: router(native, log) }));
    expect(result).toMatchObject({ text: 'Hi', finishReason: 'stop', usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } });
    expect(server.requests[0]!.body).toEqual({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      options: { num_ctx: 32768, num_predict: 100 },
    });
    expect(log).toEqual(['answered qwen3:8b']);
  });

  it('falls back to Chat Completions at once when the native API is not served, and tells the router', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/api/chat') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'From v1' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
    });
    const log: string[] = [];
    const result = await run(
      new ChatCompletionsClient({ url: server.url, maxRetries: 2, native: router(server.url.replace('/v1/chat/completions', '/api/chat'), log) }),
    );
    expect(result.text).toBe('From v1');
    expect(server.requests.map((r) => r.url)).toEqual(['/api/chat', '/v1/chat/completions']);
    expect(log).toEqual([expect.stringMatching(/^fallBack .*\/api\/chat answered HTTP 404$/)]);
  });

  it('out of memory is final (no retry) and carries the window', async () => {
    const server = await serve(
      (_req, res) =>
        void res
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"error":"model requires more system memory (12.4 GiB) than is available (7.6 GiB)"}'),
    );
    const client = new ChatCompletionsClient({
      url: server.url,
      maxRetries: 2,
      random: () => 0,
      native: router(server.url.replace('/v1/chat/completions', '/api/chat'), []),
    });
    const error = await run(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderMemoryError);
    expect(error).toMatchObject({ model: 'qwen3:8b', numCtx: 32768, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('a stream without its done line and nothing shown is retried, then reported as broken', async () => {
    const server = await serve(
      (_req, res) =>
        void res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(ndjson({ message: { role: 'assistant', content: '' }, done: false })),
    );
    const client = new ChatCompletionsClient({
      url: server.url,
      maxRetries: 1,
      random: () => 0,
      native: router(server.url.replace('/v1/chat/completions', '/api/chat'), []),
    });
    const error = await run(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderStreamError);
    expect((error as Error).message).toContain('final "done" line never came');
    expect(server.requests).toHaveLength(2);
  });
});
