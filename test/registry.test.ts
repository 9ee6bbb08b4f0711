/**
 * `registry/agent.json` and `registry/icon.svg` pass the ACP registry's entry checks
 * (scripts/release/registry-entry.mjs: its schema and the rules of its `build_registry.py`, also run
 * by `npm run check:release`), stay in step with package.json, and those checks refuse what the
 * registry refuses.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM script without type declarations
import { entryProblems, iconProblems, npmPackageName, npmPackageVersion } from '../scripts/release/registry-entry.mjs';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json'));
const agent = JSON.parse(read('registry/agent.json'));
const icon = read('registry/icon.svg');

describe('registry/agent.json', () => {
  it("passes the registry's schema and entry rules, submitted in a folder named after its id", () => {
    expect(entryProblems(agent, 'openai-acp')).toEqual([]);
  });

  it('is in step with package.json', () => {
    expect(agent.id).toBe(pkg.name);
    expect(agent.version).toBe(pkg.version);
    expect(agent.description).toBe(pkg.description);
    expect(agent.license).toBe(pkg.license);
    expect(agent.distribution).toEqual({ npx: { package: `${pkg.name}@${pkg.version}`, args: ['acp'] } });
  });

  it('names the repository package.json names, and a website', () => {
    expect(agent.repository).toBe('https://github.com/openai-acp/openai-acp');
    expect(pkg.repository).toEqual({ type: 'git', url: `git+${agent.repository}.git` });
    expect(pkg.bugs).toEqual({ url: `${agent.repository}/issues` });
    expect(pkg.homepage).toBe(`${agent.repository}#readme`);
    expect(agent.website).toBe(pkg.homepage);
    expect(pkg.keywords).toEqual(expect.arrayContaining(['acp', 'agent-client-protocol', 'openai', 'ollama']));
  });
});

describe('the entry checks refuse what the registry refuses', () => {
  const broken = (change: (entry: any) => void) => {
    const entry = structuredClone(agent);
    change(entry);
    return entryProblems(entry, 'openai-acp');
  };

  it.each<[string, (entry: any) => void, RegExp]>([
    ['a missing description', (e) => delete e.description, /^Schema validation error at 'root': must have required property 'description'$/],
    ['an id with capitals', (e) => (e.id = 'OpenAI-acp'), /^Schema validation error at 'id'/],
    ['a version that is not x.y.z', (e) => (e.version = '1.0'), /^Schema validation error at 'version'/],
    ['an unknown distribution', (e) => (e.distribution = { docker: { image: 'x' } }), /^Schema validation error at 'distribution'/],
    ['an npx entry without its package', (e) => (e.distribution.npx = { args: ['acp'] }), /^Schema validation error at 'distribution.npx'/],
    ['@latest', (e) => (e.distribution.npx.package = 'openai-acp@latest'), /^npx package uses '@latest'/],
    [
      'another version than the entry',
      (e) => (e.distribution.npx.package = 'openai-acp@0.0.9'),
      /^npx package version \(0\.0\.9\) doesn't match agent version/,
    ],
    [
      'a binary for one system only',
      (e) => (e.distribution = { binary: { 'linux-x86_64': { archive: 'https://x/v0.1.0/a.tgz', cmd: './a' } } }),
      /Missing: darwin, windows/,
    ],
  ])('%s', (_what, change, message) => {
    expect(broken(change)).toEqual([expect.stringMatching(message)]);
  });

  it('an id that is not its folder name', () => {
    expect(entryProblems(agent, 'openai')).toEqual(["Field 'id' (openai-acp) must match directory name (openai)"]);
  });

  it('reads the name and version of scoped and unscoped npm specs', () => {
    expect([npmPackageName('openai-acp@0.1.0'), npmPackageVersion('openai-acp@0.1.0')]).toEqual(['openai-acp', '0.1.0']);
    expect([npmPackageName('@scope/name@1.2.3'), npmPackageVersion('@scope/name@1.2.3')]).toEqual(['@scope/name', '1.2.3']);
    expect([npmPackageName('@scope/name'), npmPackageVersion('@scope/name')]).toEqual(['@scope/name', undefined]);
  });
});

describe('registry/icon.svg', () => {
  it("passes the registry's icon rules: 16×16, square, monochrome in currentColor", () => {
    expect(iconProblems(icon)).toEqual([]);
  });

  it('is one well-formed <svg> element, without comments', () => {
    expect(icon.trim()).toMatch(/^<svg\b[^>]*>[\s\S]*<\/svg>$/);
    expect(icon).not.toContain('<!--');
    const stack: string[] = [];
    for (const [, closing, name, selfClosing] of icon.matchAll(/<(\/?)([A-Za-z][\w:-]*)[^>]*?(\/?)>/g)) {
      if (closing) expect(stack.pop()).toBe(name);
      else if (!selfClosing) stack.push(name!);
    }
    expect(stack).toEqual([]);
  });

  it.each([
    ['<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><path fill="currentColor" d="M0 0h1"/></svg>', 'Icon should be 16x16 (got 24x24)'],
    ['<svg xmlns="http://www.w3.org/2000/svg" width="16" height="12"><path fill="currentColor" d="M0 0h1"/></svg>', 'Icon must be square (got 16x12)'],
    [
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path fill="#ff0000" d="M0 0h1"/><path fill="currentColor" d="M0 0h1"/></svg>',
      'Icon has hardcoded fill="#ff0000" (use currentColor or none)',
    ],
    [
      '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><path style="stroke: red" fill="currentColor" d="M0 0h1"/></svg>',
      'Icon has hardcoded style stroke: red',
    ],
    [
      '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><path d="M0 0h1"/></svg>',
      'Icon must use currentColor for fills/strokes to support theming',
    ],
    ['<svg xmlns="http://www.w3.org/2000/svg"><path fill="currentColor" d="M0 0h1"/></svg>', 'Icon missing width/height attributes and viewBox'],
  ])('refuses %s', (svg, problem) => {
    expect(iconProblems(svg)).toContain(problem);
  });
});
