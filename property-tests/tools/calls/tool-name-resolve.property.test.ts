import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveToolName } from '../../../src/tools/calls/tool-name-resolve.js';

const name = fc.stringMatching(/^[a-z][a-z0-9]{0,6}(_[a-z0-9]{1,6}){0,2}$/);
const loose = (s: string) => s.toLowerCase().replace(/[-_\s.]/g, '');

describe('resolveToolName properties', () => {
  it('an offered name resolves to itself', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 6 }), fc.nat(), (offered, i) => {
        const sent = offered[i % offered.length]!;
        expect(resolveToolName(sent, offered)).toEqual({ name: sent, how: 'exact' });
      }),
    );
  });

  it('leaked template text around an offered name resolves to it, MCP names too', () => {
    const before = fc.constantFrom('', 'functions.', 'tools.', 'commentary to=functions.', '<|start|>assistant<|channel|>commentary to=');
    const after = fc.constantFrom('', '<|channel|>commentary', '<|channel|>analysis', ' <|constrain|>json', '<|end|>');
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 6 }), fc.nat(), before, after, (offered, i, pre, post) => {
        const target = offered[i % offered.length]!;
        expect(resolveToolName(`${pre}${target}${post}`, offered, new Set(offered))?.name).toBe(target);
      }),
    );
  });

  it('a loose match is taken only when exactly one offered name fits, and never for strict (MCP) names', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 6 }), name, fc.boolean(), (offered, sent, strict) => {
        const resolved = resolveToolName(sent.toUpperCase(), offered, strict ? new Set(offered) : new Set());
        const fits = offered.filter((o) => loose(o) === loose(sent));
        if (strict || fits.length !== 1) expect(resolved).toBeUndefined();
        else expect(resolved).toEqual({ name: fits[0], how: 'loose' });
      }),
    );
  });
});
