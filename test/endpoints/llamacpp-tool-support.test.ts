/**
 * Whether llama.cpp's chat template takes tools, from `/props` `chat_template_caps` (recorded from
 * llama-server 0.7.0 with Gemma 3's own template), and the lookup that carries it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLlamaCppToolSupport, serverWindowLookup } from '../../src/endpoints/server-context.js';

const props = JSON.parse(JSON.parse(readFileSync(new URL('../fixtures/llamacpp/props-gemma.json', import.meta.url), 'utf8')).response.body) as Record<
  string,
  unknown
>;

describe('llama.cpp tool support', () => {
  it('reads supports_tools: false from the recorded /props of a Gemma 3 template', () => {
    expect(parseLlamaCppToolSupport(props)).toBe(false);
    expect(parseLlamaCppToolSupport({ chat_template_caps: { supports_tools: true } })).toBe(true);
  });

  it.each([[undefined], ['<html>'], [{}], [{ chat_template_caps: { supports_tools: 'no' } }], [{ chat_template_caps: [] }]])('says nothing for %j', (body) => {
    expect(parseLlamaCppToolSupport(body)).toBeUndefined();
  });

  it('the server lookup gives the runtime window and supportsTools from one /props answer', async () => {
    const asked: string[] = [];
    const fetch = async (url: string | URL) => {
      asked.push(String(url));
      return new Response(JSON.stringify(props), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const lookup = serverWindowLookup({ query: 'llamacpp-props', baseUrl: 'http://127.0.0.1:9312/v1', headers: {}, fetch: fetch as never });
    expect(await lookup('math')).toEqual({ runtime: 4096, supportsTools: false, slots: 4, chatTemplate: expect.stringContaining('bos_token') });
    expect(asked).toEqual(['http://127.0.0.1:9312/props']);
  });
});

describe('heedServerToolSupport', () => {
  const endpoint = (query: string | undefined, supportsTools: boolean | undefined, asked: string[] = []) => ({
    profile: { contextWindowQuery: query } as never,
    client: { options: { url: 'http://127.0.0.1:9312/v1/chat/completions' } } as never,
    serverWindowOf: async (model: string) => {
      asked.push(model);
      return supportsTools === undefined ? {} : { supportsTools };
    },
  });

  it('puts the model on the text path when llama.cpp says its template takes no tools', async () => {
    const { heedServerToolSupport, TextToolPaths } = await import('../../src/endpoints/learned-text-paths.js');
    const paths = new TextToolPaths();
    await heedServerToolSupport(endpoint('llamacpp-props', false), 'math', paths);
    expect(paths.has('http://127.0.0.1:9312/v1/chat/completions', 'math')).toBe(true);
    expect(paths.takeNotice('http://127.0.0.1:9312/v1/chat/completions', 'math')).toMatch(/the server says its chat template cannot take tools/);
  });

  it('leaves it when the template takes tools or says nothing, and asks no other server', async () => {
    const { heedServerToolSupport, TextToolPaths } = await import('../../src/endpoints/learned-text-paths.js');
    const paths = new TextToolPaths();
    await heedServerToolSupport(endpoint('llamacpp-props', true), 'a', paths);
    await heedServerToolSupport(endpoint('llamacpp-props', undefined), 'b', paths);
    const asked: string[] = [];
    await heedServerToolSupport(endpoint('ollama-ps', false, asked), 'c', paths);
    expect(asked).toEqual([]);
    for (const model of ['a', 'b', 'c']) expect(paths.has('http://127.0.0.1:9312/v1/chat/completions', model)).toBe(false);
  });
});
