/**
 * The package as a user gets it: `npm pack` of this tree, installed globally into a temp prefix
 * from the tarball alone (`--offline`, a temp npm cache: the package has no runtime dependencies,
 * dist/ bundles them), then started from an empty folder with no node_modules around it. Checks
 * the install is one package and small, and that the installed `openai-acp` answers a prompt.
 *
 * `npm pack --ignore-scripts` packs the dist/ built by `pretest` (the `prepack` build and the
 * manifest without `prepare`, scripts/pack-manifest.mjs, are the manual check in docs/install.md).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeOpenAI, streamText, type FakeOpenAI } from '../helpers/fake-openai.js';
import { cleanEnv, tempHome } from '../helpers/temp-home.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NPM_CLI = join(process.execPath, '..', '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');

let work: string;
let prefix: string;
let server: FakeOpenAI;

/** `npm <args>` with a temp cache and no audit or fund lookups; returns stdout. */
function npm(args: string[], cwd: string): string {
  const npmArgs = [...args, '--cache', join(work, 'npm-cache'), '--no-audit', '--no-fund', '--loglevel', 'error'];
  const env = cleanEnv(work);
  return existsSync(NPM_CLI)
    ? execFileSync(process.execPath, [NPM_CLI, ...npmArgs], { cwd, env, encoding: 'utf8' })
    : execFileSync('npm', npmArgs, { cwd, env, encoding: 'utf8' });
}

/** Total bytes of the files under `dir`. */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

beforeAll(async () => {
  work = tempHome('openai-acp-pack-');
  prefix = join(work, 'prefix');
  server = await startFakeOpenAI(streamText(['Hello', ' from the tarball']));
  const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT)) as { filename: string }[];
  npm(['install', '--global', '--prefix', prefix, '--offline', join(work, packed[0]!.filename)], work);
}, 120_000);
afterAll(() => server?.close());

it('installs one package, no node_modules of its own, well under 15 MB', () => {
  const modules = join(prefix, 'lib', 'node_modules');
  expect(readdirSync(modules)).toEqual(['openai-acp']);
  expect(existsSync(join(modules, 'openai-acp', 'node_modules'))).toBe(false);
  expect(bytesUnder(prefix)).toBeLessThan(15 * 1024 * 1024);
});

it('the installed command prints its version from an empty folder', () => {
  const version = JSON.parse(execFileSync(process.execPath, ['-p', 'JSON.stringify(require("./package.json").version)'], { cwd: ROOT, encoding: 'utf8' }));
  const out = execFileSync(join(prefix, 'bin', 'openai-acp'), ['--version'], { cwd: tempHome(), env: cleanEnv(work), encoding: 'utf8' });
  expect(out.trim()).toBe(version);
});

it('the installed command answers a prompt over stdio', async () => {
  const child = spawn(join(prefix, 'bin', 'openai-acp'), [], {
    cwd: tempHome(),
    env: cleanEnv(work, { OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_TOOLS: 'off' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const lines: any[] = [];
  let buffer = '';
  const waiting = new Map<number, (m: any) => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buffer += d;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      lines.push(message);
      if (message.id !== undefined && message.method === undefined) waiting.get(message.id)?.(message);
    }
  });
  let id = 0;
  const request = (method: string, params: unknown) =>
    new Promise<any>((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  try {
    expect((await request('initialize', { protocolVersion: 1, clientCapabilities: {} })).result?.protocolVersion).toBe(1);
    const sessionId = (await request('session/new', { cwd: work, mcpServers: [] })).result?.sessionId;
    expect(sessionId, stderr).toBeTypeOf('string');
    expect((await request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).result?.stopReason).toBe('end_turn');
    const text = lines
      .filter((m) => m.method === 'session/update' && m.params.update.sessionUpdate === 'agent_message_chunk')
      .map((m) => m.params.update.content.text)
      .join('');
    expect(text).toBe('Hello from the tarball');
  } finally {
    child.kill();
  }
});
