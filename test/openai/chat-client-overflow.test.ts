import { describe, expect, it } from 'vitest';
import { ChatCompletionsClient } from '../../src/openai/chat-client.js';
import { ProviderHttpError } from '../../src/openai/errors.js';
import { servePerTest } from '../helpers/loopback-server.js';

const serve = servePerTest();
const LLAMA_500 = JSON.stringify({
  error: {
    code: 500,
    message: 'the request exceeds the available context size. try increasing the context size or enable context shift',
    type: 'exceed_context_size_error',
    n_prompt_tokens: 1407,
    n_ctx: 256,
  },
});

describe('an overflow answered with a 5xx', () => {
  it('is not retried: the same request would fail the same way', async () => {
    const server = await serve((_req, res) => void res.writeHead(500, { 'content-type': 'application/json' }).end(LLAMA_500));
    const client = new ChatCompletionsClient({ url: server.url, maxRetries: 3, random: () => 0 });
    const stream = client.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal, {
      committed: false,
      finished: false,
    });
    await expect(
      (async () => {
        for await (const _ of stream);
      })(),
    ).rejects.toBeInstanceOf(ProviderHttpError);
    expect(server.requests).toHaveLength(1);
  });

  it('while another 500 still is', async () => {
    const server = await serve((_req, res) => void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}'));
    const client = new ChatCompletionsClient({ url: server.url, maxRetries: 1, random: () => 0 });
    const stream = client.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal, {
      committed: false,
      finished: false,
    });
    await expect(
      (async () => {
        for await (const _ of stream);
      })(),
    ).rejects.toBeInstanceOf(ProviderHttpError);
    expect(server.requests).toHaveLength(2);
  });
});
