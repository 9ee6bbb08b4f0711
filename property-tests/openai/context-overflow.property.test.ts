import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recognizeOverflowIn } from '../../src/openai/context-overflow.js';
import { ADJUSTABLE_PARAMS } from '../../src/openai/rejection.js';

const count = fc.integer({ min: 1, max: 2_000_000 });
const status = fc.constantFrom(400, 413, 422);

describe('recognizeOverflowIn', () => {
  it('never throws, whatever the body', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }), fc.oneof(fc.string(), fc.json()), fc.boolean(), (s, body, inStream) => {
        recognizeOverflowIn({ status: s, body, inStream });
      }),
    );
  });

  it('reads the window and the request from the OpenAI/vLLM wording, in any envelope', () => {
    fc.assert(
      fc.property(status, count, count, fc.constantFrom('error.message', 'message', 'detail', 'text'), (s, window, requested, where) => {
        fc.pre(window !== requested);
        const message =
          `This model's maximum context length is ${window} tokens. However, you requested ${requested} tokens ` +
          `(${requested} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`;
        const body = where === 'text' ? message : JSON.stringify(where === 'error.message' ? { error: { message } } : { [where]: message });
        expect(recognizeOverflowIn({ status: s, body })).toEqual({ window, requested });
      }),
    );
  });

  it('reads llama.cpp and Ollama fields whatever the words', () => {
    fc.assert(
      fc.property(fc.constantFrom(400, 500), count, count, fc.string(), (s, nCtx, nPrompt, message) => {
        fc.pre(nCtx !== nPrompt);
        const body = JSON.stringify({ error: { code: s, message, type: 'exceed_context_size_error', n_prompt_tokens: nPrompt, n_ctx: nCtx } });
        expect(recognizeOverflowIn({ status: s, body })).toEqual({ window: nCtx, requested: nPrompt });
      }),
    );
  });

  it('never takes a rejected parameter for an overflow', () => {
    const param = fc.constantFrom(...ADJUSTABLE_PARAMS);
    const wording = fc.constantFrom(
      (p: string) => `Unsupported parameter: '${p}' is not supported with this model.`,
      (p: string) => `Unrecognized request argument supplied: ${p}`,
      (p: string) => `property '${p}' is unsupported`,
      (p: string) => `${p} is too large: 100000. This model supports at most 4096 completion tokens.`,
      (p: string) => `Invalid value for '${p}': expected an integer.`,
    );
    fc.assert(
      fc.property(status, param, wording, (s, p, words) => {
        expect(
          recognizeOverflowIn({ status: s, body: JSON.stringify({ error: { message: words(p), param: p, code: 'invalid_request_error' } }) }),
        ).toBeUndefined();
      }),
    );
  });
});
