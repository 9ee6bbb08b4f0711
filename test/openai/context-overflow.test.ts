import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { recognizeOverflow, recognizeOverflowIn, saysContextOverflow } from '../../src/openai/context-overflow.js';
import { ProviderConnectionError, ProviderHttpError, ProviderReportedError } from '../../src/openai/errors.js';
import { parseRejection } from '../../src/openai/rejection.js';

interface Case {
  name: string;
  status: number | null;
  body: string;
  expected: { window?: number; requested?: number } | null;
  source: string;
  inStream?: boolean;
  code?: string;
}

const cases = (JSON.parse(readFileSync(new URL('../fixtures/context-overflow/cases.json', import.meta.url), 'utf8')) as { cases: Case[] }).cases;
const http400 = JSON.parse(readFileSync(new URL('../fixtures/http-400/cases.json', import.meta.url), 'utf8')) as { case: string; status: number }[];
const noHeaders = { get: () => null };

describe('recognizeOverflowIn on real provider answers (test/fixtures/context-overflow)', () => {
  it('has a source for every case', () => {
    for (const c of cases) expect(c.source, c.name).toMatch(/^(https:\/\/github\.com\/|\/work\/shared\/)/);
  });
  for (const c of cases) {
    it(`${c.name}: ${c.expected ? `overflow ${JSON.stringify(c.expected)}` : 'not an overflow'}`, () => {
      const found = recognizeOverflowIn({ status: c.status ?? undefined, body: c.body, code: c.code, inStream: c.inStream });
      expect(found).toEqual(c.expected ?? undefined);
    });
  }
});

describe('the adaptive-parameter reader leaves overflows alone', () => {
  const sent = {
    model: 'm',
    messages: [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
    ],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 4096,
    temperature: 0.2,
    tools: [],
    tool_choice: 'auto',
  };
  for (const c of cases.filter((c) => c.expected && c.status !== null)) {
    it(c.name, () => expect(parseRejection(c.status!, c.body, sent)).toBeUndefined());
  }
});

describe('parameter rejections are not overflows (test/fixtures/http-400)', () => {
  for (const c of http400) {
    it(c.case, () => {
      const body = readFileSync(new URL(`../fixtures/http-400/${c.case}.body`, import.meta.url), 'utf8');
      expect(recognizeOverflowIn({ status: c.status, body })).toBeUndefined();
    });
  }
});

describe('recognizeOverflow on provider errors', () => {
  it('reads an HTTP answer', () => {
    const body = JSON.stringify({
      error: {
        code: 400,
        message: 'request (5162 tokens) exceeds the available context size (4096 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 5162,
        n_ctx: 4096,
      },
    });
    expect(recognizeOverflow(new ProviderHttpError(400, noHeaders, body, 'http://127.0.0.1:11434/v1/chat/completions'))).toEqual({
      window: 4096,
      requested: 5162,
    });
  });
  it('reads an error reported inside a stream, by its code or by its words', () => {
    expect(
      recognizeOverflow(new ProviderReportedError('u', 'Please reduce the length of the messages or completion.', 'context_length_exceeded', 400)),
    ).toEqual({});
    expect(
      recognizeOverflow(
        new ProviderReportedError(
          'u',
          "This model's maximum context length is 6000 tokens. However, you requested 10309 tokens (9309 in the messages, 1000 in the completion).",
        ),
      ),
    ).toEqual({ window: 6000, requested: 10309 });
    expect(recognizeOverflow(new ProviderReportedError('u', 'Internal server error', undefined, 500))).toBeUndefined();
  });
  it('never takes a connection failure, a 401, 404 or 500 without a code for one', () => {
    expect(recognizeOverflow(new ProviderConnectionError('u', 'ECONNREFUSED'))).toBeUndefined();
    const words = JSON.stringify({ error: { message: "This model's maximum context length is 4096 tokens." } });
    for (const status of [401, 404, 429, 500, 503])
      expect(recognizeOverflow(new ProviderHttpError(status, noHeaders, words, 'u')), String(status)).toBeUndefined();
    expect(recognizeOverflow(new ProviderHttpError(413, noHeaders, 'prompt is too long', 'u'))).toEqual({});
    expect(recognizeOverflow(new ProviderHttpError(413, noHeaders, '<html>413 Request Entity Too Large</html>', 'u'))).toBeUndefined();
  });
});

describe('saysContextOverflow', () => {
  it('recognises the shape in wordings the fixtures do not hold', () => {
    expect(saysContextOverflow('Your input exceeds the context window of this model')).toBe(true);
    expect(saysContextOverflow('The prompt is too long for this model')).toBe(true);
    expect(saysContextOverflow('context size exceeded')).toBe(true);
  });
  it('does not see one in ordinary rejections', () => {
    expect(saysContextOverflow("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")).toBe(false);
    expect(saysContextOverflow("Invalid schema for function 'read_file': 'additionalProperties' is required to be supplied and to be false.")).toBe(false);
    expect(saysContextOverflow('max_tokens is too large: 6000. This model supports at most 4096 completion tokens')).toBe(false);
    expect(saysContextOverflow('context: the field is required')).toBe(false);
  });
});
