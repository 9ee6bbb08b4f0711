/**
 * The ACP registry's auth check as `npm run check:release` runs it
 * (scripts/release/registry-auth-check.mjs): the built CLI passes it started as the check starts
 * an agent (an empty HOME, no keys, the registry's own `initialize`); agents it must refuse are
 * refused, each with the reason their client gives.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM script without type declarations
import { AUTH_CHECK_INITIALIZE, authMethodTypes, runAuthCheck } from '../../scripts/release/registry-auth-check.mjs';
import { CLI } from '../helpers/spawn-agent.js';
import { cleanEnv } from '../helpers/temp-home.js';

const sandboxes: string[] = [];
afterAll(() => {
  for (const dir of sandboxes) rmSync(dir, { recursive: true, force: true });
});
const sandbox = () => {
  const dir = mkdtempSync(join(tmpdir(), 'openai-acp-auth-check-'));
  sandboxes.push(dir);
  return dir;
};
const npx = { package: 'openai-acp@0.1.0', args: ['acp'] };

/** A stand-in agent: `body` runs for each stdin line `line` (parsed as `message`), writing with `out`. */
const fakeAgent = (body: string) => [
  process.execPath,
  '-e',
  `const out = (m) => process.stdout.write(typeof m === 'string' ? m + '\\n' : JSON.stringify(m) + '\\n');
   require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => { const message = JSON.parse(line); ${body} });`,
];

describe('the registry auth check', () => {
  it('passes the built CLI with an empty HOME and no keys: a terminal auth method, stdout only JSON-RPC', async () => {
    const dir = sandbox();
    const result = await runAuthCheck({ npx, sandbox: dir, env: cleanEnv(dir), launch: [process.execPath, CLI, 'acp'] });
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.methods).toEqual([{ id: 'setup', type: 'terminal' }]);
    expect(result.lines.every((line: { message?: unknown }) => line.message !== undefined)).toBe(true);
  }, 30_000);

  it.each<[string, string, RegExp]>([
    [
      'a banner before the answer',
      `out('Welcome!'); out({ jsonrpc: '2.0', id: message.id, result: { authMethods: [{ id: 'a', type: 'agent' }] } });`,
      /^Error during auth check: .*JSON/,
    ],
    ['no authMethods', `out({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1 } });`, /^No authMethods in response$/],
    ['only an env-var method', `out({ jsonrpc: '2.0', id: message.id, result: { authMethods: [{ id: 'k', type: 'env_var' }] } });`, /Found types: env_var$/],
    ['an error answer', `out({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: 'boom' } });`, /^Agent error: /],
    [
      'a log line on stdout after the answer',
      `out({ jsonrpc: '2.0', id: message.id, result: { authMethods: [{ id: 'a', type: 'agent' }] } }); out('debug: ready');`,
      /stdout carried a line that is not JSON-RPC: "debug: ready"/,
    ],
  ])('refuses an agent that sends %s', async (_what, body, error) => {
    const dir = sandbox();
    const result = await runAuthCheck({ npx, sandbox: dir, env: cleanEnv(dir), launch: fakeAgent(body) });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(error);
  });

  it('refuses an agent that does not answer within the time limit, and stops it', async () => {
    const dir = sandbox();
    const result = await runAuthCheck({ npx, sandbox: dir, env: cleanEnv(dir), launch: fakeAgent(''), timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, error: 'Error during auth check: no initialize answer within 0.3 s' });
  });

  it("sends the registry client's own initialize, and types methods as it does", async () => {
    expect(AUTH_CHECK_INITIALIZE.clientCapabilities._meta).toEqual({ terminal_output: true, 'terminal-auth': true });
    expect(
      authMethodTypes([{ id: 'a' }, { id: 'b', _meta: { 'terminal-auth': {} } }, { id: 'c', _meta: { 'agent-auth': true } }, { id: 'd', type: 'env_var' }]),
    ).toEqual([
      { id: 'a', type: 'agent' },
      { id: 'b', type: 'terminal' },
      { id: 'c', type: 'agent' },
      { id: 'd', type: 'env_var' },
    ]);
  });
});
