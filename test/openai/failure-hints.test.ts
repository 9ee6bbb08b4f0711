/**
 * The words of a failed prompt after a 404 (a base URL without /v1) or a 401 with no key, looked
 * up against a loopback server and driven through the model request the agent uses.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/shared/log.js';
import { runModelRequest } from '../../src/loop/model-request.js';
import { ChatCompletionsClient } from '../../src/openai/chat-client.js';
import { ProviderHttpError } from '../../src/openai/errors.js';
import { describeFailure, missingV1 } from '../../src/openai/failure-hints.js';
import { describeProviderError } from '../../src/openai/user-errors.js';
import { fakeServerPool, httpError } from '../helpers/fake-openai.js';

const startServer = fakeServerPool();
const origin = (baseUrl: string) => baseUrl.replace(/\/v1$/, '');

/** Runs one turn against `chatUrl` and returns the words the user is shown: the failure's, the prompt error's message. */
async function promptText(chatUrl: string, apiKey?: string): Promise<{ text: string; status: number | undefined }> {
  const client = new ChatCompletionsClient({ url: chatUrl, apiKey, maxRetries: 0 });
  const shown: string[] = [];
  const outcome = await runModelRequest({
    chat: client,
    request: { model: 'qwen3:8b', messages: [{ role: 'user', content: 'hi' }] },
    callbacks: {
      signal: new AbortController().signal,
      send: async (updates) => {
        for (const update of updates) if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') shown.push(update.content.text);
      },
      logger: createLogger({ level: 'error', write: () => undefined }),
    },
  });
  // Nothing of a failure is streamed: its words are the error's message.
  if (outcome.error) expect(shown.join('')).toBe('');
  return { text: outcome.error ? (outcome.error.message ?? '') : shown.join(''), status: outcome.error?.status };
}

describe('a 404 when the base URL lacks /v1', () => {
  it('says to add /v1 when <base>/v1/models answers', async () => {
    const server = await startServer(httpError(404, '404 page not found'));
    const base = origin(server.baseUrl);
    const { text, status } = await promptText(`${base}/chat/completions`);
    expect(status).toBe(404);
    expect(text).toContain('add /v1 to OPENAI_BASE_URL');
    expect(text).toContain(`OPENAI_BASE_URL=${base}/v1`);
    expect(server.modelRequests).toBe(1);
  });

  it('looks only after a 404, and keeps the usual words when /v1/models does not answer either', async () => {
    const server = await startServer(httpError(404, { error: { message: 'model "qwen3:8b" not found' } }));
    server.setModels({ error: 'no' }, 404);
    const { text } = await promptText(`${origin(server.baseUrl)}/chat/completions`);
    expect(text).toContain('The model "qwen3:8b" or the endpoint was not found (HTTP 404)');
    expect(text).not.toContain('/v1 to');
    const ok = await startServer();
    await promptText(`${ok.baseUrl}/chat/completions`);
    expect(ok.modelRequests).toBe(0);
  });

  it('does not look when the base already ends in /v1', async () => {
    const server = await startServer(httpError(404, { error: { message: 'model not found' } }));
    const { text } = await promptText(`${server.baseUrl}/chat/completions`);
    expect(text).toContain('OPENAI_MODEL');
    expect(server.modelRequests).toBe(0);
    expect(await missingV1(`${server.baseUrl}/chat/completions`, {})).toBeUndefined();
  });
});

describe('a 401', () => {
  it('with no key set: the endpoint needs a key; OPENAI_API_KEY is not set', async () => {
    const server = await startServer(httpError(401, { error: { message: 'Unauthorized' } }));
    const { text } = await promptText(`${server.baseUrl}/chat/completions`);
    expect(text).toContain('the endpoint needs a key');
    expect(text.toLowerCase()).toContain('openai_api_key is not set');
    expect(text).not.toContain('refused');
  });

  it('with a key: the endpoint refused the key', async () => {
    const server = await startServer(httpError(401, { error: { message: 'Invalid API key' } }));
    const { text } = await promptText(`${server.baseUrl}/chat/completions`, 'sk-wrong-key-1234');
    expect(text).toContain('refused the API key');
    expect(text).not.toContain('sk-wrong-key-1234');
  });

  it('a key in a header counts as a key', async () => {
    const error = new ProviderHttpError(401, new Headers(), '{}', 'https://r.openai.azure.com/openai/v1/chat/completions');
    expect(await describeFailure(error, { model: 'm', retries: 0 }, { headers: { 'api-key': 'k' } })).toContain('refused the API key');
    expect(describeProviderError(error, { model: 'm', retries: 0 })).toContain('refused the API key');
  });
});
