/**
 * Several endpoints through the real agent (in process) with loopback fake servers: the merged
 * model picker, routing `providerId/modelId` to the right server, `providers/list|set|disable`,
 * an empty choice of endpoints, `authenticate` (re-reading the configuration) and the `setup` auth method.
 */
import type { ClientCapabilities } from '@agentclientprotocol/sdk/unstable';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentOptions } from '../../src/app/agent-state.js';
import type { EndpointChoice } from '../../src/endpoints/endpoint-choice.js';
import { ConfigError, type Config } from '../../src/config/config.js';
import type { NamedEndpointSettings } from '../../src/endpoints/endpoint-registry.js';
import { endpointSettings } from '../helpers/endpoint-settings.js';
import { startFakeOpenAI, streamText, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectInProcess, testConfig, type InProcess } from '../helpers/in-process.js';

const HEADER_SECRET = 'hdr-secret-Qw7Er5Ty3Ui1';

let a: FakeOpenAI;
let b: FakeOpenAI;
let c: FakeOpenAI;
let conn: InProcess | undefined;

const list = (...ids: string[]) => ({ object: 'list', data: ids.map((id) => ({ id, object: 'model' })) });

const endpoint = (id: string, server: FakeOpenAI, model: string, extra: Partial<NamedEndpointSettings> = {}) =>
  endpointSettings(id, server.baseUrl, { model, ...extra });
const twoEndpoints = (): EndpointChoice => ({
  endpoints: [endpoint('a', a, 'test-model', { headers: { Authorization: `Bearer ${HEADER_SECRET}` } }), endpoint('b', b, 'some-model')],
  model: 'a/test-model',
});
const connect = async (endpoints: AgentOptions['endpoints'], extra: Partial<AgentOptions> = {}) => {
  conn = await connectInProcess({ OPENAI_BASE_URL: c.baseUrl, OPENAI_ACP_TOOLS: 'off' }, { endpoints, ...extra });
  return conn;
};
const prompt = (sessionId: string, text = 'hi') => conn!.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
type Select = { id: string; currentValue: string; options: { value: string; name: string }[] };
const modelSelect = (answer: { configOptions?: unknown[] | null }) => (answer.configOptions as Select[]).find((o) => o.id === 'model')!;
const counts = () => [a.requests.length, b.requests.length, c.requests.length];

beforeAll(async () => {
  a = await startFakeOpenAI(streamText(['from a']));
  b = await startFakeOpenAI(streamText(['from b']));
  c = await startFakeOpenAI(streamText(['from c']));
  a.setModels(list('test-model', 'a-other'));
  b.setModels(list('some-model', 'org/b-two'));
  c.setModels(list('c-model'));
});
afterAll(async () => {
  await Promise.all([a.close(), b.close(), c.close()]);
});
beforeEach(() => {
  for (const server of [a, b, c]) server.requests.length = 0;
});
afterEach(() => {
  conn?.close();
  conn = undefined;
});

describe('two endpoints', () => {
  it('the picker lists both endpoints models as a/… and b/…, default first', async () => {
    await connect(twoEndpoints());
    const answer = await conn!.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    const select = modelSelect(answer);
    expect(select.currentValue).toBe('a/test-model');
    expect(select.options).toEqual([
      { value: 'a/test-model', name: 'a: test-model' },
      { value: 'a/a-other', name: 'a: a-other' },
      { value: 'b/some-model', name: 'b: some-model' },
      { value: 'b/org/b-two', name: 'b: org/b-two' },
    ]);
  });

  it('the default model goes to server a with the bare id; selecting b/some-model sends the next request to b', async () => {
    await connect(twoEndpoints());
    const sessionId = await conn!.newSession();
    await prompt(sessionId);
    expect(counts()).toEqual([1, 0, 0]);
    expect(a.requests[0]!.body.model).toBe('test-model');
    expect(a.requests[0]!.headers.authorization).toBe(`Bearer ${HEADER_SECRET}`);

    const answer = await conn!.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'b/some-model' });
    expect(modelSelect(answer).currentValue).toBe('b/some-model');
    await prompt(sessionId);
    expect(counts()).toEqual([1, 1, 0]);
    expect(b.requests[0]!.body.model).toBe('some-model');
    expect(b.requests[0]!.headers.authorization).toBeUndefined();
    expect(conn!.text(sessionId)).toBe('from afrom b');
  });

  it('a model id containing "/" is sent whole after the provider prefix; the legacy set_model routes too', async () => {
    await connect(twoEndpoints());
    const sessionId = await conn!.newSession();
    await conn!.agent.request('session/set_model', { sessionId, modelId: 'b/org/b-two' });
    await prompt(sessionId);
    expect(b.requests.at(-1)!.body.model).toBe('org/b-two');
    await conn!.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'a/a-other' });
    await prompt(sessionId);
    expect(a.requests.at(-1)!.body.model).toBe('a-other');
  });

  it('the conversation follows the session across providers', async () => {
    await connect(twoEndpoints());
    const sessionId = await conn!.newSession();
    await prompt(sessionId, 'first question');
    await conn!.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'b/some-model' });
    await prompt(sessionId, 'second question');
    const messages = b.requests[0]!.body.messages as { role: string; content: string }[];
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'first question'],
      ['assistant', 'from a'],
      ['user', 'second question'],
    ]);
  });

  it('the endpoints may be found later (a local server search): called once, used by every request', async () => {
    const find = vi.fn(async () => twoEndpoints());
    await connect(find);
    const [first, second] = await Promise.all([conn!.newSession(), conn!.newSession()]);
    await prompt(first);
    await conn!.agent.request('session/set_config_option', { sessionId: second, configId: 'model', value: 'b/some-model' });
    await prompt(second);
    expect(counts()).toEqual([1, 1, 0]);
    expect(find).toHaveBeenCalledOnce();
  });
});

describe('providers/*', () => {
  it('providers/list reports both endpoints, without any secret', async () => {
    await connect(twoEndpoints());
    const answer = await conn!.agent.request('providers/list', {});
    expect(answer.providers.map((p) => [p.providerId, p.current?.baseUrl, p.current?.apiType, p.required])).toEqual([
      ['a', a.baseUrl, 'openai', false],
      ['b', b.baseUrl, 'openai', false],
    ]);
    for (const provider of answer.providers) expect(provider.supported).toEqual(expect.arrayContaining(['openai', 'azure', 'bedrock']));
    expect(JSON.stringify(answer)).not.toContain(HEADER_SECRET);
    expect(JSON.stringify(answer).toLowerCase()).not.toContain('authorization');
  });

  it('providers/set adds a third endpoint at run time: listed, in the picker, and routed to', async () => {
    await connect(twoEndpoints());
    expect(await conn!.agent.request('providers/set', { providerId: 'c', apiType: 'openai', baseUrl: `${c.baseUrl}/`, headers: { 'x-c': 'yes' } })).toEqual({});
    const listed = await conn!.agent.request('providers/list', {});
    expect(listed.providers.map((p) => [p.providerId, p.current?.baseUrl])).toEqual([
      ['a', a.baseUrl],
      ['b', b.baseUrl],
      ['c', c.baseUrl],
    ]);
    const answer = await conn!.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    expect(modelSelect(answer).options.map((o) => o.value)).toContain('c/c-model');
    await conn!.agent.request('session/set_config_option', { sessionId: answer.sessionId, configId: 'model', value: 'c/c-model' });
    await prompt(answer.sessionId);
    expect(counts()).toEqual([0, 0, 1]);
    expect(c.requests[0]!.body.model).toBe('c-model');
    expect(c.requests[0]!.headers['x-c']).toBe('yes');
  });

  it('providers/set with the id of an existing endpoint replaces it in place', async () => {
    await connect(twoEndpoints());
    await conn!.agent.request('providers/set', { providerId: 'a', apiType: 'openai', baseUrl: c.baseUrl });
    const listed = await conn!.agent.request('providers/list', {});
    expect(listed.providers.map((p) => [p.providerId, p.current?.baseUrl])).toEqual([
      ['a', c.baseUrl],
      ['b', b.baseUrl],
    ]);
    const sessionId = await conn!.newSession();
    await prompt(sessionId);
    expect(counts()).toEqual([0, 0, 1]);
  });

  it('providers/set rejects an apiType other than openai, azure or bedrock, and a non-http base URL, with -32602', async () => {
    await connect(twoEndpoints());
    await expect(conn!.agent.request('providers/set', { providerId: 'x', apiType: 'anthropic', baseUrl: c.baseUrl })).rejects.toMatchObject({ code: -32602 });
    await expect(conn!.agent.request('providers/set', { providerId: 'x', apiType: 'openai', baseUrl: 'file:///etc/passwd' })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(conn!.agent.request('providers/set', { providerId: 'x', apiType: 'openai', baseUrl: 'not a url' })).rejects.toMatchObject({ code: -32602 });
    const listed = await conn!.agent.request('providers/list', {});
    expect(listed.providers.map((p) => p.providerId)).toEqual(['a', 'b']);
  });

  it('providers/disable removes one endpoint: no longer listed, offered or sent to', async () => {
    await connect(twoEndpoints());
    expect(await conn!.agent.request('providers/disable', { providerId: 'b' })).toEqual({});
    expect(await conn!.agent.request('providers/disable', { providerId: 'nope' })).toEqual({});
    const listed = await conn!.agent.request('providers/list', {});
    expect(listed.providers.map((p) => p.providerId)).toEqual(['a']);
    const answer = await conn!.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    expect(
      modelSelect(answer)
        .options.map((o) => o.value)
        .filter((v) => v.includes('some-model')),
    ).toEqual([]);
    await prompt(answer.sessionId);
    expect(counts()).toEqual([1, 0, 0]);
  });

  // Model values are prefixed only while there are several endpoints, so when providers/set or
  // providers/disable changes that number, the values already handed out (the default, and each
  // held session's) are re-spelled: `a/test-model` becomes `test-model` when `a` is left alone.
  // (Making resolve always strip a known prefix would break one-endpoint OpenRouter ids such as
  // "openrouter/auto".)
  it('after disabling b, the default model still reaches a as "test-model"', async () => {
    await connect(twoEndpoints());
    await conn!.agent.request('providers/disable', { providerId: 'b' });
    const answer = await conn!.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    await prompt(answer.sessionId);
    expect(a.requests.at(-1)!.body.model).toBe('test-model');
    expect(modelSelect(answer).options.map((o) => o.value)).toEqual(['test-model', 'a-other']);
  });

  // And growing: with one endpoint the default value is the bare "test-model"; once providers/set
  // adds a second endpoint it is "a/test-model", one of the listed values.
  it('after providers/set adds a second endpoint, the default model is one of the listed values', async () => {
    await connect({ endpoints: [endpoint('a', a, 'test-model')], model: 'test-model' });
    await conn!.agent.request('providers/set', { providerId: 'c', apiType: 'openai', baseUrl: c.baseUrl });
    const answer = await conn!.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    const select = modelSelect(answer);
    expect(select.options.map((o) => o.value)).not.toContain('test-model');
    expect(select.currentValue).toBe('a/test-model');
  });

  // An endpoint added by providers/set has no model of its own: it offers only what its server
  // lists (no stand-in "c/test-model").
  it('providers/set rejects a providerId that model values could not address', async () => {
    await connect(twoEndpoints());
    for (const providerId of ['a/b', '', '.hidden']) {
      await expect(conn!.agent.request('providers/set', { providerId, apiType: 'openai', baseUrl: c.baseUrl })).rejects.toMatchObject({ code: -32602 });
    }
  });

  it('an endpoint added by providers/set offers only the models its server lists', async () => {
    await connect(twoEndpoints());
    await conn!.agent.request('providers/set', { providerId: 'c', apiType: 'openai', baseUrl: c.baseUrl });
    const answer = await conn!.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    expect(
      modelSelect(answer)
        .options.map((o) => o.value)
        .filter((v) => v.startsWith('c/')),
    ).toEqual(['c/c-model']);
  });

  // The other way: a session on "b/some-model" keeps reaching b with "some-model" once b is the
  // only endpoint.
  it('a session on b/some-model keeps sending "some-model" to b after a is disabled', async () => {
    await connect(twoEndpoints());
    const sessionId = await conn!.newSession();
    await conn!.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'b/some-model' });
    await conn!.agent.request('providers/disable', { providerId: 'a' });
    await prompt(sessionId);
    expect(b.requests.at(-1)!.body.model).toBe('some-model');
  });
});

describe('no endpoint', () => {
  it('an empty choice of endpoints with missing words answers every prompt with them and sends nothing upstream', async () => {
    const modelRequests = [a.modelRequests, b.modelRequests, c.modelRequests];
    await connect({ endpoints: [], missing: 'Start Ollama, or set OPENAI_BASE_URL.' });
    const sessionId = await conn!.newSession();
    // Each prompt fails as clients see a failure: -32603, the words its message (once, no "Internal error"), the kind in data (app/prompt-failure.ts).
    const failed = { code: -32603, message: 'Start Ollama, or set OPENAI_BASE_URL.', data: { kind: 'config', retryable: false } };
    await expect(prompt(sessionId)).rejects.toEqual(expect.objectContaining(failed));
    await expect(prompt(sessionId, '/compact')).rejects.toEqual(expect.objectContaining(failed));
    expect(conn!.text(sessionId)).toBe('');
    expect(counts()).toEqual([0, 0, 0]);
    expect([a.modelRequests, b.modelRequests, c.modelRequests]).toEqual(modelRequests);
    expect((await conn!.agent.request('providers/list', {})).providers).toEqual([]);
  });

  it('an empty choice of endpoints without words still explains how to configure one', async () => {
    await connect({ endpoints: [] });
    const sessionId = await conn!.newSession();
    await expect(prompt(sessionId)).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/OPENAI_BASE_URL/), data: { kind: 'config' } });
    expect(counts()).toEqual([0, 0, 0]);
  });

  it('providers/set on an empty choice of endpoints gives the agent its first endpoint', async () => {
    await connect({ endpoints: [], missing: 'nothing configured' });
    await conn!.agent.request('providers/set', { providerId: 'c', apiType: 'openai', baseUrl: c.baseUrl });
    const sessionId = await conn!.newSession();
    await prompt(sessionId);
    expect(counts()).toEqual([0, 0, 1]);
    expect(conn!.text(sessionId)).toBe('from c');
  });
});

describe('authenticate', () => {
  const reloadTo = (endpoints: EndpointChoice, configError?: ConfigError) =>
    vi.fn(async () => ({ config: testConfig({ OPENAI_BASE_URL: c.baseUrl }), configError, endpoints }));

  it('keeps an open session on its model when the re-read configuration still has its provider, and tells the client', async () => {
    const reload = reloadTo({ endpoints: [endpoint('b', b, 'some-model')], model: 'some-model' });
    await connect(twoEndpoints(), { reload });
    const sessionId = await conn!.newSession();
    await conn!.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'b/org/b-two' });
    await conn!.agent.request('authenticate', { methodId: 'setup' });
    const update = conn!.notifications.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'config_option_update').at(-1);
    expect(modelSelect(update!.update as { configOptions: unknown[] }).currentValue).toBe('org/b-two');
    await prompt(sessionId);
    expect(b.requests.at(-1)!.body.model).toBe('org/b-two');
  });

  it('methodId "setup" calls reload, and the new endpoints are used afterwards', async () => {
    const reload = reloadTo({ endpoints: [endpoint('b', b, 'some-model')], model: 'some-model' });
    await connect({ endpoints: [endpoint('a', a, 'test-model')] }, { reload });
    expect(await conn!.agent.request('authenticate', { methodId: 'setup' })).toEqual({});
    expect(reload).toHaveBeenCalledOnce();
    const answer = await conn!.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    expect(modelSelect(answer).currentValue).toBe('some-model');
    expect(modelSelect(answer).options.map((o) => o.value)).toEqual(['some-model', 'org/b-two']);
    await prompt(answer.sessionId);
    expect(counts()).toEqual([0, 1, 0]);
    expect(b.requests[0]!.body.model).toBe('some-model');
    expect((await conn!.agent.request('providers/list', {})).providers.map((p) => p.providerId)).toEqual(['b']);
  });

  it('turns an unconfigured agent into a working one', async () => {
    const reload = reloadTo({ endpoints: [endpoint('c', c, 'c-model')] });
    await connect({ endpoints: [], missing: 'not configured yet' }, { reload });
    const sessionId = await conn!.newSession();
    await expect(prompt(sessionId)).rejects.toMatchObject({ code: -32603, message: 'Not configured yet.', data: { kind: 'config' } });
    await conn!.agent.request('authenticate', { methodId: 'setup' });
    const next = await conn!.newSession();
    await prompt(next);
    expect(conn!.text(next)).toBe('from c');
    expect(c.requests.at(-1)!.body.model).toBe('c-model');
  });

  it('an unknown methodId is -32602 and does not reload', async () => {
    const reload = reloadTo({ endpoints: [] });
    await connect(twoEndpoints(), { reload });
    await expect(conn!.agent.request('authenticate', { methodId: 'oauth' })).rejects.toMatchObject({ code: -32602 });
    expect(reload).not.toHaveBeenCalled();
  });

  it('a configuration still invalid after reload is an auth-required error, and prompts explain it', async () => {
    const config: Config = testConfig({ OPENAI_BASE_URL: c.baseUrl });
    const error = new ConfigError([{ variable: 'OPENAI_TEMPERATURE', problem: '"hot" is not a number', accepted: 'a number from 0 to 2' }], config);
    const reload = reloadTo({ endpoints: [endpoint('c', c, 'c-model')] }, error);
    await connect(twoEndpoints(), { reload });
    await expect(conn!.agent.request('authenticate', { methodId: 'setup' })).rejects.toMatchObject({ code: -32000 });
    const sessionId = await conn!.newSession();
    await expect(prompt(sessionId)).rejects.toMatchObject({ code: -32603, message: expect.stringContaining('OPENAI_TEMPERATURE'), data: { kind: 'config' } });
    expect(counts()).toEqual([0, 0, 0]);
  });

  it('without reload, authenticate succeeds and changes nothing', async () => {
    await connect(twoEndpoints());
    expect(await conn!.agent.request('authenticate', { methodId: 'setup' })).toEqual({});
    const sessionId = await conn!.newSession();
    await prompt(sessionId);
    expect(counts()).toEqual([1, 0, 0]);
  });
});

describe('initialize advertises the setup auth method', () => {
  it('as type "terminal" with args ["setup"] when the client can run a terminal', async () => {
    await connect(twoEndpoints());
    const answer = await conn!.agent.request('initialize', { protocolVersion: 1, clientCapabilities: { auth: { terminal: true } } });
    expect(answer.authMethods).toEqual([expect.objectContaining({ id: 'setup', type: 'terminal', args: ['setup'] })]);
  });

  it('also for the older _meta["terminal-auth"] capability', async () => {
    await connect(twoEndpoints());
    const answer = await conn!.agent.request('initialize', { protocolVersion: 1, clientCapabilities: { _meta: { 'terminal-auth': true } } });
    expect(answer.authMethods).toEqual([expect.objectContaining({ id: 'setup', type: 'terminal', args: ['setup'] })]);
  });

  it.each([[{}], [{ auth: { terminal: false } }], [{ auth: {} }]])('without a type (an agent method) for capabilities %j', async (clientCapabilities) => {
    await connect(twoEndpoints());
    const answer = await conn!.agent.request('initialize', { protocolVersion: 1, clientCapabilities: clientCapabilities as ClientCapabilities });
    expect(answer.authMethods).toHaveLength(1);
    const method = answer.authMethods![0] as Record<string, unknown>;
    expect(method['id']).toBe('setup');
    expect(method).not.toHaveProperty('type');
    expect(method).not.toHaveProperty('args');
    expect(String(method['description'])).toContain('openai-acp setup');
  });
});

describe('an endpoint without a model of its own (config-file provider without models)', () => {
  it('defaults to the first chat model it lists and does not offer the stand-in', async () => {
    c.setModels(list('nomic-embed-text', 'qwen3:8b', 'llama3.2'));
    await connect({ endpoints: [endpoint('c', c, 'gpt-4o', { modelIsStandIn: true })] });
    const answer = await conn!.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    expect(modelSelect(answer).currentValue).toBe('qwen3:8b');
    expect(modelSelect(answer).options.map((o) => o.value)).toEqual(['nomic-embed-text', 'qwen3:8b', 'llama3.2']);
    await prompt(answer.sessionId);
    expect(c.requests.at(-1)!.body.model).toBe('qwen3:8b');
  });
});
