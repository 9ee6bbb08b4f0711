/**
 * Helpers of the lazy-schema transform tests (test/build/build-lazy-schemas*.test.ts): bundle an
 * SDK module with and without the transform, and compare two zod schemas by definition and by
 * parse outcome.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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
 */
export function sameSchema(a: unknown, b: unknown, path: string, seen = new Map<object, object>()): void {
  if (typeof a === 'function' || typeof b === 'function') {
    const code = (fn: unknown) =>
      String(fn)
        .replace(/\b(\w+)\$\(\)/g, '$1')
        .replace(/\s+/g, ' ');
    expect(code(b), path).toBe(code(a));
    return;
  }
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    expect(b, path).toEqual(a);
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
  expect(Object.keys(b).sort(), path).toEqual(Object.keys(a).sort());
  for (const key of Object.keys(a)) sameSchema((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`, seen);
}

/** The outcome of `schema.safeParse(value)`: the parsed data, or the issues. */
export function outcome(schema: Schema, value: unknown) {
  const result = schema.safeParse(value);
  return result.success ? { success: true, data: result.data } : { success: false, issues: result.error?.issues };
}
