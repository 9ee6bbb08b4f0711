/**
 * fast-check's `webUrl` rebuilt from its parts (scheme, `fc.webAuthority()`, path segments, query),
 * with its percent-encoded characters drawn from {@link binaryUnit}: fast-check's own draws them
 * from its `unit: 'binary'`, whose first use costs ~1.9 s of CPU per test worker (see
 * binary-unit.ts). The same kinds of URL: RFC 3986 segments and query of letters, digits, the
 * characters allowed unencoded, and (1 in 11) any code point percent-encoded as
 * `encodeURIComponent` does (`%XX` for the ones it leaves alone).
 */
import fc from 'fast-check';
import { binaryUnit } from './binary-unit.js';

/** One character of a segment or query: letters and digits (or `others`) 10 to 1 against any code point percent-encoded. */
const urlChar = (others: string) =>
  fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', ...others) },
    {
      weight: 1,
      arbitrary: binaryUnit.map((c) => {
        const encoded = encodeURIComponent(c);
        return c !== encoded ? encoded : `%${c.charCodeAt(0).toString(16)}`;
      }),
    },
  );
const segment = fc.string({ unit: urlChar("-._~!$&'()*+,;=:@") });
const query = fc.string({ unit: urlChar("-._~!$&'()*+,;=:@/?") });

/** A web URL like `fc.webUrl(constraints)`: `<scheme>://<authority>[/<segment>…][?<query>]`. */
export function webUrl(constraints: { validSchemes?: string[]; withQueryParameters?: boolean } = {}): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(...(constraints.validSchemes ?? ['http', 'https'])),
      fc.webAuthority(),
      fc.array(segment, { maxLength: 5 }),
      constraints.withQueryParameters ? fc.option(query) : fc.constant(null),
    )
    .map(([scheme, authority, segments, q]) => `${scheme}://${authority}${segments.map((s) => `/${s}`).join('')}${q === null ? '' : `?${q}`}`);
}
