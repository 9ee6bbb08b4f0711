/**
 * A server that answers HTTP 503 while it loads the model (llama-server's "Loading model") is
 * asked again with backoff until it serves, beyond `maxRetries`, for at most `timeoutMs`; then the
 * words name the server and what it said. A cancel ends the wait at once. Other 503s keep the
 * usual retry budget.
 */
import { describe, expect, it } from 'vitest';
import { ChatCompletionsClient, type ChatClientOptions } from '../../src/openai/chat-client.js';
import { loadingAnswer, ProviderHttpError, ProviderLoadingError } from '../../src/openai/errors.js';
import { describeProviderError } from '../../src/openai/user-errors.js';
import { servePerTest, type Handler } from '../helpers/loopback-server.js';
import { llamaRecord } from '../helpers/fake-llama-server.js';

const serve = servePerTest();
/** The real llama-server's answer to a chat request while it loads (test/fixtures/llamacpp/README.md). */
const LOADING = llamaRecord('chat-loading.json').response.body;
const sse = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const ok: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(sse({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: 'stop' }] }) + sse('[DONE]'));
};
const loadingFor = (times: number): Handler => {
  let n = 0;
  return (req, res) => {
    if (n++ < times) res.writeHead(503, { 'content-type': 'application/json' }).end(LOADING);
    else ok(req, res, undefined, n);
  };
};
const client = (url: string, options: Partial<ChatClientOptions> = {}) => new ChatCompletionsClient({ url, maxRetries: 0, random: () => 0, ...options });
async function drain(c: ChatCompletionsClient, signal = new AbortController().signal) {
  const seen = { committed: false, finished: false };
  const items = [];
  for await (const batch of c.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, signal, seen)) {
    items.push(...batch);
    for (const item of batch) if (item.kind === 'chunk' && item.chunk.choices?.some((choice) => choice.finish_reason)) seen.finished = true;
  }
  return items;
}

describe('a server loading the model', () => {
  it('is asked again until it serves, beyond maxRetries', async () => {
    const s = await serve(loadingFor(2));
    const items = await drain(client(s.url));
    expect(items.some((item) => item.kind === 'chunk')).toBe(true);
    expect(s.requests).toHaveLength(3);
  });

  it('ends at the time limit with words naming the server and what it said', async () => {
    const s = await serve(loadingFor(Number.POSITIVE_INFINITY));
    const error = await drain(client(s.url, { timeoutMs: 1200 })).then(
      () => expect.fail('expected a rejection'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderLoadingError);
    expect((error as ProviderLoadingError).waitedMs).toBeGreaterThanOrEqual(1200);
    const words = describeProviderError(error as ProviderLoadingError, { model: 'm', retries: 0, baseUrl: s.url.replace('/chat/completions', '') });
    expect(words).toMatch(
      new RegExp(
        `^The server at ${s.url.replace('/chat/completions', '')} was still loading the model after 1 s: it kept answering HTTP 503 "Loading model"\\. `,
      ),
    );
    expect(words).toContain('OPENAI_TIMEOUT_MS');
  });

  it('stops waiting at once on cancel', async () => {
    const s = await serve(loadingFor(Number.POSITIVE_INFINITY));
    const controller = new AbortController();
    const run = drain(client(s.url, { timeoutMs: 60_000 }), controller.signal);
    while (s.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    // Nothing more is asked after the cancel: the wait ended with it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(s.requests).toHaveLength(2);
  });

  it('is told apart from other 503s, which keep the usual retry budget', async () => {
    const busy = await serve((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"Service Unavailable"}}'));
    await expect(drain(client(busy.url))).rejects.toBeInstanceOf(ProviderHttpError);
    expect(busy.requests).toHaveLength(1);
    const answer = (status: number, body: string) => new ProviderHttpError(status, new Headers(), body, 'http://x');
    expect(loadingAnswer(answer(503, LOADING))).toBe('Loading model');
    expect(loadingAnswer(answer(503, '{"error":"Model mistralai/Mistral-7B is currently loading","estimated_time":20}'))).toBe(
      'Model mistralai/Mistral-7B is currently loading',
    );
    expect(loadingAnswer(answer(500, LOADING))).toBeUndefined();
    expect(loadingAnswer(answer(503, 'overloaded'))).toBeUndefined();
  });
});
