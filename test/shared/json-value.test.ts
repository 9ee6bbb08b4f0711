import { describe, expect, it } from 'vitest';
import { isRecord, parseJsonOrUndefined, positiveInt } from '../../src/shared/json-value.js';

describe('isRecord', () => {
  it('is true for plain objects, including ones without a prototype', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord({ a: 1 })).toBe(true);
    expect(isRecord(Object.create(null))).toBe(true);
  });

  it('is false for null, arrays and every non-object', () => {
    for (const value of [null, undefined, [], [1], 'x', 0, true, () => 1]) expect(isRecord(value)).toBe(false);
  });
});

describe('parseJsonOrUndefined', () => {
  it('parses any JSON value, null and false included', () => {
    expect(parseJsonOrUndefined('{"a":[1]}')).toEqual({ a: [1] });
    expect(parseJsonOrUndefined('null')).toBeNull();
    expect(parseJsonOrUndefined(' false ')).toBe(false);
  });

  it('gives undefined for text that is not JSON, never throwing', () => {
    for (const text of ['', '{', "{'a':1}", 'undefined', '1 2']) expect(parseJsonOrUndefined(text)).toBeUndefined();
  });
});

describe('positiveInt', () => {
  it('keeps a whole number above 0', () => {
    expect(positiveInt(1)).toBe(1);
    expect(positiveInt(131072)).toBe(131072);
  });

  it('drops zero, negatives, fractions, unsafe integers and non-numbers', () => {
    for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '4096', null, undefined]) expect(positiveInt(value)).toBeUndefined();
  });
});
