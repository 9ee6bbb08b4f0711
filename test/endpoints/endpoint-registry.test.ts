/**
 * `EndpointRegistry`: endpoints by id in order (the first is the default), model values
 * (`providerId/modelId` only with several endpoints), and the merged model list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EndpointRegistry, type NamedEndpointSettings } from '../../src/endpoints/endpoint-registry.js';
import type { FetchLike } from '../../src/openai/http.js';
import { createLogger } from '../../src/shared/log.js';
import { endpointSettings } from '../helpers/endpoint-settings.js';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';

const logger = createLogger({ level: 'error', write: () => undefined });

const settings = (id: string, baseUrl = `http://${id}.invalid/v1`, extra: Partial<NamedEndpointSettings> = {}) => endpointSettings(id, baseUrl, extra);

/** A fetch answering `GET …/models` per host from `lists` (404 for an unknown host), recording the URLs. */
function fakeFetch(lists: Record<string, unknown>): FetchLike & { urls: string[] } {
  const urls: string[] = [];
  const fetch = (async (url: string) => {
    urls.push(url);
    const host = new URL(url).hostname.split('.')[0]!;
    if (!(host in lists)) return new Response('not found', { status: 404 });
    return new Response(JSON.stringify(lists[host]), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as unknown as FetchLike & { urls: string[] };
  fetch.urls = urls;
  return fetch;
}
const list = (...ids: string[]) => ({ object: 'list', data: ids.map((id) => ({ id, object: 'model' })) });

describe('endpoints in order', () => {
  it('lists the endpoints in the order given; the first is the default', () => {
    const registry = new EndpointRegistry([settings('a'), settings('b'), settings('c')], { logger });
    expect(registry.list().map((e) => e.settings.id)).toEqual(['a', 'b', 'c']);
    expect(registry.size).toBe(3);
    expect(registry.get('b')?.settings.baseUrl).toBe('http://b.invalid/v1');
    expect(registry.get('zzz')).toBeUndefined();
  });

  it('set replaces an endpoint in place, with new settings and a new client', () => {
    const registry = new EndpointRegistry([settings('a'), settings('b'), settings('c')], { logger });
    const before = registry.get('b')!;
    const after = registry.set(settings('b', 'http://other.invalid/v2'));
    expect(registry.list().map((e) => e.settings.id)).toEqual(['a', 'b', 'c']);
    expect(registry.get('b')).toBe(after);
    expect(after).not.toBe(before);
    expect(after.resolved.chatUrl).toBe('http://other.invalid/v2/chat/completions');
    expect(registry.size).toBe(3);
  });

  it('set adds a new id at the end', () => {
    const registry = new EndpointRegistry([settings('a')], { logger });
    registry.set(settings('z'));
    expect(registry.list().map((e) => e.settings.id)).toEqual(['a', 'z']);
  });

  it('disable removes one endpoint and reports whether it existed', () => {
    const registry = new EndpointRegistry([settings('a'), settings('b'), settings('c')], { logger });
    expect(registry.disable('b')).toBe(true);
    expect(registry.disable('b')).toBe(false);
    expect(registry.disable('nope')).toBe(false);
    expect(registry.list().map((e) => e.settings.id)).toEqual(['a', 'c']);
  });

  it('disabling the default makes the next one the default', async () => {
    const registry = new EndpointRegistry([settings('a'), settings('b')], { logger });
    registry.disable('a');
    expect(await registry.defaultValue()).toBe('b-model');
    expect(registry.resolve('x')?.endpoint.settings.id).toBe('b');
  });

  it('an endpoint re-added after being disabled goes to the end', () => {
    const registry = new EndpointRegistry([settings('a'), settings('b')], { logger });
    registry.disable('a');
    registry.set(settings('a'));
    expect(registry.list().map((e) => e.settings.id)).toEqual(['b', 'a']);
  });

  it('applies the provider profile of each endpoint', () => {
    const registry = new EndpointRegistry(
      [
        settings('a', 'http://127.0.0.1:11434/v1'),
        settings('az', 'https://x.openai.azure.com/openai/deployments/d', { provider: 'azure', apiKey: 'k-123456' }),
      ],
      { logger },
    );
    expect(registry.get('a')!.provider).toBe('ollama');
    expect(registry.get('az')!.provider).toBe('azure');
  });
});

describe('model values', () => {
  it('with one endpoint, values are the bare model ids', async () => {
    const registry = new EndpointRegistry([settings('a')], { logger });
    expect(registry.valueOf('a', 'gpt-4o')).toBe('gpt-4o');
    expect(await registry.defaultValue()).toBe('a-model');
    const resolved = registry.resolve('gpt-4o')!;
    expect(resolved.endpoint.settings.id).toBe('a');
    expect(resolved.model).toBe('gpt-4o');
  });

  it('with one endpoint, a value that looks prefixed is sent as is (OpenRouter ids contain "/")', () => {
    const registry = new EndpointRegistry([settings('openrouter')], { logger });
    expect(registry.resolve('openai/gpt-4o')).toMatchObject({ model: 'openai/gpt-4o' });
    expect(registry.resolve('openrouter/auto')).toMatchObject({ model: 'openrouter/auto' });
  });

  it('with several endpoints, values are providerId/modelId', async () => {
    const registry = new EndpointRegistry([settings('a'), settings('b')], { logger });
    expect(registry.valueOf('b', 'llama3.2')).toBe('b/llama3.2');
    expect(await registry.defaultValue()).toBe('a/a-model');
    const resolved = registry.resolve('b/llama3.2')!;
    expect(resolved.endpoint.settings.id).toBe('b');
    expect(resolved.model).toBe('llama3.2');
  });

  it('splits at the first "/" only, so model ids may contain "/"', () => {
    const registry = new EndpointRegistry([settings('ollama'), settings('openrouter')], { logger });
    const resolved = registry.resolve('openrouter/openai/gpt-4o')!;
    expect(resolved.endpoint.settings.id).toBe('openrouter');
    expect(resolved.model).toBe('openai/gpt-4o');
  });

  it('a value whose first segment is not an endpoint id goes to the default endpoint as is', () => {
    const registry = new EndpointRegistry([settings('a'), settings('b')], { logger });
    expect(registry.resolve('gpt-4o')).toMatchObject({ model: 'gpt-4o', endpoint: { settings: { id: 'a' } } });
    expect(registry.resolve('openai/gpt-4o')).toMatchObject({ model: 'openai/gpt-4o', endpoint: { settings: { id: 'a' } } });
    expect(registry.resolve('/b')).toMatchObject({ model: '/b', endpoint: { settings: { id: 'a' } } });
  });

  it('ids are matched exactly (case and whole segment)', () => {
    const registry = new EndpointRegistry([settings('a'), settings('B')], { logger });
    expect(registry.resolve('b/x')).toMatchObject({ model: 'b/x', endpoint: { settings: { id: 'a' } } });
    expect(registry.resolve('BB/x')).toMatchObject({ model: 'BB/x', endpoint: { settings: { id: 'a' } } });
    expect(registry.resolve('B/x')).toMatchObject({ model: 'x', endpoint: { settings: { id: 'B' } } });
  });

  it('without endpoints there is no default and nothing resolves', async () => {
    const registry = new EndpointRegistry([], { logger });
    expect(registry.size).toBe(0);
    expect(await registry.defaultValue()).toBeUndefined();
    expect(registry.resolve('gpt-4o')).toBeUndefined();
    expect(registry.resolve('a/gpt-4o')).toBeUndefined();
  });

  it('values follow the number of endpoints as they change', () => {
    const registry = new EndpointRegistry([settings('a')], { logger });
    expect(registry.valueOf('a', 'm')).toBe('m');
    registry.set(settings('b'));
    expect(registry.valueOf('a', 'm')).toBe('a/m');
    expect(registry.resolve('b/m')).toMatchObject({ model: 'm', endpoint: { settings: { id: 'b' } } });
    registry.disable('b');
    expect(registry.valueOf('a', 'm')).toBe('m');
    expect(registry.resolve('b/m')).toMatchObject({ model: 'b/m', endpoint: { settings: { id: 'a' } } });
  });
});

describe('models()', () => {
  it('with one endpoint, gives its list unchanged (configured model first when missing)', async () => {
    const fetch = fakeFetch({ a: list('m1', 'm2') });
    const registry = new EndpointRegistry([settings('a', undefined, { model: 'm2' })], { logger, fetch });
    expect(await registry.models()).toEqual([{ id: 'm1' }, { id: 'm2' }]);
    expect(fetch.urls).toEqual(['http://a.invalid/v1/models']);
  });

  it('with several endpoints, prefixes ids and names with the provider id, default endpoint first', async () => {
    const fetch = fakeFetch({ a: list('m1'), b: { data: [{ id: 'openai/gpt-4o', name: 'GPT-4o', context_length: 128000 }, { id: 'x' }] } });
    const registry = new EndpointRegistry([settings('a', undefined, { model: 'm1' }), settings('b', undefined, { model: 'x' })], { logger, fetch });
    expect(await registry.models()).toEqual([
      { id: 'a/m1', name: 'a: m1' },
      { id: 'b/openai/gpt-4o', name: 'b: GPT-4o', contextWindow: 128000 },
      { id: 'b/x', name: 'b: x' },
    ]);
  });

  it('every listed value resolves back to its endpoint and the id it listed', async () => {
    const fetch = fakeFetch({ a: list('m1', 'm2'), b: list('openai/gpt-4o') });
    const registry = new EndpointRegistry([settings('a', undefined, { model: 'm1' }), settings('b', undefined, { model: 'openai/gpt-4o' })], { logger, fetch });
    const resolved = (await registry.models()).map((model) => registry.resolve(model.id)).map((r) => [r!.endpoint.settings.id, r!.model]);
    expect(resolved).toEqual([
      ['a', 'm1'],
      ['a', 'm2'],
      ['b', 'openai/gpt-4o'],
    ]);
  });

  it('an endpoint whose /models fails still offers its fallbacks and configured model', async () => {
    const fetch = fakeFetch({ a: list('m1') });
    const registry = new EndpointRegistry([settings('a', undefined, { model: 'm1' }), settings('down', undefined, { model: 'cfg', models: ['f1', 'f2'] })], {
      logger,
      fetch,
    });
    expect((await registry.models()).map((m) => m.id)).toEqual(['a/m1', 'down/cfg', 'down/f1', 'down/f2']);
  });

  it('never rejects when the transport throws', async () => {
    const fetch: FetchLike = async () => {
      throw new Error('ECONNREFUSED');
    };
    const registry = new EndpointRegistry([settings('a'), settings('b')], { logger, fetch });
    expect((await registry.models()).map((m) => m.id)).toEqual(['a/a-model', 'b/b-model']);
  });

  it('with no endpoint, is empty', async () => {
    expect(await new EndpointRegistry([], { logger }).models()).toEqual([]);
  });

  it('sends nothing when the deps say the endpoints are disabled (invalid configuration)', async () => {
    const fetch = fakeFetch({ a: list('m1') });
    const registry = new EndpointRegistry([settings('a', undefined, { model: 'cfg' })], { logger, fetch, enabled: false });
    expect(await registry.models()).toEqual([{ id: 'cfg' }]);
    expect(fetch.urls).toEqual([]);
  });

  it('a replaced endpoint is asked for its list again, at its new address', async () => {
    const fetch = fakeFetch({ a: list('m1'), c: list('c1') });
    const registry = new EndpointRegistry([settings('a', undefined, { model: 'm1' }), settings('b', 'http://c.invalid/v1', { model: 'c1' })], {
      logger,
      fetch,
    });
    await registry.models();
    registry.set(settings('b', 'http://a.invalid/v9', { model: 'm1' }));
    expect((await registry.models()).map((m) => m.id)).toEqual(['a/m1', 'b/m1']);
    expect(fetch.urls).toContain('http://a.invalid/v9/models');
  });
});

describe('models() against real loopback servers', () => {
  let a: FakeOpenAI;
  let b: FakeOpenAI;
  beforeAll(async () => {
    a = await startFakeOpenAI();
    b = await startFakeOpenAI();
    a.setModels(list('llama3.2', 'qwen3'));
    b.setModels({ data: [{ id: 'openai/gpt-4o', name: 'OpenAI: GPT-4o' }] });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('merges both lists and asks each server once, even for concurrent callers', async () => {
    const registry = new EndpointRegistry([settings('ollama', a.baseUrl, { model: 'llama3.2' }), settings('router', b.baseUrl, { model: 'openai/gpt-4o' })], {
      logger,
    });
    const [first, second] = await Promise.all([registry.models(), registry.models()]);
    expect(first).toEqual(second);
    expect(first).toEqual([
      { id: 'ollama/llama3.2', name: 'ollama: llama3.2' },
      { id: 'ollama/qwen3', name: 'ollama: qwen3' },
      { id: 'router/openai/gpt-4o', name: 'router: OpenAI: GPT-4o' },
    ]);
    expect(a.modelRequests).toBe(1);
    expect(b.modelRequests).toBe(1);
    await registry.models();
    expect(a.modelRequests).toBe(1);
  });

  it('sends each endpoint its own key and headers', async () => {
    const seen: Record<string, string | undefined>[] = [];
    const fetch: FetchLike = async (url, init) => {
      const headers = init.headers as Record<string, string>;
      seen.push({ url, authorization: headers['authorization'], extra: headers['x-extra'] });
      return new Response(JSON.stringify(list('m')), { status: 200 });
    };
    const registry = new EndpointRegistry(
      [
        settings('one', 'http://one.invalid/v1', { apiKey: 'key-one', model: 'm' }),
        settings('two', 'http://two.invalid/v1', { headers: { 'x-extra': 'yes' }, model: 'm' }),
      ],
      { logger, fetch },
    );
    await registry.models();
    expect(seen).toEqual([
      { url: 'http://one.invalid/v1/models', authorization: 'Bearer key-one', extra: undefined },
      { url: 'http://two.invalid/v1/models', authorization: undefined, extra: 'yes' },
    ]);
  });
});
