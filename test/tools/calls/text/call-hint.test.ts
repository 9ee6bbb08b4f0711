/**
 * The example call that ends a refusal, in each format: the reader reads every one of them back
 * as the call it shows (so the model is never taught a form that would not run).
 */
import { describe, expect, it } from 'vitest';
import { callHint, exampleCall } from '../../../../src/tools/calls/text/call-hint.js';
import { readTextCalls } from '../../../../src/tools/calls/text/read-text-calls.js';
import type { TextCallFormat } from '../../../../src/tools/calls/text/text-call.js';

const parameters = {
  type: 'object',
  properties: { path: { type: 'string' }, limit: { type: 'integer' }, all: { type: 'boolean' }, note: { type: 'string' } },
  required: ['path', 'limit', 'all'],
};
const tools = new Map([['read_file', parameters.properties]]);
const FORMATS: TextCallFormat[] = [
  'hermes',
  'qwen-xml',
  'glm',
  'minimax',
  'mistral-tokens',
  'llama',
  'pythonic',
  'harmony',
  'deepseek-tokens',
  'granite',
  'gemma',
  'json',
];

describe('exampleCall', () => {
  it.each(FORMATS)('%s: read back as the call it shows, its required parameters with placeholders', (format) => {
    const calls = readTextCalls(exampleCall(format, 'read_file', parameters), tools).calls;
    expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([['read_file', { path: '...', limit: 1, all: true }]]);
  });

  it('on the text path the example is the format the request taught (Hermes)', () => {
    expect(callHint('mistral-tokens', 'read_file', parameters, true)).toBe(`Write the call as:\n${exampleCall('hermes', 'read_file', parameters)}`);
    expect(callHint('mistral-tokens', 'read_file', parameters, false)).toContain('[TOOL_CALLS]read_file[ARGS]');
  });
});
