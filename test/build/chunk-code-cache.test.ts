/**
 * The V8 code caches of the lazy chunks (dist/chunks/*.cjs), loaded by the start-up loader
 * (dist/cli.js, from scripts/cli-loader.cjs) as it loads the bundle: after the build the MCP
 * client chunk is compiled with its trained cache; a cache is only offered to the chunk contents
 * it was made from; a read-only dist/ keeps fresh caches in $XDG_CACHE_HOME/openai-acp; a missing
 * chunk is still reported in words. Each test runs a copy of dist/ (needs `npm run build`, the
 * `pretest` script) through `session/new` with one stdio MCP server (the bundled fixture), on
 * 127.0.0.1 only.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM build script without type declarations
import { writeLoader } from '../../scripts/write-loader.mjs';
import { stdioServer } from '../tools/mcp/stdio-fixture.js';
import { cleanEnv } from '../helpers/clean-env.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROBE = fileURLToPath(new URL('./fixtures/script-probe.cjs', import.meta.url));
const CHUNK = 'mcp-connect.lazy.cjs';
let copy: string;
let chunks: string;

beforeEach(() => {
  copy = mkdtempSync(join(tmpdir(), 'openai-acp-chunk-cache-'));
  // The source maps are left out: the CLI runs without them (no --enable-source-maps).
  cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true, filter: (path) => !path.endsWith('.map') });
  cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
  chunks = join(copy, 'dist', 'chunks');
});
afterEach(() => rmSync(copy, { recursive: true, force: true }));

/** The code caches of the MCP client chunk in `dir`. */
const chunkCaches = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('mcp-connect.lazy.') && name.endsWith('.cache'));

interface Run {
  stderr: string;
  /** What the probe saw of the MCP chunk's compile (only with `probe`). */
  chunk?: { offered: boolean; rejected: boolean };
}

/**
 * Runs the copy's CLI through initialize and `session/new` with one stdio MCP server, then ends
 * stdin and waits for the exit. `probe` preloads script-probe.cjs (a Node flag: the loader then
 * reads caches but writes none). Rejects when session/new fails or the CLI exits non-zero.
 */
async function mcpSession(options: { probe?: boolean; env?: Record<string, string>; spawn?: SpawnOptions } = {}): Promise<Run> {
  const env = cleanEnv(copy, {
    XDG_CACHE_HOME: join(copy, 'cache'),
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    OPENAI_MODEL: 'm',
    OPENAI_ACP_STATE_DIR: 'off',
    OPENAI_ACP_LOG: 'warn',
    ...options.env,
  });
  const args = [...(options.probe ? ['--require', PROBE] : []), join(copy, 'dist', 'cli.js')];
  const child = spawn(process.execPath, args, { ...options.spawn, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr!.setEncoding('utf8').on('data', (data: string) => (stderr += data));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const answer = new Promise<any>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (data: string) => {
      stdout += data;
      const found = stdout.split('\n').find((line) => line.includes('"id":2'));
      if (found) resolve(JSON.parse(found));
    });
    void exited.then(() => reject(new Error(`the CLI exited before answering session/new: ${stderr}`)));
  });
  const send = (id: number, method: string, params: unknown) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  send(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  send(2, 'session/new', { cwd: copy, mcpServers: [stdioServer('fx')] });
  const created = await answer;
  expect(created.result?.sessionId, JSON.stringify(created)).toBeTruthy();
  child.stdin!.end();
  expect(await exited, stderr).toBe(0);
  const probed = /^script-probe (.*)$/m.exec(stderr);
  const compiled: { file: string; offered: boolean; rejected: boolean }[] = probed ? JSON.parse(probed[1]!) : [];
  return { stderr, chunk: compiled.find((script) => script.file === join(chunks, CHUNK)) };
}

describe('lazy chunk code caches', () => {
  it('after the build, the MCP client chunk is compiled with its trained cache, which is left alone', async () => {
    const [trained] = chunkCaches(chunks);
    expect(trained).toBeDefined();
    const before = readFileSync(join(chunks, trained!));
    expect(before.length).toBeGreaterThan(100_000);
    const probed = await mcpSession({ probe: true });
    expect(probed.chunk).toMatchObject({ offered: true, rejected: false });
    // A plain run (no Node flags) would write a cache at exit had this one been rejected.
    await mcpSession();
    expect(chunkCaches(chunks)).toEqual([trained]);
    expect(readFileSync(join(chunks, trained!)).equals(before)).toBe(true);
  }, 60_000);

  it('never offers a cache to other chunk contents: it compiles from source and writes a cache of its own', async () => {
    const [trained] = chunkCaches(chunks);
    // Other contents (as a rebuild would make), with the loader that goes with them.
    appendFileSync(join(chunks, CHUNK), '\n// changed\n');
    writeLoader(join(copy, 'dist'));
    const probed = await mcpSession({ probe: true });
    expect(probed.chunk).toMatchObject({ offered: false, rejected: false });
    await mcpSession();
    const fresh = chunkCaches(chunks).filter((name) => name !== trained);
    expect(fresh).toHaveLength(1);
    expect((await mcpSession({ probe: true })).chunk).toMatchObject({ offered: true, rejected: false });
  }, 60_000);

  it('with a read-only dist/, writes the chunk cache to $XDG_CACHE_HOME/openai-acp and uses it from there', async () => {
    for (const name of chunkCaches(chunks)) rmSync(join(chunks, name));
    const cacheHome = join(copy, 'cache');
    mkdirSync(cacheHome);
    // Root writes anywhere: then the CLI runs as `nobody`, who may read the copy and write only the cache home.
    const asNobody: SpawnOptions = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    chmodSync(copy, 0o755);
    chmodSync(cacheHome, 0o777);
    for (const dir of [join(copy, 'dist'), chunks]) chmodSync(dir, 0o555);
    try {
      await mcpSession({ spawn: asNobody });
      expect(chunkCaches(chunks)).toEqual([]);
      const written = chunkCaches(join(cacheHome, 'openai-acp'));
      expect(written).toHaveLength(1);
      expect(statSync(join(cacheHome, 'openai-acp', written[0]!)).size).toBeGreaterThan(100_000);
      expect((await mcpSession({ probe: true, spawn: asNobody })).chunk).toMatchObject({ offered: true, rejected: false });
    } finally {
      for (const dir of [join(copy, 'dist'), chunks]) chmodSync(dir, 0o755);
    }
  }, 60_000);

  it('a missing chunk: session/new still answers, and the server is reported as not started, with why', async () => {
    rmSync(join(chunks, CHUNK));
    const { stderr } = await mcpSession();
    expect(stderr).toMatch(/MCP server "fx" could not start: the MCP client could not be loaded: ENOENT: no such file or directory.*mcp-connect\.lazy\.cjs/);
  }, 60_000);
});
