/**
 * Template errors answering a request with tools: recognised by their shape (a 400/422/500 that
 * blames the chat template for roles or tools), from the real llama-server answer and variants;
 * other answers (an overflow, "does not support tools", a bad parameter) are not one.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isToolTemplateError } from '../../src/openai/tools-unsupported.js';
import { ProviderHttpError } from '../../src/openai/errors.js';

const recorded = JSON.parse(readFileSync(new URL('../fixtures/llamacpp/template-error-gemma.json', import.meta.url), 'utf8')).response as {
  status: number;
  body: string;
};

describe('isToolTemplateError', () => {
  it("recognises llama-server 0.7.0's answer under Gemma 3's template (recorded), as the client reads it", () => {
    const error = new ProviderHttpError(recorded.status, new Headers(), recorded.body, 'http://x/v1/chat/completions');
    expect(error.providerMessage).toContain('Unable to generate parser for this template');
    expect(isToolTemplateError(error.status, error.providerMessage!)).toBe(true);
  });

  it.each([
    [400, 'Conversation roles must alternate user/assistant/user/assistant/...'],
    [500, 'Unable to generate parser for this template. Automatic parser generation failed'],
    [400, 'jinja2.exceptions.TemplateError: Conversation roles must alternate user/assistant'],
    [422, 'The chat template does not support the tool role'],
    [400, 'Error rendering chat template: unknown role "tool"'],
  ])('recognises the shape: %i %s', (status, message) => {
    expect(isToolTemplateError(status, message)).toBe(true);
  });

  it.each([
    [400, 'request (4135 tokens) exceeds the available context size (4096 tokens), try increasing it'],
    [400, 'registry.ollama.ai/library/gemma3:4b does not support tools'],
    [400, "Unsupported parameter: 'max_tokens' is not supported with this model."],
    [401, 'Conversation roles must alternate'],
    [503, 'Unable to generate parser for this template'],
    [400, 'Invalid template for the response_format'],
  ])('is not one: %i %s', (status, message) => {
    expect(isToolTemplateError(status, message)).toBe(false);
  });
});
