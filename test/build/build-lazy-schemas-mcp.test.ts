/**
 * The lazy-schema transform (scripts/lazy-schemas.mjs) applied to the MCP SDK, as the build does
 * for the MCP client chunk: it must not change what the SDK validates. The schemas of
 * `types.js` and `shared/auth.js` are compared with the SDK's own, by definition (the whole zod
 * definition tree, functions by source) and by parse results on MCP messages and arbitrary JSON;
 * the type guards (`isJSONRPCRequest`, …) answer alike. Named imports of lazy schemas (how the
 * SDK's client modules use them) are rewritten to the lazy accessors.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM build script without type declarations
import { lazySchemasPlugin, makeSchemasLazy } from '../../scripts/lazy-schemas.mjs';
import { bundleExports, expectSameOutcome, isSchema, outcome, sameSchema, type Schema } from '../helpers/schema-equivalence.js';

const SDK = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url));
const MODULES = ['types.js', 'shared/auth.js'];

let dir: string;
/** Per module: the SDK's exports, and the transformed module's. */
const original: Record<string, Record<string, unknown>> = {};
const lazy: Record<string, Record<string, unknown>> = {};
/** Every exported schema of both modules, by name, original and its lazy accessor. */
const schemas: [name: string, schema: Schema, accessor: () => Schema][] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lazy-schemas-mcp-'));
  for (const [i, module] of MODULES.entries()) {
    original[module] = await bundleExports(dir, `original-${i}`, join(SDK, module), []);
    lazy[module] = await bundleExports(dir, `lazy-${i}`, join(SDK, module), [lazySchemasPlugin()]);
    for (const [name, value] of Object.entries(original[module]!)) {
      if (isSchema(value)) schemas.push([name, value, lazy[module]![`${name}$`] as () => Schema]);
    }
  }
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const types = () => lazy['types.js']! as Record<string, (value: unknown) => boolean> & Record<string, () => Schema>;
const typesOriginal = () => original['types.js']! as Record<string, (value: unknown) => boolean> & Record<string, Schema>;

const TOOL = {
  name: 'echo',
  description: 'Echoes',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  annotations: { readOnlyHint: true },
};
/** Sample values per schema: valid ones and near misses. */
const SAMPLES: Record<string, unknown[]> = {
  JSONRPCMessageSchema: [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, result: { tools: [TOOL] } },
    { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } },
    { jsonrpc: '1.0', id: 1, method: 'x' },
    { id: 1, result: {} },
  ],
  InitializeResultSchema: [
    {
      protocolVersion: '2025-06-18',
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: 's', version: '1', icons: [{ src: 'https://x/i.png' }] },
    },
    { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's' } },
  ],
  ListToolsResultSchema: [
    { tools: [TOOL], nextCursor: 'c2' },
    { tools: [{ ...TOOL, outputSchema: { type: 'object', properties: { n: { type: 'number' } } }, execution: { taskSupport: 'optional' } }] },
    { tools: [{ name: 'bad', inputSchema: { type: 'array' } }] },
    { tools: 'none' },
  ],
  CallToolResultSchema: [
    { content: [{ type: 'text', text: 'hi' }] },
    {
      content: [
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
      ],
      structuredContent: { n: 1 },
    },
    { content: [{ type: 'resource', resource: { uri: 'file:///a', blob: 'not base64!' } }] },
    { content: [{ type: 'audio', data: 'AAAA' }], isError: true },
    {},
  ],
  OAuthTokensSchema: [{ access_token: 't', token_type: 'Bearer', expires_in: 3600 }, { access_token: 't' }],
};

describe('lazy MCP SDK schemas (build transform)', () => {
  it('defers every exported schema and keeps every other export as it was', () => {
    expect(schemas.length).toBeGreaterThan(150);
    for (const [name, , accessor] of schemas) expect(typeof accessor, name).toBe('function');
    for (const module of MODULES) {
      const kept = Object.keys(original[module]!).filter((name) => !isSchema(original[module]![name]));
      const lazyNames = Object.keys(lazy[module]!);
      expect(lazyNames.filter((name) => !name.endsWith('$')).sort(), module).toEqual(kept.sort());
      for (const name of kept) expect(typeof lazy[module]![name], name).toBe(typeof original[module]![name]);
    }
  });

  it('builds each schema with the same definition as the SDK', () => {
    for (const [name, schema, accessor] of schemas) sameSchema(schema, accessor(), name);
  });

  it('returns the same object on every call (built once)', () => {
    expect(types().JSONRPCMessageSchema$!()).toBe(types().JSONRPCMessageSchema$!());
    // An alias of another schema is that very schema, as in the SDK.
    expect(types().JSONRPCErrorSchema$!()).toBe(types().JSONRPCErrorResponseSchema$!());
  });

  it('parses MCP messages exactly like the SDK', () => {
    const byName = new Map(schemas.map(([name, schema, accessor]) => [name, { schema, accessor }]));
    for (const [name, values] of Object.entries(SAMPLES)) {
      const { schema, accessor } = byName.get(name)!;
      for (const value of values) expect(outcome(accessor(), value), name).toEqual(outcome(schema, value));
    }
    expect(outcome(types().CallToolResultSchema$!(), SAMPLES.CallToolResultSchema![0]).success).toBe(true);
  });

  it('parses arbitrary JSON exactly like the SDK, for every schema', () => {
    fc.assert(
      fc.property(fc.constantFrom(...schemas), fc.jsonValue(), ([name, schema, accessor], value) => {
        expectSameOutcome(accessor(), schema, value, name);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the type guards answering as the SDK does', () => {
    const guards = Object.keys(typesOriginal()).filter((name) => /^is[A-Z]/.test(name));
    expect(guards).toContain('isJSONRPCRequest');
    const values = [...SAMPLES.JSONRPCMessageSchema!, { method: 'x', params: { task: { ttl: 1 } } }, { method: 'initialize', params: {} }];
    for (const name of guards) {
      for (const value of values) expect(types()[name]!(value), name).toBe(typesOriginal()[name]!(value));
    }
    fc.assert(
      fc.property(fc.constantFrom(...guards), fc.jsonValue(), (name, value) => {
        expect(types()[name]!(value)).toBe(typesOriginal()[name]!(value));
      }),
      { numRuns: 500 },
    );
  });
});

describe('named imports of lazy schemas (how the MCP SDK imports them)', () => {
  const lazyExportsOf = (specifier: string) => (specifier === './types.js' ? new Set(['ASchema', 'BSchema']) : undefined);

  it('imports the accessor and calls it wherever the name was read', () => {
    const source = [
      "import { ASchema, BSchema as B, other } from './types.js';",
      'const local = B.optional();',
      'export class Client { m() { return ASchema.parse(other); } }',
      'export const parse = (v) => local.parse(v);',
    ].join('\n');
    const { code, lazy } = makeSchemasLazy(source, { lazyExportsOf });
    expect(code).toContain("import { ASchema$, BSchema$ as B$, other } from './types.js';");
    // `local` builds from a lazy schema at load time, so it becomes lazy itself.
    expect([...lazy]).toEqual(['local']);
    expect(code).toContain('return local$v ??= (B$().optional()); }');
    expect(code).toContain('return ASchema$().parse(other);');
    expect(code).toContain('(v) => local$().parse(v)');
  });

  it('refuses to re-export a lazy schema under its old name', () => {
    expect(() => makeSchemasLazy("export { ASchema } from './types.js';\n", { lazyExportsOf })).toThrow(/export \{ ASchema \} of a lazy name/);
    expect(() => makeSchemasLazy("import { ASchema } from './types.js';\nexport { ASchema };\n", { lazyExportsOf })).toThrow(/of a lazy name/);
  });
});
