/**
 * Adaptive parameters end to end against a loopback server that answers with real 400 bodies
 * (test/fixtures/http-400): the request is corrected, retried, and the correction is remembered
 * so the next request (and the next turn) is sent corrected at once. Also: provider profiles
 * applied by `createEndpoint`, and reasoning effort spelled per provider on the wire.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { LearnedCorrections } from '../../src/openai/adaptive-params.js';
import { ChatCompletionsClient, type ChatRequest } from '../../src/openai/chat-client.js';
import { createEndpoint } from '../../src/endpoints/endpoint.js';
import { ProviderHttpError } from '../../src/openai/errors.js';
import { createLogger } from '../../src/shared/log.js';
import { PROVIDER_PROFILES, type ProviderId } from '../../src/config/provider-profiles.js';
import { httpError, startFakeOpenAI, streamText, type ChatHandler, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectInProcess, type InProcess } from '../helpers/in-process.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/http-400/${name}.body`, import.meta.url), 'utf8');
/** Real bodies: OpenAI max_tokens, Azure temperature (gpt-5), Azure stream_options. */
const REJECT_MAX_TOKENS = fixture('openai__max_tokens_unsupported_parameter');
const REJECT_TEMPERATURE = fixture('azure__temperature_unsupported_value_gpt5');
const REJECT_STREAM_OPTIONS = fixture('azure__stream_options_unrecognized_argument');

/** Rejects max_tokens, then temperature, then stream_options, whichever is present first; else streams. */
const picky: ChatHandler = (req, res, body) => {
  if ('max_tokens' in body) return httpError(400, REJECT_MAX_TOKENS)(req, res, body);
  if ('temperature' in body) return httpError(400, REJECT_TEMPERATURE)(req, res, body);
  if ('stream_options' in body) return httpError(400, REJECT_STREAM_OPTIONS)(req, res, body);
  return streamText(['Olá'])(req, res, body);
};

const servers: FakeOpenAI[] = [];
let conn: InProcess | undefined;
afterEach(async () => {
  conn?.close();
  conn = undefined;
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const serve = async (handler: ChatHandler) => {
  const server = await startFakeOpenAI(handler);
  servers.push(server);
  return server;
};
/** Consumes like the model request: content commits, a finish reason finishes. */
async function drain(client: ChatCompletionsClient, request: ChatRequest): Promise<string> {
  const state = { committed: false, finished: false };
  let text = '';
  for await (const batch of client.stream(request, new AbortController().signal, state)) {
    for (const item of batch) {
      if (item.kind !== 'chunk') continue;
      const choice = item.chunk.choices?.[0];
      if (choice?.delta?.content) state.committed = true;
      if (choice?.finish_reason) state.finished = true;
      text += choice?.delta?.content ?? '';
    }
  }
  return text;
}
const keysOf = (server: FakeOpenAI) =>
  server.requests.map((r) =>
    Object.keys(r.body)
      .filter((k) => !['model', 'messages', 'stream'].includes(k))
      .sort(),
  );

describe('adaptive parameters in the chat client', () => {
  it('corrects max_tokens, then temperature, then stream_options in one turn; the next turn is sent corrected at once', async () => {
    const server = await serve(picky);
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', write: (line) => void lines.push(line) });
    // maxRetries 0: corrections do not count as retries.
    const client = new ChatCompletionsClient({ url: `${server.baseUrl}/chat/completions`, maxRetries: 0, logger, corrections: new LearnedCorrections() });
    const request: ChatRequest = { model: 'gpt-5', messages: [{ role: 'user', content: 'oi' }], maxTokens: 64, temperature: 0.2 };

    expect(await drain(client, request)).toBe('Olá');
    expect(keysOf(server)).toEqual([
      ['max_tokens', 'stream_options', 'temperature'],
      ['max_completion_tokens', 'stream_options', 'temperature'],
      ['max_completion_tokens', 'stream_options'],
      ['max_completion_tokens'],
    ]);
    expect(server.requests[3]!.body).toEqual({ model: 'gpt-5', messages: [{ role: 'user', content: 'oi' }], stream: true, max_completion_tokens: 64 });

    expect(await drain(client, request)).toBe('Olá');
    expect(server.requests).toHaveLength(5);
    expect(server.requests[4]!.body).toEqual(server.requests[3]!.body);

    const info = lines.filter((line) => line.includes('rejected a request parameter'));
    expect(info).toHaveLength(3);
    expect(info[0]).toContain('renamed max_tokens to max_completion_tokens');
    expect(info[0]).toContain("Use 'max_completion_tokens' instead");
    expect(info[1]).toContain('dropped temperature');
    expect(info[2]).toContain('dropped stream_options');
  });

  it('remembers per URL and model: another model on the same URL starts from scratch', async () => {
    const server = await serve(picky);
    const learned = new LearnedCorrections();
    const client = new ChatCompletionsClient({ url: `${server.baseUrl}/chat/completions`, maxRetries: 0, corrections: learned });
    await drain(client, { model: 'a', messages: [], maxTokens: 5 });
    expect(server.requests).toHaveLength(3);
    await drain(client, { model: 'b', messages: [], maxTokens: 5 });
    expect(server.requests).toHaveLength(6);
    expect(learned.get(`${server.baseUrl}/chat/completions`, 'a')).toEqual(learned.get(`${server.baseUrl}/chat/completions`, 'b'));
  });

  it('stops after 5 corrections and reports the last 400', async () => {
    // Each answer rejects the first present of these, with Azure's real wording.
    const order = ['max_tokens', 'max_completion_tokens', 'temperature', 'reasoning_effort', 'stream_options'];
    const server = await serve((req, res, body) => {
      const name = order.find((key) => key in body);
      if (name === 'max_tokens') return httpError(400, REJECT_MAX_TOKENS)(req, res, body);
      if (name)
        return httpError(400, {
          error: { message: `Unrecognized request argument supplied: ${name}`, type: 'invalid_request_error', param: null, code: null },
        })(req, res, body);
      if (body.messages.some((m: { role: string }) => m.role === 'system' || m.role === 'developer')) {
        const role = body.messages[0].role;
        return httpError(400, {
          error: {
            code: 'unsupported_value',
            message: `Unsupported value: 'messages[0].role' does not support '${role}' with this model.`,
            param: 'messages[0].role',
          },
        })(req, res, body);
      }
      return streamText(['ok'])(req, res, body);
    });
    const client = new ChatCompletionsClient({ url: `${server.baseUrl}/chat/completions`, maxRetries: 3, corrections: new LearnedCorrections() });
    const request: ChatRequest = {
      model: 'o1-mini',
      messages: [
        { role: 'system', content: 'rules' },
        { role: 'user', content: 'q' },
      ],
      maxTokens: 5,
      temperature: 1,
      reasoningEffort: 'low',
    };
    const error = await drain(client, request).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect((error as ProviderHttpError).status).toBe(400);
    expect(server.requests).toHaveLength(6);
    // The next request resumes from the 5 learned corrections and finishes the chain: developer, then merged.
    expect(await drain(client, request)).toBe('ok');
    const last = server.requests.at(-1)!.body;
    expect(last).toEqual({ model: 'o1-mini', messages: [{ role: 'user', content: 'rules\n\nq' }], stream: true });
  });

  it('a 400 that names no parameter is final, and nothing is remembered', async () => {
    const server = await serve(httpError(400, fixture('groq__message_property_unsupported_not_top_level')));
    const learned = new LearnedCorrections();
    const client = new ChatCompletionsClient({ url: `${server.baseUrl}/chat/completions`, maxRetries: 2, corrections: learned });
    await expect(drain(client, { model: 'm', messages: [], temperature: 1 })).rejects.toMatchObject({ status: 400 });
    expect(server.requests).toHaveLength(1);
    expect(learned.get(`${server.baseUrl}/chat/completions`, 'm')).toEqual([]);
  });
});

describe('reasoning effort on the wire, per provider spelling', () => {
  const table: [ProviderId, string, Record<string, unknown>][] = [
    ['openai', 'gpt-5', { reasoning_effort: 'minimal' }],
    ['azure', 'o4-mini', { reasoning_effort: 'minimal' }],
    ['openrouter', 'openai/gpt-5', { reasoning: { effort: 'minimal' } }],
    ['xai', 'grok-3-mini', { reasoning_effort: 'minimal' }],
    ['groq', 'openai/gpt-oss-20b', { reasoning_effort: 'minimal' }],
    ['llamacpp', 'gpt-oss-20b', { reasoning_effort: 'minimal' }],
    ['ollama', 'gpt-oss:20b', { reasoning_effort: 'minimal' }],
    ['deepseek', 'deepseek-reasoner', {}],
  ];
  it.each(table)('%s (%s)', async (provider, model, expected) => {
    const server = await serve(streamText(['ok']));
    const client = new ChatCompletionsClient({ url: `${server.baseUrl}/chat/completions`, profile: PROVIDER_PROFILES[provider], maxRetries: 0 });
    await drain(client, { model, messages: [{ role: 'user', content: 'x' }], reasoningEffort: 'minimal' });
    const { body } = server.requests[0]!;
    expect({ reasoning_effort: body.reasoning_effort, reasoning: body.reasoning }).toEqual({ reasoning_effort: undefined, reasoning: undefined, ...expected });
  });
});

describe('createEndpoint applies the provider profile', () => {
  const settings = (baseUrl: string, provider?: ProviderId) => ({
    baseUrl,
    chatCompletionsUrl: `${baseUrl}/chat/completions`,
    apiKey: 'azure-key-1234',
    headers: {},
    query: undefined,
    model: 'dep',
    models: ['dep', 'other'],
    maxRetries: 0,
    timeoutMs: 10_000,
    provider,
  });
  const logger = createLogger({ level: 'error', write: () => undefined });

  it('Azure classic: api-version added, key in api-key (no Bearer), no GET /models', async () => {
    const server = await serve(streamText(['ok']));
    const endpoint = createEndpoint(settings(`${server.baseUrl}/openai/deployments/dep`, 'azure'), { logger });
    expect(endpoint.provider).toBe('azure');
    await drain(endpoint.client, { model: 'dep', messages: [] });
    const [sent] = server.requests;
    expect(sent!.url).toBe('/v1/openai/deployments/dep/chat/completions?api-version=2024-10-21');
    expect(sent!.headers['api-key']).toBe('azure-key-1234');
    expect(sent!.headers).not.toHaveProperty('authorization');
    expect((await endpoint.catalog.list()).map((m) => m.id)).toEqual(['dep', 'other']);
    expect(server.modelRequests).toBe(0);
  });

  it('without a provider the family is detected; a generic endpoint lists its models', async () => {
    const server = await serve(streamText(['ok']));
    const endpoint = createEndpoint(settings(server.baseUrl), { logger });
    expect(endpoint.provider).toBe('generic');
    await drain(endpoint.client, { model: 'dep', messages: [] });
    expect(server.requests[0]!.headers['authorization']).toBe('Bearer azure-key-1234');
    expect((await endpoint.catalog.list()).map((m) => m.id)).toEqual(['dep', 'test-model']);
    expect(server.modelRequests).toBe(1);
  });
});

describe('adaptive parameters through the agent (in process)', () => {
  it('the first turn succeeds after three corrections; the second turn is corrected at once', async () => {
    const server = await serve(picky);
    conn = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MAX_TOKENS: '64', OPENAI_TEMPERATURE: '0.2', OPENAI_MODEL: 'gpt-5' });
    const sessionId = await conn.newSession();
    const first = await conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'oi' }] });
    expect(first.stopReason).toBe('end_turn');
    expect(conn.text(sessionId)).toBe('Olá');
    expect(server.requests).toHaveLength(4);
    const second = await conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'de novo' }] });
    expect(second.stopReason).toBe('end_turn');
    expect(server.requests).toHaveLength(5);
    const { body } = server.requests[4]!;
    expect(body.max_completion_tokens).toBe(64);
    for (const key of ['max_tokens', 'temperature', 'stream_options']) expect(body).not.toHaveProperty(key);
  });
});
