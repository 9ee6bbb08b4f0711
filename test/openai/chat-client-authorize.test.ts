/**
 * The chat client's auth hook: called once per attempt with exactly the method, URL, headers and
 * body that are then sent, its headers added; a retry is authorized afresh; a hook failure is
 * final (no retry) and nothing is sent.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChatCompletionsClient } from '../../src/openai/chat-client.js';
import { ProviderAuthError, type RequestToAuthorize } from '../../src/openai/authorize.js';
import { chunk } from '../helpers/fake-openai.js';
import { serve, type LoopbackServer } from '../helpers/loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const progress = { committed: false, finished: true };
const request = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('ChatCompletionsClient authorize', () => {
  it('authorizes each attempt with the exact request sent, and sends the headers it returns', async () => {
    server = await serve((_req, res, _body, n) => {
      if (n === 0) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{}');
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`${chunk({ content: 'ok' }, 'stop')}data: [DONE]\n\n`);
    });
    const seen: RequestToAuthorize[] = [];
    const authorize = vi.fn(async (r: RequestToAuthorize) => {
      seen.push(r);
      return { Authorization: `Signed ${seen.length}`, 'x-amz-date': '20261123T110000Z' };
    });
    const client = new ChatCompletionsClient({ url: `${server.url}?v=1`, maxRetries: 1, random: () => 0, authorize });
    for await (const _ of client.stream(request, new AbortController().signal, progress));
    expect(authorize).toHaveBeenCalledTimes(2);
    expect(seen[1]).toMatchObject({ method: 'POST', url: `${server.url}?v=1` });
    expect(seen[1]!.headers['content-type']).toBe('application/json');
    expect(seen[1]!.headers['authorization']).toBeUndefined();
    const last = server.requests[1]!;
    // The exact bytes sent are the bytes signed.
    expect(JSON.stringify(last.body)).toBe(Buffer.from(seen[1]!.body as Uint8Array).toString('utf8'));
    expect(last.headers['authorization']).toBe('Signed 2');
    expect(last.headers['x-amz-date']).toBe('20261123T110000Z');
  });

  it('does not retry or send when the hook fails', async () => {
    server = await serve((_req, res) => void res.writeHead(200).end());
    const authorize = vi.fn(async () => {
      throw new ProviderAuthError('u', 'no credentials', 'log in');
    });
    const client = new ChatCompletionsClient({ url: server.url, maxRetries: 2, random: () => 0, authorize });
    const run = async () => {
      for await (const _ of client.stream(request, new AbortController().signal, progress));
    };
    await expect(run()).rejects.toBeInstanceOf(ProviderAuthError);
    expect(authorize).toHaveBeenCalledTimes(1);
    expect(server.requests).toHaveLength(0);
  });
});

describe("ProviderAuthError in the user's words", () => {
  it('says what failed and the fix, and is a final configuration error', async () => {
    const { describeProviderError } = await import('../../src/openai/user-errors.js');
    const { errorMeta } = await import('../../src/openai/failure-facts.js');
    const error = new ProviderAuthError(
      'https://bedrock-runtime.us-east-1.amazonaws.com/openai/v1/chat/completions',
      'no AWS credentials (expired)',
      'run `aws sso login --profile dev`',
    );
    expect(describeProviderError(error, { model: 'm', retries: 0 })).toBe(
      'No credentials for https://bedrock-runtime.us-east-1.amazonaws.com/openai/v1/chat/completions: no AWS ' +
        'credentials (expired). Fix: run `aws sso login --profile dev`.',
    );
    expect(errorMeta(error)).toMatchObject({ kind: 'config', retryable: false });
  });
});
