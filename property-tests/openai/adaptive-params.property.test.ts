import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyCorrection } from '../../src/openai/adaptive-params.js';
import { ADJUSTABLE_PARAMS, parseRejection } from '../../src/openai/rejection.js';

const names = [...ADJUSTABLE_PARAMS, 'model', 'messages', 'stream', 'tools', 'tool_choice'];
const sentBody = fc
  .subarray(names)
  .map((keys) => Object.fromEntries(keys.map((k) => [k, k === 'messages' ? [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }] : 1])));
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
);

describe('adaptive-params properties', () => {
  it('never throws; a correction only touches adjustable parameters that were sent, and always changes the body', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), errorText, sentBody, (status, text, sent) => {
        const found = parseRejection(status, text, sent);
        if (!found) return;
        expect([400, 422, 500]).toContain(status);
        const c = found.correction;
        if (c.kind === 'drop') for (const p of c.params) expect(ADJUSTABLE_PARAMS.has(p) && p in sent).toBe(true);
        if (c.kind === 'rename') expect(c.from in sent && ADJUSTABLE_PARAMS.has(c.from)).toBe(true);
        const next = applyCorrection(sent, c);
        expect(next).not.toEqual(sent);
        for (const key of ['model', 'stream', 'tools', 'tool_choice']) expect(next[key]).toEqual(sent[key]);
      }),
      { numRuns: 500 },
    );
  });

  it('after a drop, the same answer yields no further correction (no loops)', () => {
    fc.assert(
      fc.property(errorText, sentBody, (text, sent) => {
        const found = parseRejection(400, text, sent);
        if (found?.correction.kind !== 'drop') return;
        expect(parseRejection(400, text, applyCorrection(sent, found.correction))).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });
});
