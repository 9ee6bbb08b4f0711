/** Issue 11 items 5–8: what the chat client reads is bounded, and only provider failures are retried. */
import { describe, expect, it } from 'vitest';
import { ChatCompletionsClient, type ChatClientOptions, type ChatRequest } from '../../src/openai/chat-client.js';
import { MAX_ERROR_BODY_BYTES, readErrorBody } from '../../src/openai/body-limits.js';
import { ProviderHttpError, ProviderProtocolError, ProviderTimeoutError } from '../../src/openai/errors.js';
import type { SseItem } from '../../src/openai/sse.js';
import { describeProviderError } from '../../src/openai/user-errors.js';
import { servePerTest } from '../helpers/loopback-server.js';

const serve = servePerTest();
const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hello' }] };
const client = (url: string, options: Partial<ChatClientOptions> = {}) =>
  new ChatCompletionsClient({ url, apiKey: 'sk-test', maxRetries: 2, random: () => 0, ...options });
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e,
  );
async function run(c: ChatCompletionsClient): Promise<SseItem[]> {
  const items: SseItem[] = [];
  for await (const batch of c.stream(request, new AbortController().signal, { committed: false, finished: true })) items.push(...batch);
  return items;
}
const chunkText = (content: string) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

describe('long strings in one chunk (item 5)', () => {
  it('decodes an 8 MiB string after small chunks, in one request', async () => {
    const big = 'a'.repeat(8_400_000);
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunkText('Hi') + chunkText(' there'));
      res.end(chunkText(big) + 'data: [DONE]\n\n');
    });
    const items = await run(client(s.url));
    const texts = items.map((i) => (i.kind === 'chunk' ? i.chunk.choices?.[0]?.delta?.content : undefined));
    expect(texts.at(-1 - 1)).toBe(big);
    expect(s.requests).toHaveLength(1);
  });

  it('does not retry a failure of our own code', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(chunkText('Hi') + 'data: [DONE]\n\n');
    });
    const c = client(s.url);
    const stream = c.stream(request, new AbortController().signal, {
      committed: false,
      onRetry() {},
      get finished(): boolean {
        throw new Error('our bug');
      },
    });
    const error = await errorOf(
      (async () => {
        for await (const _ of stream);
      })(),
    );
    expect((error as Error).message).toBe('our bug');
    expect(s.requests).toHaveLength(1);
  });
});

describe('bounds on what is read (item 6)', () => {
  it('reads at most 1 MiB of an error body and says where it was cut', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('e'.repeat(5 * 1024 * 1024));
    });
    const error = (await errorOf(run(client(s.url, { maxRetries: 0 })))) as ProviderHttpError;
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect(error.providerMessage?.length).toBeLessThanOrEqual(501);
    const response = new Response('x'.repeat(MAX_ERROR_BODY_BYTES + 10));
    const text = await readErrorBody(response);
    expect(text).toMatch(/… \(cut at 1 MiB\)$/);
    expect(text.length).toBe(MAX_ERROR_BODY_BYTES + '… (cut at 1 MiB)'.length);
  });

  it('abandons one SSE event over 16 MiB, naming the limit, without retrying', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(chunkText('x'.repeat(20 * 1024 * 1024)));
    });
    const error = await errorOf(run(client(s.url)));
    expect(error).toBeInstanceOf(ProviderProtocolError);
    expect((error as Error).message).toContain('16 MiB limit');
    expect(s.requests).toHaveLength(1);
  });
});

describe('silence (item 7)', () => {
  it('ends a comment-only stream after timeoutMs', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(': ping\n\n'), 25);
      res.on('close', () => clearInterval(timer));
    });
    // Comments never stop coming: only the silence limit can end the request.
    expect(await errorOf(run(client(s.url, { timeoutMs: 300, maxRetries: 0 })))).toBeInstanceOf(ProviderTimeoutError);
  });
});

describe('answers that are not a stream (item 8)', () => {
  it('an HTML page is final and says what to check', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Login</title>');
    });
    const error = (await errorOf(run(client(s.url)))) as ProviderProtocolError;
    expect(error).toBeInstanceOf(ProviderProtocolError);
    expect(s.requests).toHaveLength(1);
    expect(describeProviderError(error, { model: 'm', retries: 0 })).toContain(
      "the endpoint answered with an HTML page, not a Chat Completions stream: is OPENAI_BASE_URL the API's base (often ending in /v1)?",
    );
  });

  it('a redirect names where it points, without following it', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(301, { location: 'https://api.example.com/v1/chat/completions?key=hidden-value' });
      res.end();
    });
    const error = (await errorOf(run(client(s.url)))) as ProviderHttpError;
    expect(s.requests).toHaveLength(1);
    const words = describeProviderError(error, { model: 'm', retries: 0 });
    expect(words).toContain('HTTP 301');
    expect(words).toContain('https://api.example.com/v1/chat/completions');
    expect(words).not.toContain('hidden-value');
  });
});
