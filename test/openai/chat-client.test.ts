import { describe, expect, it } from 'vitest';
import { ChatCompletionsClient, type ChatClientOptions, type ChatRequest } from '../../src/openai/chat-client.js';
import { LearnedCorrections } from '../../src/openai/adaptive-params.js';
import { completionToItems } from '../../src/openai/completion-to-chunk.js';
import { ProviderConnectionError, ProviderHttpError, ProviderStreamError, ProviderTimeoutError, type ProviderError } from '../../src/openai/errors.js';
import type { SseItem } from '../../src/openai/sse.js';
import { servePerTest, type Handler, type LoopbackServer as Server } from '../helpers/loopback-server.js';

const serve = servePerTest();

const sse = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const chunk = (delta: object, finish: string | null = null) => sse({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
const streamOk: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(chunk({ content: 'Hi' }) + chunk({}, 'stop') + sse('[DONE]'));
};
const fail =
  (status: number, body = '', headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hello' }] };
const client = (url: string, options: Partial<ChatClientOptions> = {}) =>
  new ChatCompletionsClient({ url, apiKey: 'sk-test', maxRetries: 0, random: () => 0, ...options });

/** Consume like the model request: content commits, a finish reason finishes. */
async function run(c: ChatCompletionsClient, options: { signal?: AbortSignal; onBatch?: (b: SseItem[]) => void; retries?: unknown[] } = {}) {
  const state = { committed: false, finished: false };
  const progress = {
    get committed() {
      return state.committed;
    },
    get finished() {
      return state.finished;
    },
    onRetry: (attempt: number, error: ProviderError, delayMs: number) =>
      options.retries?.push([attempt, (error as ProviderHttpError).status ?? error.kind, delayMs]),
  };
  const batches: SseItem[][] = [];
  for await (const batch of c.stream(request, options.signal ?? new AbortController().signal, progress)) {
    batches.push(batch);
    for (const item of batch) {
      if (item.kind !== 'chunk') continue;
      if (item.chunk.choices?.some((ch) => ch.delta?.content)) state.committed = true;
      if (item.chunk.choices?.some((ch) => ch.finish_reason)) state.finished = true;
    }
    options.onBatch?.(batch);
  }
  return batches;
}
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e,
  );

describe('ChatCompletionsClient request', () => {
  it('sends model, messages, stream, stream_options, max_tokens, temperature and bearer auth', async () => {
    const s = await serve(streamOk);
    const c = client(s.url, { headers: { 'X-Title': 'acp', Accept: 'application/json' }, userAgent: 'openai-acp/test' });
    const batches = c.stream({ ...request, maxTokens: 64, temperature: 0.2 }, new AbortController().signal, { committed: true, finished: true });
    for await (const _ of batches);
    const [{ body, headers }] = s.requests as [Server['requests'][0]];
    expect(body).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 64,
      temperature: 0.2,
    });
    expect(headers['authorization']).toBe('Bearer sk-test');
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-title']).toBe('acp');
    expect(headers['accept']).toBe('application/json');
    expect(headers['user-agent']).toBe('openai-acp/test');
  });

  it('sends no authorization without a key, and extra headers win over ours', async () => {
    const s = await serve(streamOk);
    await run(client(s.url, { apiKey: '' }));
    await run(client(s.url, { apiKey: undefined }));
    await run(client(s.url, { headers: { Authorization: 'Token other' } }));
    expect(s.requests[0]!.headers).not.toHaveProperty('authorization');
    expect(s.requests[1]!.headers).not.toHaveProperty('authorization');
    expect(s.requests[2]!.headers['authorization']).toBe('Token other');
    expect(s.requests[0]!.body).not.toHaveProperty('max_tokens');
    expect(s.requests[0]!.body).not.toHaveProperty('temperature');
  });
});

describe('ChatCompletionsClient answers', () => {
  it('yields batches of SSE items as they arrive', async () => {
    // Each part is written once the client has yielded the batch before it, so no two arrive together.
    const parts = [': keep-alive\n\n' + chunk({ content: 'lo' }) + chunk({}, 'stop'), sse({ choices: [], usage: { prompt_tokens: 3 } }) + sse('[DONE]')];
    let writeNext: (() => void) | undefined;
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'Hel' }));
      writeNext = () => {
        const part = parts.shift();
        if (part === undefined) return;
        if (parts.length === 0) res.end(part);
        else res.write(part);
      };
    });
    const batches = await run(client(s.url), { onBatch: () => writeNext?.() });
    expect(batches.length).toBeGreaterThanOrEqual(3);
    for (const batch of batches) expect(batch.length).toBeGreaterThan(0);
    const items = batches.flat();
    expect(items.map((i) => i.kind)).toEqual(['chunk', 'chunk', 'chunk', 'chunk', 'done']);
    const contents = items.map((i) => (i.kind === 'chunk' ? i.chunk.choices?.[0]?.delta?.content : undefined));
    expect(contents.slice(0, 2)).toEqual(['Hel', 'lo']);
    expect(items[3]).toMatchObject({ kind: 'chunk', chunk: { usage: { prompt_tokens: 3 } } });
  });

  it.each(['application/json', 'text/event-stream'])('a plain chat.completion answer (%s) yields equivalent items', async (type) => {
    const completion = JSON.stringify({
      id: 'c1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { content: 'Whole answer' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 2, completion_tokens: 2 },
    });
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': type });
      res.write(`\n${completion.slice(0, 20)}`);
      setTimeout(() => res.end(completion.slice(20)), 20);
    });
    const batches = await run(client(s.url));
    expect(batches).toEqual([completionToItems(completion)]);
    expect(batches[0]![0]).toMatchObject({ kind: 'chunk', chunk: { choices: [{ delta: { content: 'Whole answer' }, finish_reason: 'stop' }] } });
  });

  it('a clean EOF without content or finish is a stream error; with content it ends normally', async () => {
    const empty = await serve((_req, res) => (res.writeHead(200, { 'content-type': 'text/event-stream' }), res.end(': hi\n\n' + chunk({ role: 'assistant' }))));
    expect(await errorOf(run(client(empty.url)))).toBeInstanceOf(ProviderStreamError);
    const partial = await serve((_req, res) => (res.writeHead(200, { 'content-type': 'text/event-stream' }), res.end(chunk({ content: 'partial' }))));
    expect((await run(client(partial.url))).flat()).toHaveLength(1);
  });
});

describe('ChatCompletionsClient retries', () => {
  it('retries 500, 429 and 503, honouring retry-after-ms', async () => {
    const statuses = [500, 429, 503];
    const s = await serve((req, res, body, n) =>
      n < 3 ? fail(statuses[n]!, '{"error":{"message":"busy"}}', { 'retry-after-ms': '15' })(req, res, body, n) : streamOk(req, res, body, n),
    );
    const retries: unknown[] = [];
    const started = performance.now();
    const items = (await run(client(s.url, { maxRetries: 3 }), { retries })).flat();
    expect(items.map((i) => i.kind)).toEqual(['chunk', 'chunk', 'done']);
    expect(s.requests).toHaveLength(4);
    expect(retries).toEqual([
      [1, 500, 15],
      [2, 429, 15],
      [3, 503, 15],
    ]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(40);
  });

  it('gives up after maxRetries with the last HTTP error', async () => {
    const s = await serve(fail(500, '{"error":{"message":"model overloaded"}}', { 'retry-after-ms': '1' }));
    const error = await errorOf(run(client(s.url, { maxRetries: 2 })));
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect(error).toMatchObject({ status: 500, providerMessage: 'model overloaded', url: s.url });
    expect(s.requests).toHaveLength(3);
  });

  it.each([401, 404])('does not retry %i', async (status) => {
    const s = await serve(fail(status, '{"error":{"message":"no"}}', { 'retry-after-ms': '1' }));
    expect(await errorOf(run(client(s.url, { maxRetries: 3 })))).toMatchObject({ status, retryable: false });
    expect(s.requests).toHaveLength(1);
  });

  it('does not retry once progress is committed', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'half' }));
      setTimeout(() => res.destroy(), 20);
    });
    expect(await errorOf(run(client(s.url, { maxRetries: 3, random: () => 0 })))).toBeInstanceOf(ProviderStreamError);
    expect(s.requests).toHaveLength(1);
    const busy = await serve(fail(503, '', { 'retry-after-ms': '1' }));
    const stream = client(busy.url, { maxRetries: 3 }).stream(request, new AbortController().signal, { committed: true, finished: false });
    expect(await errorOf(stream.next())).toMatchObject({ status: 503 });
    expect(busy.requests).toHaveLength(1);
  });

  it('retries a 400 naming stream_options once without it, and remembers that for the URL (in the learned corrections the clients share)', async () => {
    const s = await serve((req, res, body, n) =>
      body.stream_options
        ? fail(400, '{"error":{"message":"Unrecognized request argument supplied: stream_options"}}')(req, res, body, n)
        : streamOk(req, res, body, n),
    );
    const corrections = new LearnedCorrections();
    await run(client(s.url, { corrections }));
    expect(s.requests.map((r) => 'stream_options' in r.body)).toEqual([true, false]);
    await run(client(s.url, { corrections }));
    expect(s.requests.map((r) => 'stream_options' in r.body)).toEqual([true, false, false]);
  });

  it('a 400 not about stream_options is final', async () => {
    const s = await serve(fail(400, '{"error":{"message":"bad role"}}'));
    expect(await errorOf(run(client(s.url, { maxRetries: 3 })))).toMatchObject({ status: 400, providerMessage: 'bad role' });
    expect(s.requests).toHaveLength(1);
  });
});

describe('ChatCompletionsClient failures', () => {
  it('connection refused on this machine is a ProviderConnectionError with ECONNREFUSED, not retried (the server is not running)', async () => {
    const dead = await serve(streamOk);
    await dead.close();
    const retries: unknown[] = [];
    const error = await errorOf(run(client(dead.url, { maxRetries: 2, random: () => 0.99 }), { retries }));
    expect(error).toBeInstanceOf(ProviderConnectionError);
    expect(error).toMatchObject({ code: 'ECONNREFUSED', url: dead.url, notRunning: true });
    expect(retries).toHaveLength(0);
  });

  it('silence longer than timeoutMs is a ProviderTimeoutError, before or after the headers', async () => {
    const afterHeaders = await serve((_req, res) => (res.writeHead(200, { 'content-type': 'text/event-stream' }), res.flushHeaders()));
    // The server never sends a byte: only the silence limit can end the request.
    expect(await errorOf(run(client(afterHeaders.url, { timeoutMs: 150 })))).toMatchObject({ kind: 'timeout', timeoutMs: 150 });
    const noHeaders = await serve(() => undefined);
    expect(await errorOf(run(client(noHeaders.url, { timeoutMs: 150 })))).toBeInstanceOf(ProviderTimeoutError);
  });

  it('data events within the limit keep the request alive; comments alone do not', async () => {
    const events = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(chunk({ role: 'assistant' })), 50);
      setTimeout(() => (clearInterval(timer), res.end(chunk({ content: 'late' }, 'stop') + sse('[DONE]'))), 450);
    });
    const items = (await run(client(events.url, { timeoutMs: 200 }))).flat();
    expect(items.at(-1)?.kind).toBe('done');
    const comments = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(': keep-alive\n\n'), 50);
      res.on('close', () => clearInterval(timer));
    });
    expect(await errorOf(run(client(comments.url, { timeoutMs: 200 })))).toBeInstanceOf(ProviderTimeoutError);
  });

  it('a connection destroyed mid-body is a ProviderStreamError', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': start\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    expect(await errorOf(run(client(s.url)))).toBeInstanceOf(ProviderStreamError);
  });
});

describe('ChatCompletionsClient cancellation', () => {
  // A 30 s backoff and a stream that never ends: only the abort can end either within the test's time.
  it('aborting during a backoff wait rejects with the reason', async () => {
    const s = await serve(fail(503, '', { 'retry-after-ms': '30000' }));
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const retries: unknown[] = [];
    setTimeout(() => controller.abort(reason), 100);
    expect(await errorOf(run(client(s.url, { maxRetries: 3 }), { signal: controller.signal, retries }))).toBe(reason);
    expect(retries).toEqual([[1, 503, 30000]]);
  });

  it('aborting mid-stream rejects with the reason', async () => {
    const s = await serve((_req, res) => (res.writeHead(200, { 'content-type': 'text/event-stream' }), res.write(chunk({ content: 'a' }))));
    const controller = new AbortController();
    const reason = new Error('stop now');
    const onBatch = () => void setTimeout(() => controller.abort(reason), 50);
    expect(await errorOf(run(client(s.url, { maxRetries: 3 }), { signal: controller.signal, onBatch }))).toBe(reason);
    expect(s.requests).toHaveLength(1);
  });

  it('an already-aborted signal rejects with its reason and never retries', async () => {
    const s = await serve(streamOk);
    const reason = new Error('too late');
    expect(await errorOf(run(client(s.url, { maxRetries: 3 }), { signal: AbortSignal.abort(reason) }))).toBe(reason);
    expect(s.requests).toHaveLength(0);
  });

  it('breaking out of the iteration closes the server-side request', async () => {
    let closed!: () => void;
    const serverClosed = new Promise<void>((resolve) => (closed = resolve));
    const s = await serve((_req, res) => {
      res.on('close', () => closed());
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'first' }));
    });
    for await (const batch of client(s.url).stream(request, new AbortController().signal, { committed: true, finished: false })) {
      expect(batch[0]?.kind).toBe('chunk');
      break;
    }
    await serverClosed;
    expect(s.requests).toHaveLength(1);
  });
});
