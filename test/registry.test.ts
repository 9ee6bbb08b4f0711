/**
 * `registry/agent.json` follows the ACP registry's schema (agentclientprotocol/registry
 * `agent.schema.json` and the checks of its `build_registry.py`) and stays in step with
 * package.json; `registry/icon.svg` is a square 16×16 monochrome SVG drawn in `currentColor`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json'));
const agent = JSON.parse(read('registry/agent.json'));
const icon = read('registry/icon.svg');

describe('registry/agent.json', () => {
  it('is in step with package.json', () => {
    expect(agent.id).toBe(pkg.name);
    expect(agent.version).toBe(pkg.version);
    expect(agent.description).toBe(pkg.description);
    expect(agent.license).toBe(pkg.license);
    expect(agent.distribution).toEqual({ npx: { package: `${pkg.name}@${pkg.version}`, args: ['acp'] } });
  });

  it('has the fields the registry schema requires, and no others', () => {
    const allowed = ['id', 'name', 'version', 'description', 'repository', 'website', 'authors', 'license', 'license_url', 'icon', 'distribution'];
    for (const key of Object.keys(agent)) expect(allowed).toContain(key);
    for (const key of ['id', 'name', 'version', 'description', 'distribution']) expect(agent[key]).toBeTruthy();
    expect(agent.id).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(agent.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(agent.name.length).toBeGreaterThan(0);
    // The package is pinned: never "@latest", and its version is the agent's.
    expect(agent.distribution.npx.package).not.toMatch(/@latest/i);
    expect(Object.keys(agent.distribution.npx).every((key) => ['package', 'args', 'env'].includes(key))).toBe(true);
  });

  it('serves ACP with the args it names', () => {
    expect(agent.distribution.npx.args).toEqual(['acp']);
  });
});

describe('registry/icon.svg', () => {
  it('is one <svg> element, square 16×16, without comments', () => {
    expect(icon.trim()).toMatch(/^<svg\b[^>]*>[\s\S]*<\/svg>$/);
    expect(icon).not.toContain('<!--');
    const root = /^<svg\b([^>]*)>/.exec(icon.trim())![1]!;
    expect(root).toMatch(/\bxmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(root).toMatch(/\bwidth="16"/);
    expect(root).toMatch(/\bheight="16"/);
    expect(root).toMatch(/\bviewBox="0 0 16 16"/);
  });

  it('is well-formed: every element opened is closed', () => {
    const body = icon.replace(/<\?xml[^>]*\?>/, '');
    const stack: string[] = [];
    for (const [, closing, name, selfClosing] of body.matchAll(/<(\/?)([A-Za-z][\w:-]*)[^>]*?(\/?)>/g)) {
      if (closing) expect(stack.pop()).toBe(name);
      else if (!selfClosing) stack.push(name!);
    }
    expect(stack).toEqual([]);
  });

  it('is monochrome: fills and strokes are currentColor, none or inherit', () => {
    expect(icon).toMatch(/(fill|stroke)="currentColor"/);
    for (const [, , value] of icon.matchAll(/\b(fill|stroke)="([^"]*)"/g)) expect(['currentcolor', 'none', 'inherit']).toContain(value!.toLowerCase());
    expect(icon).not.toMatch(/style=|<style|#[0-9a-f]{3,8}\b|rgb\(/i);
  });
});
