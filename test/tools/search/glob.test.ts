import { describe, expect, it } from 'vitest';
import { globSpec } from '../../../src/tools/search/glob.js';

/** What the search worker does with a spec (search-worker.ts). */
const matches = (glob: string, path: string) => {
  const spec = globSpec(glob);
  const hit = new RegExp(spec.source).test(spec.basename ? path.slice(path.lastIndexOf('/') + 1) : path);
  return hit !== spec.negate;
};

describe('globSpec', () => {
  it('says what the glob is tested against, and takes a leading ! as negation', () => {
    expect(globSpec('*.ts')).toEqual({ source: '^[^/]*\\.ts$', basename: true, negate: false });
    expect(globSpec(' ./src/*.ts ')).toEqual({ source: '^src\\/[^/]*\\.ts$', basename: false, negate: false });
    expect(globSpec('!*.min.js').negate).toBe(true);
    expect(matches('!*.min.js', 'a/b.min.js')).toBe(false);
    expect(matches('!*.min.js', 'a/b.js')).toBe(true);
  });

  it('matches a name glob at any depth', () => {
    expect(matches('*.ts', 'a.ts')).toBe(true);
    expect(matches('*.ts', 'src/deep/a.ts')).toBe(true);
    expect(matches('*.ts', 'a.tsx')).toBe(false);
    expect(matches('?.md', 'x/a.md')).toBe(true);
    expect(matches('?.md', 'ab.md')).toBe(false);
  });

  it('matches path globs from the searched directory', () => {
    expect(matches('src/*.ts', 'src/a.ts')).toBe(true);
    expect(matches('src/*.ts', 'src/x/a.ts')).toBe(false);
    expect(matches('src/**/*.ts', 'src/a.ts')).toBe(true);
    expect(matches('src/**/*.ts', 'src/x/y/a.ts')).toBe(true);
    expect(matches('src/**/*.ts', 'lib/a.ts')).toBe(false);
    expect(matches('**/test/*.js', 'test/a.js')).toBe(true);
    expect(matches('**/test/*.js', 'a/b/test/a.js')).toBe(true);
    expect(matches('./src/*.ts', 'src/a.ts')).toBe(true);
  });

  it('supports braces and classes, and escapes regex characters', () => {
    expect(matches('*.{ts,tsx}', 'a/b.tsx')).toBe(true);
    expect(matches('*.{ts,tsx}', 'a/b.js')).toBe(false);
    expect(matches('{src,test}/**/*.{js,mjs}', 'test/x/a.mjs')).toBe(true);
    expect(matches('[abc].txt', 'b.txt')).toBe(true);
    expect(matches('[!abc].txt', 'b.txt')).toBe(false);
    expect(matches('[a-c].txt', 'c.txt')).toBe(true);
    expect(matches('a+b(1).txt', 'a+b(1).txt')).toBe(true);
    expect(matches('a.txt', 'abtxt')).toBe(false);
    expect(matches('{a,b', '{a,b')).toBe(true);
  });
});
