/**
 * fast-check's `unit: 'binary'` (any code point but the surrogate halves, one per unit), made with
 * an unmapper that computes instead of looking up: fast-check's own builds a map of all 1,112,064
 * code points the first time a process generates such a string (to place its "dangerous strings",
 * `__proto__` and the like), about 1.9 s of CPU in each test worker. Same choices (a `nat` over
 * the same index range), same index → code point mapping (below U+D800 as is, the rest shifted
 * past the surrogates), so the same values, bias and shrinking.
 * Use: `fc.string({ unit: binaryUnit, maxLength: 12 })`.
 */
import fc from 'fast-check';

/** The surrogate code points U+D800–U+DFFF, which the unit leaves out. */
const SURROGATES_FROM = 0xd800;
const SURROGATES = 0x800;

/** Index → code point: below U+D800 the same, the rest past the surrogates. */
const toUnit = (index: number) => String.fromCodePoint(index < SURROGATES_FROM ? index : index + SURROGATES);

/** Code point → index, for a string of exactly one non-surrogate code point; throws otherwise (fast-check's rule for an unmapper). */
function fromUnit(value: unknown): number {
  if (typeof value === 'string' && value.length > 0) {
    const point = value.codePointAt(0)!;
    if (String.fromCodePoint(point) === value && (point < SURROGATES_FROM || point >= SURROGATES_FROM + SURROGATES))
      return point < SURROGATES_FROM ? point : point - SURROGATES;
  }
  throw new Error('not a single non-surrogate code point');
}

/** One code point of the whole Unicode range but the surrogates: fast-check's `unit: 'binary'`. */
export const binaryUnit: fc.Arbitrary<string> = fc.nat({ max: 0x10ffff - SURROGATES }).map(toUnit, fromUnit);
