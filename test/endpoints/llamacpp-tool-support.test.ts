/**
 * Whether llama.cpp's chat template takes tools, from `/props` `chat_template_caps` (recorded from
 * llama-server 0.7.0 with Gemma 3's own template), and the lookup that carries it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLlamaCppToolSupport, serverWindowLookup } from '../../src/endpoints/server-context.js';

const props = JSON.parse(JSON.parse(readFileSync(new URL('../fixtures/llamacpp/props-gemma.json', import.meta.url), 'utf8')).response.body) as Record<string, unknown>;

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
    expect(await lookup('math')).toEqual({ runtime: 4096, supportsTools: false });
    expect(asked).toEqual(['http://127.0.0.1:9312/props']);
  });
});
