import { describe, expect, it } from 'vitest';
import { toFunctionParameters } from '../../../src/tools/mcp/mcp-schema.js';

/** Every key anywhere in `value`, property names included. */
function keysDeep(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keysDeep(item, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, sub] of Object.entries(value)) {
      out.add(key);
      keysDeep(sub, out);
    }
  }
  return out;
}

const RICH = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  additionalProperties: false,
  properties: {
    path: { type: 'string', format: 'uri', description: 'Where' },
    when: { type: 'string', format: 'date-time' },
    count: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10, default: 1 },
    tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
    meta: { type: 'object', propertyNames: { pattern: '^[a-z]+$' }, additionalProperties: { type: 'string' } },
    maybe: { type: ['string', 'null'] },
    // A property named like a dropped keyword is a name, not a keyword: it stays.
    additionalProperties: { type: 'boolean' },
  },
  required: ['path', 42],
  strict: true,
};

describe('toFunctionParameters', () => {
  it('always gives an object with properties and required', () => {
    for (const input of [undefined, null, 'x', [], {}, { type: 'object' }, { properties: 'bad', required: 'bad' }]) {
      expect(toFunctionParameters(input, { gemini: false })).toEqual({ type: 'object', properties: {}, required: [] });
      expect(toFunctionParameters(input, { gemini: true })).toEqual({ type: 'object', properties: {}, required: [] });
    }
  });

  it('passes a schema through for OpenAI, keeping only string names in required and dropping strict', () => {
    const out = toFunctionParameters(RICH, { gemini: false });
    expect(out.additionalProperties).toBe(false);
    expect(out.$schema).toBe(RICH.$schema);
    expect(out.properties).toEqual(RICH.properties);
    expect(out.required).toEqual(['path']);
    expect('strict' in out).toBe(false);
  });

  it('does not change its input', () => {
    const copy = structuredClone(RICH);
    toFunctionParameters(RICH, { gemini: true });
    toFunctionParameters(RICH, { gemini: false });
    expect(RICH).toEqual(copy);
  });

  it('drops the keywords Gemini rejects at every depth, keeping property names', () => {
    const out = toFunctionParameters(RICH, { gemini: true });
    const keys = keysDeep({ ...out, properties: Object.fromEntries(Object.entries(out.properties).map(([, v]) => ['p', v])) });
    for (const keyword of ['$schema', 'additionalProperties', 'exclusiveMinimum', 'exclusiveMaximum', 'propertyNames', 'uniqueItems', 'strict']) {
      expect(keys.has(keyword), keyword).toBe(false);
    }
    expect(Object.keys(out.properties)).toEqual(Object.keys(RICH.properties));
    expect(out.properties.path).toEqual({ type: 'string', description: 'Where' });
    expect(out.properties.when).toEqual({ type: 'string', format: 'date-time' });
    expect(out.properties.count).toEqual({ type: 'integer', default: 1 });
    expect(out.properties.tags).toEqual({ type: 'array', items: { type: 'string' } });
    expect(out.properties.meta).toEqual({ type: 'object' });
    expect(out.properties.maybe).toEqual({ type: 'string', nullable: true });
    expect(out.required).toEqual(['path']);
  });

  it('inlines local $refs for Gemini, and cuts cycles', () => {
    const schema = {
      type: 'object',
      $defs: {
        point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
        node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } },
      },
      properties: { at: { $ref: '#/$defs/point', description: 'Where it is' }, list: { $ref: '#/$defs/node' }, far: { $ref: 'https://example.com/schema' } },
    };
    const out = toFunctionParameters(schema, { gemini: true });
    expect(out.properties.at).toEqual({ type: 'object', properties: { x: { type: 'number' } }, required: ['x'], description: 'Where it is' });
    expect(out.properties.far).toEqual({});
    expect(keysDeep(out).has('$ref')).toBe(false);
    expect(keysDeep(out).has('$defs')).toBe(false);
    expect(JSON.stringify(out).length).toBeLessThan(5_000);
  });
});
