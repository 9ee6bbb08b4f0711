/**
 * The build's lazy-schema transform (scripts/lazy-schemas.mjs) must not change what the ACP SDK
 * validates: every schema it defers is compared with the SDK's own, by definition (the whole zod
 * definition tree, functions by source) and by parse results on valid and arbitrary messages.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM build script without type declarations
import { lazySchemasPlugin, makeSchemasLazy } from '../../scripts/lazy-schemas.mjs';
import { bundleExports, expectSameOutcome, outcome, sameSchema, type Schema } from '../helpers/schema-equivalence.js';

const SCHEMAS = fileURLToPath(new URL('../../node_modules/@agentclientprotocol/sdk/dist/v1/unstable/schema/zod.gen.js', import.meta.url));

let dir: string;
let original: Record<string, Schema>;
let lazy: Record<string, () => Schema>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lazy-schemas-'));
  original = (await bundleExports(dir, 'original', SCHEMAS, [])) as Record<string, Schema>;
  lazy = (await bundleExports(dir, 'lazy', SCHEMAS, [lazySchemasPlugin()])) as Record<string, () => Schema>;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VALID: Record<string, unknown[]> = {
  zInitializeRequest: [
    { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } },
    { protocolVersion: 1 },
    { protocolVersion: 1, clientCapabilities: { fs: 'bad' }, _meta: 3 },
  ],
  zNewSessionRequest: [{ cwd: '/tmp', mcpServers: [] }, { cwd: '/tmp', mcpServers: [{ name: 'x', command: 'y', args: [], env: [] }] }, { cwd: 3 }],
  zPromptRequest: [
    { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] },
    {
      sessionId: 's',
      prompt: [
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
      ],
    },
    {
      sessionId: 's',
      prompt: [
        { type: 'resource', resource: { uri: 'file:///a', text: 'x' } },
        { type: 'custom', x: 1 },
      ],
    },
    { sessionId: 's', prompt: 'nope' },
  ],
  zCancelNotification: [{ sessionId: 's' }, {}],
  zSetSessionConfigOptionRequest: [{ sessionId: 's', configId: 'model', value: 'gpt' }, { sessionId: 's' }],
  zSessionNotification: [
    { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } } },
    { sessionId: 's', update: { sessionUpdate: 'usage_update', used: 1, size: 2 } },
    { sessionId: 's', update: { sessionUpdate: 'unknown_kind', x: 1 } },
  ],
};

describe('lazy SDK schemas (build transform)', () => {
  it('defers every exported schema and keeps nothing else', () => {
    const names = Object.keys(original).filter((name) => name.startsWith('z'));
    expect(names.length).toBeGreaterThan(200);
    for (const name of names) expect(typeof lazy[`${name}$`], name).toBe('function');
    expect(Object.keys(lazy).filter((name) => !name.endsWith('$'))).toEqual([]);
  });

  it('builds each schema with the same definition as the SDK', () => {
    for (const name of Object.keys(original)) sameSchema(original[name], lazy[`${name}$`]!(), name);
  });

  it('returns the same object on every call (built once)', () => {
    expect(lazy['zPromptRequest$']!()).toBe(lazy['zPromptRequest$']!());
  });

  it('parses sample messages exactly like the SDK', () => {
    for (const [name, values] of Object.entries(VALID)) {
      for (const value of values) expect(outcome(lazy[`${name}$`]!(), value), name).toEqual(outcome(original[name]!, value));
    }
  });

  it('parses arbitrary JSON exactly like the SDK, for every schema', () => {
    const names = Object.keys(original);
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.jsonValue(), (name, value) => {
        expectSameOutcome(lazy[`${name}$`]!(), original[name]!, value);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a load-time use it cannot defer', () => {
    const lazyExportsOf = (specifier: string) => (specifier === './zod.gen.js' ? new Set(['zA']) : undefined);
    const source = "import * as validate from './zod.gen.js';\nconst x = validate.zA.describe('x');\nexport const y = () => x;\n";
    // `x` builds from a lazy schema at load time, so it becomes lazy itself (and `y` reads it lazily).
    expect(makeSchemasLazy(source, { lazyExportsOf }).code).toContain('return x$v ??= (validate.zA$().describe');
    expect(() => makeSchemasLazy("import * as validate from './zod.gen.js';\nfoo(validate.zA);\n", { lazyExportsOf })).toThrow(/cannot be deferred/);
    expect(makeSchemasLazy("import * as validate from './zod.gen.js';\nconst s = { a: requestSpec('m', validate.zA) };\n", { lazyExportsOf }).code).toContain(
      "requestSpec('m', __deferredParser(validate.zA$))",
    );
  });
});
