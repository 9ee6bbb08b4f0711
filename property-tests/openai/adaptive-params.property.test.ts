import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyCorrection } from '../../src/openai/adaptive-params.js';
import { ADJUSTABLE_PARAMS, parseRejection } from '../../src/openai/rejection.js';
import { TOOL_PARAMS, TOOLS_UNSUPPORTED } from '../../src/openai/tools-unsupported.js';

const names = [...ADJUSTABLE_PARAMS, 'model', 'messages', 'stream', 'tools', 'tool_choice'];
/** Real "no tools here" messages (test/fixtures/http-400), which alone may drop tool parameters. */
const toolsText = fc.constantFrom(
  '{"error":{"message":"registry.ollama.ai/library/gemma3:4b does not support tools","type":"api_error","param":null,"code":null}}',
  '{"object":"error","message":"\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set",' +
    '"type":"BadRequestError","param":null,"code":400}',
  '{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}',
  '{"error":{"message":"No endpoints found that support tool use.","code":404}}',
  '{"error":{"message":"No endpoints found that support the provided \'tool_choice\' value.","code":404}}',
);
const saysNoTools = (status: number, text: string) => TOOLS_UNSUPPORTED.some((rule) => rule.statuses.includes(status) && rule.pattern.test(text));
const sentBody = fc.subarray(names).map((keys) =>
  Object.fromEntries(
    keys.map((k) => [
      k,
      k === 'messages'
        ? [
            { role: 'system', content: 's' },
            { role: 'user', content: 'u' },
          ]
        : 1,
    ]),
  ),
);
/** Error texts built from real phrasing fragments around parameter names, plus noise. */
const phrase = fc.constantFrom(
  (n: string) => `Unsupported parameter: '${n}' is not supported with this model.`,
  (n: string) => `Unrecognized request argument supplied: ${n}`,
  (n: string) => `property '${n}' is unsupported, did you mean 'stop'?`,
  (n: string) => `Unknown name "${n}": Cannot find field.`,
  (n: string) => `[{'type': 'extra_forbidden', 'loc': ('body', '${n}'), 'msg': 'Extra inputs are not permitted'}]`,
  (n: string) => `${n} is too large`,
  (n: string) => `Unsupported value: 'messages[0].role' does not support '${n}' with this model.`,
);
const errorText = fc.oneof(
  fc.tuple(phrase, fc.constantFrom(...names, 'system', 'developer', 'thinking')).map(([make, n]) => JSON.stringify({ error: { message: make(n) } })),
  fc.string(),
  fc.json(),
  toolsText,
);

describe('adaptive-params properties', () => {
  it('never throws; a correction touches only adjustable parameters sent (tool parameters only on a "no tools" answer) and always changes the body', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 100, max: 599 }), fc.constantFrom(400, 404, 500)), errorText, sentBody, (status, text, sent) => {
        const found = parseRejection(status, text, sent);
        if (!found) return;
        const noTools = saysNoTools(status, text);
        expect(noTools ? [400, 404, 500] : [400, 422, 500]).toContain(status);
        const c = found.correction;
        if (c.kind === 'drop') for (const p of c.params) expect((noTools ? TOOL_PARAMS.includes(p) : ADJUSTABLE_PARAMS.has(p)) && p in sent).toBe(true);
        if (c.kind === 'rename') expect(c.from in sent && ADJUSTABLE_PARAMS.has(c.from)).toBe(true);
        const next = applyCorrection(sent, c);
        expect(next).not.toEqual(sent);
        for (const key of ['model', 'stream', ...(noTools ? [] : ['tools', 'tool_choice'])]) expect(next[key]).toEqual(sent[key]);
      }),
      { numRuns: 500 },
    );
  });

  it('after a drop, the same answer yields no further correction (no loops)', () => {
    fc.assert(
      fc.property(errorText, sentBody, (text, sent) => {
        for (const status of [400, 404, 500]) {
          const found = parseRejection(status, text, sent);
          if (found?.correction.kind !== 'drop') continue;
          expect(parseRejection(status, text, applyCorrection(sent, found.correction))).toBeUndefined();
        }
      }),
      { numRuns: 500 },
    );
  });
});
