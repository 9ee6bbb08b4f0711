/**
 * Models and servers without tool support: the answers of `TOOLS_UNSUPPORTED` (real bodies in
 * test/fixtures/http-400, provenance in its README) drop the tool parameters that were sent, the
 * correction is remembered per endpoint and model like other adaptive parameters, and answers
 * that merely name `tools` drop nothing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyCorrections, LearnedCorrections, type Correction } from '../../src/openai/adaptive-params.js';
import { parseRejection } from '../../src/openai/rejection.js';
import { TOOL_PARAMS, toolsDropped } from '../../src/openai/tools-unsupported.js';

const body = (name: string) => readFileSync(new URL(`../fixtures/http-400/${name}.body`, import.meta.url), 'utf8');
const tools = [
  {
    type: 'function',
    function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  },
];
const withTools = {
  model: 'm',
  messages: [{ role: 'user', content: 'hi' }],
  stream: true,
  tools,
  tool_choice: 'auto',
  parallel_tool_calls: false,
  temperature: 0.2,
};

const TOOL_BODIES: ReadonlyArray<[string, number]> = [
  ['ollama__does_not_support_tools_v1', 400],
  ['ollama__does_not_support_tools_native', 400],
  ['vllm__auto_tool_choice_requires_flags', 400],
  ['llamacpp__tools_param_requires_jinja_500', 500],
  ['llamacpp__unsupported_param_tools_500', 500],
  ['openrouter__no_endpoints_support_tool_use_404', 404],
];

describe('tools not supported', () => {
  it.each(TOOL_BODIES)('%s drops tools, tool_choice and parallel_tool_calls, nothing else', (name, status) => {
    const found = parseRejection(status, body(name), withTools);
    expect(found?.correction).toEqual({ kind: 'drop', params: [...TOOL_PARAMS] });
    expect(found?.reason).toMatch(/tool/i);
    const next = applyCorrections(withTools, [found!.correction]);
    expect(Object.keys(next).sort()).toEqual(['messages', 'model', 'stream', 'temperature']);
  });

  it.each(TOOL_BODIES)('%s drops only what was sent, and nothing when no tools were sent', (name, status) => {
    expect(parseRejection(status, body(name), { model: 'm', messages: [], tools })?.correction).toEqual({ kind: 'drop', params: ['tools'] });
    expect(parseRejection(status, body(name), { model: 'm', messages: [], temperature: 1 })).toBeUndefined();
  });

  it('each answer counts only with the status its server sends', () => {
    expect(parseRejection(500, body('ollama__does_not_support_tools_v1'), withTools)).toBeUndefined();
    expect(parseRejection(503, body('llamacpp__tools_param_requires_jinja_500'), withTools)).toBeUndefined();
    expect(parseRejection(400, body('openrouter__no_endpoints_support_tool_use_404'), withTools)).toBeUndefined();
    expect(parseRejection(400, body('llamacpp__unsupported_param_tools_500'), withTools)).toBeUndefined();
  });

  it("OpenRouter's tool_choice answer drops tool_choice only (a body that is not valid JSON)", () => {
    const found = parseRejection(404, body('openrouter__no_endpoints_tool_choice_404_truncated'), withTools);
    expect(found?.correction).toEqual({ kind: 'drop', params: ['tool_choice'] });
    expect(found?.reason).toMatch(/^\{"error":\{"message":"No endpoints found that support the provided 'tool_choice' value/);
  });

  it("an answer naming tools for another reason drops nothing (Mistral's empty tools list, generic naming)", () => {
    expect(parseRejection(422, body('mistral__tools_extra_forbidden_not_ours'), withTools)).toBeUndefined();
    const named = JSON.stringify({
      error: { message: "Unsupported parameter: 'tools' is not supported with this model.", param: 'tools', code: 'unsupported_parameter' },
    });
    expect(parseRejection(400, named, { model: 'm', messages: [], tools })).toBeUndefined();
    const schema =
      '{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \\"additionalProperties\\" at ' +
      '\'tools[0].function_declarations[0].parameters\': Cannot find field.","status":"INVALID_ARGUMENT"}}';
    expect(parseRejection(400, schema, { model: 'm', messages: [], tools })).toBeUndefined();
  });

  it('remembered per endpoint and model like other corrections; toolsDropped says so', () => {
    const learned = new LearnedCorrections();
    const url = 'http://127.0.0.1:11434/v1/chat/completions';
    const found = parseRejection(400, body('ollama__does_not_support_tools_v1'), withTools)!;
    expect(toolsDropped(learned.get(url, 'gemma3:4b'))).toBe(false);
    expect(learned.remember(url, 'gemma3:4b', found.correction)).toBe(true);
    expect(learned.remember(url, 'gemma3:4b', found.correction)).toBe(false);
    expect(toolsDropped(learned.get(url, 'gemma3:4b'))).toBe(true);
    expect(toolsDropped(learned.get(url, 'qwen3:8b'))).toBe(false);
    expect('tools' in applyCorrections(withTools, learned.get(url, 'gemma3:4b'))).toBe(false);
  });

  it('toolsDropped is false for corrections that keep tools', () => {
    const others: Correction[] = [
      { kind: 'drop', params: ['tool_choice'] },
      { kind: 'rename', from: 'max_tokens', to: 'max_completion_tokens' },
      { kind: 'system-role', to: 'developer' },
    ];
    expect(toolsDropped(others)).toBe(false);
    expect(toolsDropped([])).toBe(false);
  });
});
