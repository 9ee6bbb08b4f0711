/**
 * Helpers of the lazy-schema transform tests (test/build/build-lazy-schemas*.test.ts): bundle an
 * SDK module with and without the transform, and compare two zod schemas by definition and by
 * parse outcome.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';

/** What the tests use of a zod schema. */
export type Schema = { safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } }; _zod: { def: unknown } };

/**
 * Bundles `export * from <module>` (an absolute path) with `plugins` into `<dir>/<name>.mjs` and
 * imports it. Returns the module's exports.
 */
export async function bundleExports(dir: string, name: string, module: string, plugins: unknown[]): Promise<Record<string, unknown>> {
  const outfile = join(dir, `${name}.mjs`);
  await build({
    stdin: { contents: `export * from ${JSON.stringify(module)};`, resolveDir: dir, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile,
    plugins: plugins as never,
    logLevel: 'silent',
  });
  return import(pathToFileURL(outfile).href);
}

/** True when `value` is a zod schema. */
export const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && '_zod' in value;

/**
 * Asserts structural equality of two zod schema graphs: definitions, checks, and functions by
 * source (only indentation and `X` → `X$()` may differ: the initializer moved into a function).
 * Each comparison is made in plain code first and handed to `expect` only when it differs (for the
 * message): `expect` costs far more per call, and a graph has tens of thousands of nodes.
 */
export function sameSchema(a: unknown, b: unknown, path: string, seen = new Map<object, object>()): void {
  if (typeof a === 'function' || typeof b === 'function') {
    const code = (fn: unknown) =>
      String(fn)
        .replace(/\b(\w+)\$\(\)/g, '$1')
        .replace(/\s+/g, ' ');
    const [codeA, codeB] = [code(a), code(b)];
    if (codeB !== codeA) expect(codeB, path).toBe(codeA);
    return;
  }
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    // One value (Object.is) passes `toEqual` for sure; anything else gets its verdict.
    if (!Object.is(a, b)) expect(b, path).toEqual(a);
    return;
  }
  if (seen.get(a) === b) return;
  seen.set(a, b);
  const zodA = (a as { _zod?: { def: unknown } })._zod;
  const zodB = (b as { _zod?: { def: unknown } })._zod;
  if (zodA || zodB) {
    sameSchema(zodA?.def, zodB?.def, `${path}._zod.def`, seen);
    return;
  }
  const [keysA, keysB] = [Object.keys(a).sort(), Object.keys(b).sort()];
  if (keysB.length !== keysA.length || keysB.some((key, i) => key !== keysA[i])) expect(keysB, path).toEqual(keysA);
  for (const key of Object.keys(a)) sameSchema((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`, seen);
}

/**
 * Asserts that `actual` and `expected` parse `value` alike ({@link outcome}), as
 * `expect(outcome(actual, value), name).toEqual(outcome(expected, value))` does: outcomes equal by
 * `isDeepStrictEqual` (stricter than `toEqual`) pass at once, any other pair gets `toEqual`'s verdict.
 */
export function expectSameOutcome(actual: Schema, expected: Schema, value: unknown, name?: string): void {
  const [got, want] = [outcome(actual, value), outcome(expected, value)];
  if (!isDeepStrictEqual(got, want)) expect(got, name).toEqual(want);
}

/** The outcome of `schema.safeParse(value)`: the parsed data, or the issues. */
export function outcome(schema: Schema, value: unknown) {
  const result = schema.safeParse(value);
  return result.success ? { success: true, data: result.data } : { success: false, issues: result.error?.issues };
}
