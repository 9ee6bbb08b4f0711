import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load-config.js';
import { parseConfigFile } from '../../src/config/config-file.js';
import { buildChatRequestBody } from '../../src/openai/chat-request.js';
import { mergeExtraBody } from '../../src/config/extra-body.js';

const request = { model: 'qwen3:8b', messages: [{ role: 'user' as const, content: 'hi' }], temperature: 0.7, maxTokens: 100 };

describe('OPENAI_EXTRA_BODY', () => {
  it('is read as a JSON object', () => {
    expect(loadConfig({ OPENAI_EXTRA_BODY: ' {"options":{"num_ctx":32768},"seed":42} ' }).extraBody).toEqual({ options: { num_ctx: 32768 }, seed: 42 });
    expect(loadConfig({ OPENAI_EXTRA_BODY: '{}' }).extraBody).toBeUndefined();
    expect(loadConfig({}).extraBody).toBeUndefined();
  });

  it.each([
    ['{"top_k": 20', 'is not valid JSON'],
    ['[1,2]', 'is JSON array, not an object'],
    ['"seed"', 'is JSON string, not an object'],
    ['null', 'is JSON null, not an object'],
    ['42', 'is JSON number, not an object'],
  ])('rejects %s with a ConfigError naming the setting, never the value', (raw, problem) => {
    let error: unknown;
    try {
      loadConfig({ OPENAI_EXTRA_BODY: raw });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const found = (error as ConfigError).problems[0]!;
    expect(found.variable).toBe('OPENAI_EXTRA_BODY');
    expect(found.problem).toBe(problem);
    expect(found.accepted).toContain('JSON object');
  });

  it('is read per provider from the config file (extraBody), and a non-object is reported', () => {
    const good = parseConfigFile(
      JSON.stringify({ providers: [{ id: 'local', baseUrl: 'http://127.0.0.1:8000/v1', extraBody: { chat_template_kwargs: { enable_thinking: false } } }] }),
      {},
      'f.json',
    );
    expect(Array.isArray(good)).toBe(false);
    if (!Array.isArray(good)) expect(good.providers[0]!.extraBody).toEqual({ chat_template_kwargs: { enable_thinking: false } });
    const bad = parseConfigFile(JSON.stringify({ providers: [{ id: 'local', baseUrl: 'http://127.0.0.1:8000/v1', extraBody: [1] }] }), {}, 'f.json');
    expect(Array.isArray(bad)).toBe(true);
    if (Array.isArray(bad)) expect(bad[0]).toMatchObject({ problem: 'is an array, not an object' });
  });
});

describe('buildChatRequestBody with extra fields', () => {
  it('adds fields the agent does not send', () => {
    const body = buildChatRequestBody(request, { extraBody: { options: { num_ctx: 32768 }, top_k: 20, seed: 42 } });
    expect(body).toMatchObject({ model: 'qwen3:8b', stream: true, options: { num_ctx: 32768 }, top_k: 20, seed: 42, temperature: 0.7, max_tokens: 100 });
  });

  it("keeps the agent's model, messages, stream and tools", () => {
    const tools = [{ type: 'function', function: { name: 'read' } }];
    const base = { ...buildChatRequestBody(request), tools };
    const merged = mergeExtraBody(base, { model: 'other', messages: [], stream: false, tools: [], seed: 1 });
    expect(merged).toMatchObject({ model: 'qwen3:8b', messages: request.messages, stream: true, tools, seed: 1 });
    expect(Object.keys(merged).slice(0, 3)).toEqual(['model', 'messages', 'stream']);
  });

  it("wins over the agent's other fields, merging nested objects key by key", () => {
    const body = buildChatRequestBody(request, { extraBody: { temperature: 0.1, stream_options: { include_usage: false, extra: 1 } } });
    expect(body['temperature']).toBe(0.1);
    expect(body['stream_options']).toEqual({ include_usage: false, extra: 1 });
  });

  it('leaves its inputs alone', () => {
    const extra = { options: { num_ctx: 1 } };
    const base = { model: 'm', options: { temperature: 0 } };
    expect(mergeExtraBody(base, extra)).toEqual({ model: 'm', options: { temperature: 0, num_ctx: 1 } });
    expect(base).toEqual({ model: 'm', options: { temperature: 0 } });
    expect(extra).toEqual({ options: { num_ctx: 1 } });
    expect(mergeExtraBody(base, undefined)).toBe(base);
  });
});
