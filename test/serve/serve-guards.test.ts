/**
 * The pure parts of what `openai-acp serve` refuses: the nesting depth of a message read from its
 * bytes (strings and escapes not counted), the per-address throttle of wrong tokens, the summary
 * of repeated log lines, and which stdio MCP servers an operator allowed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AddressThrottle } from '../../src/serve/address-throttle.js';
import { DepthScanner } from '../../src/serve/json-depth.js';
import { RepeatSummary } from '../../src/serve/repeat-summary.js';
import { refusedMcpServer } from '../../src/tools/mcp/mcp-allow.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** The depth of a parsed JSON value. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value && typeof value === 'object') return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

/** Whether `bytes`, a whole JSON text, opens more than `max` objects or arrays inside one another. */
const nestsDeeperThan = (bytes: Uint8Array, max: number) => new DepthScanner(max).push(bytes);

describe('DepthScanner over a whole text', () => {
  it('counts objects and arrays, not brackets inside strings or after escapes', () => {
    expect(nestsDeeperThan(bytes('[[[]]]'), 3)).toBe(false);
    expect(nestsDeeperThan(bytes('[[[[]]]]'), 3)).toBe(true);
    expect(nestsDeeperThan(bytes('{"a":{"b":{"c":{}}}}'), 3)).toBe(true);
    expect(nestsDeeperThan(bytes('{"a":"[[[[[[[[{{{{"}'), 3)).toBe(false);
    expect(nestsDeeperThan(bytes('{"a":"\\"[[[[[[[[","b":[]}'), 2)).toBe(false);
    expect(nestsDeeperThan(bytes('["\\\\",[[[[]]]]]'), 3)).toBe(true);
    expect(nestsDeeperThan(bytes('{"ü":"日本[[[[[","x":[[1]]}'), 3)).toBe(false);
  });

  it('stops at the first bracket past the limit of a 15 MiB nested message', () => {
    const depth = 7_800_000;
    expect(nestsDeeperThan(bytes(`${'['.repeat(depth)}${']'.repeat(depth)}`), 128)).toBe(true);
  });

  it('agrees with the depth JSON.parse finds, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, max) => {
        const text = JSON.stringify(value);
        expect(nestsDeeperThan(bytes(text), max)).toBe(depthOf(JSON.parse(text)) > max);
      }),
    );
  });
});

describe('AddressThrottle', () => {
  it('lets the first failures through, then refuses the address for a delay that doubles, up to the most', () => {
    const throttle = new AddressThrottle({ freeFailures: 3, baseDelayMs: 1_000, maxDelayMs: 4_000 });
    const waits = [0, 1, 2, 3, 4, 5].map((i) => throttle.failed('10.0.0.1', i * 10_000));
    expect(waits).toEqual([0, 0, 0, 1_000, 2_000, 4_000]);
    expect(throttle.blockedFor('10.0.0.1', 50_000)).toBe(4_000);
    expect(throttle.blockedFor('10.0.0.1', 54_000)).toBe(0);
    // Another address is not touched.
    expect(throttle.blockedFor('10.0.0.2', 50_000)).toBe(0);
  });

  it('forgets an address after the right token, or after a quiet while', () => {
    const throttle = new AddressThrottle({ freeFailures: 1, forgetAfterMs: 60_000 });
    throttle.failed('a', 0);
    expect(throttle.failed('a', 1)).toBeGreaterThan(0);
    throttle.succeeded('a');
    expect(throttle.blockedFor('a', 2)).toBe(0);
    expect(throttle.failed('a', 3)).toBe(0);
    expect(throttle.failed('a', 100_000)).toBe(0);
  });

  it('keeps at most maxAddresses, the longest quiet forgotten first', () => {
    const throttle = new AddressThrottle({ freeFailures: 0, maxAddresses: 2 });
    throttle.failed('a', 0);
    throttle.failed('b', 1);
    throttle.failed('c', 2);
    expect(throttle.blockedFor('a', 3)).toBe(0);
    expect(throttle.blockedFor('c', 3)).toBeGreaterThan(0);
  });
});

describe('RepeatSummary', () => {
  it('writes the first line of a kind, then one per hundred with the count, and again after a quiet minute', () => {
    const summary = new RepeatSummary(100, 60_000);
    const written = Array.from({ length: 250 }, (_, i) => summary.take('junk from 10.0.0.1', i)).filter((x) => x !== undefined);
    expect(written).toEqual([0, 99, 99]);
    expect(summary.take('other', 300)).toBe(0);
    expect(summary.take('junk from 10.0.0.1', 70_000)).toBe(49);
  });
});

describe('refusedMcpServer', () => {
  const stdio = (name: string, command: string) => ({ name, command, args: [], env: [] });
  it('refuses the first stdio command not allowed exactly; http and sse servers are not its concern', () => {
    const servers = [{ type: 'http' as const, name: 'web', url: 'http://x', headers: [] }, stdio('fs', 'npx'), stdio('x', '/bin/sh')];
    expect(refusedMcpServer(servers, { mcpCommands: [], addresses: { privateRanges: [] } })).toEqual({ index: 1, name: 'fs', command: 'npx' });
    expect(refusedMcpServer(servers, { mcpCommands: ['npx'], addresses: { privateRanges: [] } })).toEqual({ index: 2, name: 'x', command: '/bin/sh' });
    expect(refusedMcpServer(servers, { mcpCommands: ['npx', '/bin/sh'], addresses: { privateRanges: [] } })).toBeUndefined();
    expect(refusedMcpServer(servers, { mcpCommands: ['*'], addresses: { privateRanges: [] } })).toBeUndefined();
    // A bare name does not allow a path ending in it.
    expect(refusedMcpServer([stdio('p', '/tmp/evil/npx')], { mcpCommands: ['npx'], addresses: { privateRanges: [] } })?.command).toBe('/tmp/evil/npx');
    expect(refusedMcpServer([{ ...stdio('o', 'npx'), type: 'stdio' } as never], { mcpCommands: [], addresses: { privateRanges: [] } })?.index).toBe(0);
  });
});
