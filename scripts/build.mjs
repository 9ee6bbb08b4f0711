// Bundles the CLI into dist/ for a fast cold start (spawn → `initialize` answered within 1.5× a
// bare `node -e`). Speed work: ARCHITECTURE.md "Speed work" lists each trick with its measured
// gain. Four tricks, each explained where it lives:
//
// 1. One file: esbuild bundles src/cli.ts and its dependencies into dist/bundle.js, a single
//    async function expression (no module graph to resolve or link at start-up).
// 2. A V8 code cache: dist/cli.js (scripts/cli-loader.cjs) runs that function through `vm.Script`
//    with cached bytecode, made here by a training run (`trainCodeCache`). The lazy
//    chunks of 4. get the same, through the same loader (the MCP client chunk: ~35-40 ms saved on
//    the first MCP session of a process).
// 3. Lazy SDK schemas: the ACP SDK's zod schemas are built on first use instead of at load time
//    (scripts/lazy-schemas.mjs). The MCP SDK's too, in its chunk.
// 4. Lazy chunks: a `*.lazy.ts` module imported with `import()` (e.g. the MCP SDK code) is built
//    into dist/chunks/<name>.cjs and loaded only when that code runs (scripts/lazy-chunks.mjs).
//
// dist/package.json marks dist/ as CommonJS so that dist/cli.js loads through Node's CommonJS
// loader, a few ms cheaper to start than the ES module loader.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import http from 'node:http';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInputsDigest, builtFrom, DIGEST_FILE } from './build-inputs.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
// Built and trained in a directory of its own, then renamed into place: a concurrent build or a
// running test never sees a half-written dist/.
const out = join(root, `.dist-build-${process.pid}`);
// `--if-changed` (the `pretest` step) builds nothing when dist/ was built from these same inputs.
const digest = buildInputsDigest();
if (process.argv.includes('--if-changed') && builtFrom(dist, digest)) {
  console.log('build: dist/ is up to date with its sources');
  process.exit(0);
}
// Loaded only for a build (TypeScript's compiler, for the lazy schemas, takes ~0.7 s to load).
const { build } = await import('esbuild');
const { lazyChunks } = await import('./lazy-chunks.mjs');
const { lazySchemasPlugin } = await import('./lazy-schemas.mjs');
const { BUNDLE_WRAPPER, writeLoader } = await import('./write-loader.mjs');
/**
 * esbuild plugin: `import { z } from 'zod'` in our sources becomes `import * as z from 'zod/v4'`,
 * the same zod (the root entry re-exports v4's namespace as `z`) and the form the ACP SDK uses.
 * esbuild can tree-shake a namespace import used as `z.object(…)` but not a re-exported namespace
 * object, so the root form pulls in all of zod, every locale included: the bundle measured 641 KB
 * with it and 282 KB without, and the V8 code cache 687 KB and 494 KB (~4 ms of cold start).
 * A source that imports zod differently is left alone (and is only bigger).
 */
function zodNamespacePlugin() {
  const rootImport = "import { z } from 'zod';";
  return {
    name: 'zod-namespace',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(rootImport)) return undefined;
        return { contents: source.replace(rootImport, "import * as z from 'zod/v4';"), loader: 'ts' };
      });
    },
  };
}

/**
 * esbuild plugin: Node built-ins become `require()` calls inside the bundle, so the output has no
 * `import` statements and runs as a plain script. (A built-in imported with `await import(…)`,
 * such as `node:http` in src/openai/http.ts, is still only required when that code runs.)
 */
function requireAtRuntimePlugin() {
  const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
  return {
    name: 'require-at-runtime',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => (builtins.has(args.path) ? { path: args.path, namespace: 'runtime-require' } : undefined));
      b.onLoad({ filter: /.*/, namespace: 'runtime-require' }, (args) => ({
        contents: `module.exports = __runtimeRequire(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
    },
  };
}

/**
 * A short run against a loopback endpoint: initialize, session/new and one streamed prompt; then a
 * session with one stdio MCP server (scripts/train-mcp-server.mjs) and a prompt whose answer calls
 * its tool (permission asked and allowed once). At exit the loader writes the V8 code caches of
 * everything that ran: the bundle's, and the MCP client chunk's. Failure only costs start-up
 * time, so it is reported, not fatal.
 */
async function trainCodeCache() {
  const sse = (delta, finish_reason = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
  const text =
    ['Hel', 'lo'].map((t) => sse({ content: t })).join('') +
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } })}\n\ndata: [DONE]\n\n`;
  const toolCall =
    sse({ tool_calls: [{ index: 0, id: 'call_train', type: 'function', function: { name: 'train__echo', arguments: '{"text":"hi"}' } }] }) +
    sse({}, 'tool_calls') +
    'data: [DONE]\n\n';
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (data) => (body += data));
    req.on('end', () => {
      if (req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'train' }] }));
        return;
      }
      // The agent asking who the server is (GET /props, /api/version, …): nobody it knows.
      if (req.method !== 'POST') return void res.writeHead(404).end();
      // The MCP tool is called once, when it is offered and not yet answered; otherwise text.
      const { tools = [], messages = [] } = JSON.parse(body);
      const call = tools.some((tool) => tool.function?.name === 'train__echo') && !messages.some((message) => message.role === 'tool');
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(call ? toolCall : text);
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const scratch = mkdtempSync(join(tmpdir(), 'openai-acp-train-'));
  try {
    // A scratch home: the training run must not read the user's config file or save sessions among theirs.
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: scratch,
      XDG_CONFIG_HOME: join(scratch, 'config'),
      XDG_STATE_HOME: join(scratch, 'state'),
      XDG_CACHE_HOME: join(scratch, 'cache'),
    };
    const child = spawn(process.execPath, [join(out, 'cli.js')], {
      env: { ...env, OPENAI_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, OPENAI_MODEL: 'train', OPENAI_ACP_LOG: 'error' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const answers = new Map();
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (data) => {
      buffer += data;
      for (let i; (i = buffer.indexOf('\n')) >= 0; buffer = buffer.slice(i + 1)) {
        const message = JSON.parse(buffer.slice(0, i));
        // The one request the agent sends: permission for the MCP tool call, allowed once.
        if (message.method === 'session/request_permission') {
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { outcome: { outcome: 'selected', optionId: 'allow_once' } } })}\n`);
        } else if (message.method === undefined) answers.get(message.id)?.(message);
      }
    });
    let id = 0;
    const request = (method, params) =>
      new Promise((done, fail) => {
        answers.set(++id, (message) => (message.error ? fail(new Error(`${method}: ${JSON.stringify(message.error)}`)) : done(message.result)));
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    const exited = new Promise((done) => child.once('exit', done));
    // A child that exits early (a crash, or its directory removed) fails every pending request.
    child.once('exit', (code, signal) => {
      for (const answer of answers.values()) answer({ error: { message: `the training run exited (${code ?? signal})` } });
    });
    const timeout = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => clearTimeout(timeout));
    await request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await request('session/new', { cwd: root, mcpServers: [] });
    await request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    // A session with one stdio MCP server (scripts/train-mcp-server.mjs) and one call of its tool:
    // the MCP client chunk's cache then holds what an MCP session runs.
    const mcpServers = [{ name: 'train', command: process.execPath, args: [join(root, 'scripts', 'train-mcp-server.mjs')], env: [] }];
    const mcp = await request('session/new', { cwd: root, mcpServers });
    const { stopReason } = await request('session/prompt', { sessionId: mcp.sessionId, prompt: [{ type: 'text', text: 'echo hi' }] });
    if (stopReason !== 'end_turn') throw new Error(`the MCP prompt ended with ${stopReason}`);
    child.stdin.end();
    await exited;
    clearTimeout(timeout);
    if (!readdirSync(out).some((name) => name.endsWith('.cache'))) throw new Error('no cache was written');
    if (!readdirSync(join(out, 'chunks')).some((name) => name.startsWith('mcp-connect.lazy.') && name.endsWith('.cache')))
      throw new Error('no cache of the MCP client chunk was written');
  } finally {
    server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

rmSync(out, { recursive: true, force: true });
const chunks = lazyChunks();
const minify = !process.env.BUILD_NO_MINIFY;
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli.ts'],
  outfile: join(out, 'bundle.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify,
  legalComments: 'none',
  sourcemap: 'linked',
  plugins: [zodNamespacePlugin(), lazySchemasPlugin(), chunks.plugin(), requireAtRuntimePlugin()],
  // The loader passes these; `import.meta.url` keeps its meaning (the bundle's file URL).
  define: { 'import.meta.url': '__importMetaUrl' },
  // The function the loader calls (`require`, `__loadChunk`, …).
  ...BUNDLE_WRAPPER,
  logLevel: 'warning',
});
await chunks.buildChunks(out, {
  absWorkingDir: root,
  target: 'node20',
  minify,
  legalComments: 'none',
  sourcemap: 'linked',
  plugins: [zodNamespacePlugin(), lazySchemasPlugin()],
});
// The entry had a shebang line; inside the function wrapper it would be a syntax error.
const bundlePath = join(out, 'bundle.js');
writeFileSync(bundlePath, readFileSync(bundlePath, 'utf8').replace(/^(\(async function [^\n]*\{)\n?#![^\n]*\n/, '$1\n'));
writeLoader(out);
writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
try {
  await trainCodeCache();
  // Only a whole build (its code caches included) is one the next `--if-changed` may keep.
  writeFileSync(join(out, DIGEST_FILE), `${digest}\n`);
} catch (error) {
  console.warn(`build: no V8 code cache (start-up will be slower): ${error.message}`);
}
rmSync(dist, { recursive: true, force: true });
renameSync(out, dist);
