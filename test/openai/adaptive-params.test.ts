import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyCorrection, applyCorrections, LearnedCorrections, describeCorrection, type Correction } from '../../src/openai/adaptive-params.js';
import { parseRejection } from '../../src/openai/rejection.js';

interface Case {
  case: string;
  provider: string;
  status: number;
  sent: Record<string, unknown>;
  expected: Correction | null;
}
const dir = new URL('../fixtures/http-400/', import.meta.url);
const cases = JSON.parse(readFileSync(new URL('cases.json', dir), 'utf8')) as Case[];
const body = (name: string) => readFileSync(new URL(`${name}.body`, dir), 'utf8');

describe('parseRejection on real provider bodies (test/fixtures/http-400)', () => {
  it('has a case per provider family the issue names', () => {
    const providers = new Set(cases.map((c) => c.provider));
    for (const p of ['openai', 'azure', 'vllm', 'mistral', 'groq', 'litellm', 'gemini', 'xai', 'llamacpp', 'ollama', 'openrouter'])
      expect(providers).toContain(p);
  });

  it.each(cases.map((c) => [c.case, c] as const))('%s', (_name, c) => {
    const found = parseRejection(c.status, body(c.case), c.sent);
    expect(found?.correction ?? null).toEqual(c.expected);
    if (found) {
      expect(found.reason.length).toBeGreaterThan(0);
      expect(found.reason.length).toBeLessThanOrEqual(300);
      // The correction changes the request, so a retry is not the same request again.
      expect(applyCorrection(c.sent, found.correction)).not.toEqual(c.sent);
    }
  });

  it('reads nothing from the same bodies under a status that is not 400 or 422', () => {
    for (const c of cases.filter((c) => c.status !== 500 && c.status !== 404)) {
      expect(parseRejection(404, body(c.case), c.sent)).toBeUndefined();
      expect(parseRejection(503, body(c.case), c.sent)).toBeUndefined();
    }
  });

  it('names only parameters that were sent', () => {
    const c = cases.find((x) => x.case === 'openai__max_tokens_unsupported_parameter')!;
    expect(parseRejection(400, body(c.case), { model: 'gpt-5', messages: [], stream: true })).toBeUndefined();
    const stream = cases.find((x) => x.case === 'vllm__stream_options_extra_forbidden')!;
    expect(parseRejection(400, body(stream.case), { model: 'm', messages: [], stream: true, temperature: 1 })).toBeUndefined();
  });
});

describe('parseRejection rules', () => {
  const unsupported = (name: string) =>
    JSON.stringify({ error: { message: `Unsupported parameter: '${name}' is not supported with this model.`, param: name, code: 'unsupported_parameter' } });

  it("does not treat a value complaint about a limit as unsupported, but drops a token cap over the model's output limit", () => {
    const tooLarge =
      '{"error":{"message":"max_tokens is too large: 100000. This model supports at most 16384 completion tokens, ' +
      'whereas you provided 100000.","type":"invalid_request_error","param":"max_tokens","code":"invalid_value"}}';
    expect(parseRejection(400, tooLarge, { max_tokens: 100000 })?.correction).toEqual({ kind: 'drop', params: ['max_tokens'] });
    const anthropic = '{"error":{"message":"max_tokens: 64000 > 8192, which is the maximum allowed number of output tokens for claude-3-5-sonnet-20241022"}}';
    expect(parseRejection(400, anthropic, { max_completion_tokens: 64000 })?.correction).toEqual({ kind: 'drop', params: ['max_completion_tokens'] });
    // DeepSeek's wording (deepseek-ai/DeepSeek-V3#69; deepseek-chat takes at most 8192 while its window is 128K) and Groq's (skapadia3214/groq-moa#8).
    const deepseek =
      '{"error":{"message":"Invalid max_tokens value, the valid range of max_tokens is [1, 8192]",' +
      '"type":"invalid_request_error","param":null,"code":"invalid_request_error"}}';
    expect(parseRejection(400, deepseek, { max_tokens: 16384 })?.correction).toEqual({ kind: 'drop', params: ['max_tokens'] });
    const groq = '{"error":{"message":"max_tokens for `llama-3.1-8b-instant` must be less than or equal to 8000","type":"invalid_request_error"}}';
    expect(parseRejection(400, groq, { max_tokens: 16384 })?.correction).toEqual({ kind: 'drop', params: ['max_tokens'] });
    expect(parseRejection(400, tooLarge, { temperature: 1 })).toBeUndefined();
    const range = '{"error":{"message":"temperature must be between 0 and 1","type":"invalid_request_error","param":"temperature"}}';
    expect(parseRejection(400, range, { temperature: 1.5 })).toBeUndefined();
  });

  it('never touches model, messages, stream or tools', () => {
    for (const name of ['model', 'messages', 'stream', 'tools', 'tool_choice']) {
      expect(parseRejection(400, unsupported(name), { model: 'm', messages: [], stream: true, tools: [], tool_choice: 'auto' })).toBeUndefined();
    }
  });

  it('max_completion_tokens falls back to max_tokens once, then is dropped', () => {
    const rejectMct = '{"error":{"message":"Unrecognized request argument supplied: max_completion_tokens"}}';
    const rejectMt = '{"error":{"message":"Unsupported parameter: \'max_tokens\' is not supported with this model. Use \'max_completion_tokens\' instead."}}';
    const first = parseRejection(400, rejectMt, { max_tokens: 5 })!.correction;
    expect(first).toEqual({ kind: 'rename', from: 'max_tokens', to: 'max_completion_tokens' });
    // The renamed parameter is rejected too: no ping-pong, drop it.
    expect(parseRejection(400, rejectMct, { max_completion_tokens: 5 }, [first])?.correction).toEqual({ kind: 'drop', params: ['max_completion_tokens'] });
    const back = parseRejection(400, rejectMct, { max_completion_tokens: 5 })!.correction;
    expect(back).toEqual({ kind: 'rename', from: 'max_completion_tokens', to: 'max_tokens' });
    expect(parseRejection(400, rejectMt, { max_tokens: 5 }, [back])?.correction).toEqual({ kind: 'drop', params: ['max_tokens'] });
  });

  it('reads a non-JSON body and a 422 alike', () => {
    expect(parseRejection(422, 'Unrecognized request argument supplied: stream_options', { stream_options: {} })?.correction).toEqual({
      kind: 'drop',
      params: ['stream_options'],
    });
    expect(parseRejection(400, '', { stream_options: {} })).toBeUndefined();
    expect(parseRejection(400, '<html>Bad Request</html>', { stream_options: {} })).toBeUndefined();
  });

  it('drops every named parameter at once (LiteLLM list)', () => {
    const text = JSON.stringify({
      error: { message: "litellm.UnsupportedParamsError: vertex_ai does not support parameters: ['reasoning_effort', 'top_p'], for model=gemini-2.5-pro." },
    });
    expect(parseRejection(400, text, { reasoning_effort: 'low', top_p: 1, temperature: 1 })?.correction).toEqual({
      kind: 'drop',
      params: ['reasoning_effort', 'top_p'],
    });
  });

  it('a rejected role that was not sent gives no correction', () => {
    const c = cases.find((x) => x.case === 'openai__system_role_unsupported_o1mini')!;
    expect(parseRejection(400, body(c.case), { messages: [{ role: 'user', content: 'hi' }] })).toBeUndefined();
  });
});

describe('applyCorrection', () => {
  const messages = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello' },
    { role: 'assistant', content: 'Hi' },
    { role: 'user', content: 'Again' },
  ];

  it('renames, keeping the value, and leaves the input alone', () => {
    const sent = { model: 'm', max_tokens: 7 };
    expect(applyCorrection(sent, { kind: 'rename', from: 'max_tokens', to: 'max_completion_tokens' })).toEqual({ model: 'm', max_completion_tokens: 7 });
    expect(sent).toEqual({ model: 'm', max_tokens: 7 });
    expect(applyCorrection({ model: 'm' }, { kind: 'rename', from: 'max_tokens', to: 'max_completion_tokens' })).toEqual({ model: 'm' });
  });

  it('system → developer, then developer → merged into the first user message', () => {
    const dev = applyCorrection({ messages }, { kind: 'system-role', to: 'developer' });
    expect((dev['messages'] as typeof messages).map((m) => m.role)).toEqual(['developer', 'user', 'assistant', 'user']);
    const merged = applyCorrection(dev, { kind: 'system-role', to: 'user' });
    expect(merged['messages']).toEqual([
      { role: 'user', content: 'Be brief.\n\nHello' },
      { role: 'assistant', content: 'Hi' },
      { role: 'user', content: 'Again' },
    ]);
  });

  it('moving the system prompt leaves assistant tool-call and tool messages as they are', () => {
    const tail = [
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'text' },
    ];
    for (const to of ['developer', 'user'] as const) {
      const moved = applyCorrection(
        { messages: [{ role: 'system', content: 'Rules' }, { role: 'user', content: 'Hi' }, ...tail] },
        { kind: 'system-role', to },
      )['messages'] as unknown[];
      expect(moved.slice(-2)).toEqual(tail);
    }
  });

  it('merging into array content puts a text part first; without a user message the prompt becomes one', () => {
    const parts = [
      { role: 'system', content: 'Rules' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:x' } }] },
    ];
    expect(applyCorrection({ messages: parts }, { kind: 'system-role', to: 'user' })['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Rules' },
          { type: 'image_url', image_url: { url: 'data:x' } },
        ],
      },
    ]);
    expect(applyCorrection({ messages: [{ role: 'system', content: 'Rules' }] }, { kind: 'system-role', to: 'user' })['messages']).toEqual([
      { role: 'user', content: 'Rules' },
    ]);
  });

  it('applies a chain in order and describes each step', () => {
    const chain: Correction[] = [
      { kind: 'rename', from: 'max_tokens', to: 'max_completion_tokens' },
      { kind: 'drop', params: ['temperature'] },
      { kind: 'drop', params: ['stream_options'] },
    ];
    expect(applyCorrections({ model: 'm', max_tokens: 1, temperature: 0.2, stream_options: {}, stream: true }, chain)).toEqual({
      model: 'm',
      max_completion_tokens: 1,
      stream: true,
    });
    expect(chain.map(describeCorrection)).toEqual(['renamed max_tokens to max_completion_tokens', 'dropped temperature', 'dropped stream_options']);
  });
});

describe('LearnedCorrections', () => {
  it('keeps corrections per URL and model, in order, without duplicates', () => {
    const learned = new LearnedCorrections();
    const drop: Correction = { kind: 'drop', params: ['temperature'] };
    expect(learned.remember('u1', 'a', drop)).toBe(true);
    expect(learned.remember('u1', 'a', { kind: 'drop', params: ['temperature'] })).toBe(false);
    learned.remember('u1', 'a', { kind: 'drop', params: ['top_p'] });
    expect(learned.get('u1', 'a')).toEqual([drop, { kind: 'drop', params: ['top_p'] }]);
    expect(learned.get('u1', 'b')).toEqual([]);
    expect(learned.get('u2', 'a')).toEqual([]);
  });
});
