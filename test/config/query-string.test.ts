import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeQueryPiece, mergeQueries } from '../../src/config/query-string.js';

describe('mergeQueries', () => {
  it('lets a later query replace the same parameter names, keeping the rest in order', () => {
    expect(mergeQueries('a=1&b=2', 'b=3')).toBe('a=1&b=3');
    expect(mergeQueries('api-version=2024-10-21', undefined, '?x=1')).toBe('api-version=2024-10-21&x=1');
    expect(mergeQueries('api%2Dversion=1', 'api-version=2')).toBe('api-version=2');
    expect(mergeQueries(undefined, '', '&&')).toBeUndefined();
  });

  it('keeps, for every name, the pieces of the last query that has it', () => {
    const piece = fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.stringMatching(/^[0-9]{0,2}$/)).map(([k, v]) => `${k}=${v}`);
    const query = fc.array(piece, { maxLength: 4 }).map((pieces) => pieces.join('&'));
    fc.assert(
      fc.property(fc.array(query, { maxLength: 4 }), (queries) => {
        const merged = (mergeQueries(...queries) ?? '').split('&').filter(Boolean);
        for (const name of ['a', 'b', 'c']) {
          const last = [...queries].reverse().find((q) => q.split('&').some((p) => p.startsWith(`${name}=`)));
          const expected = (last ?? '').split('&').filter((p) => p.startsWith(`${name}=`));
          expect(merged.filter((p) => p.startsWith(`${name}=`))).toEqual(expected);
        }
      }),
    );
  });
});

it('decodeQueryPiece decodes percent escapes and +, and keeps malformed text', () => {
  expect(decodeQueryPiece('a%20b+c')).toBe('a b c');
  expect(decodeQueryPiece('%zz')).toBe('%zz');
});
