import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../src/tools/glob.js';

const matches = (glob: string, path: string) => compileGlob(glob)(path);

describe('compileGlob', () => {
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
