// Search figures of `npm run bench` (search_files; run alone with `node bench/search.mjs` after a build):
// - on a generated tree of 50,000 files (500 folders of 100 small JavaScript files, no .gitignore,
//   in a temp directory), the agent's time to find a name defined once, in the last folder, with
//   search_files: from the tool_call to its completed tool_call_update, as the client sees it.
//   Against `rg -l` alone on the same tree (spawn to exit); target <= 2x rg or rg + 300 ms.
// - the same search by the built-in JavaScript search (OPENAI_ACP_RIPGREP=off), and whether it
//   found the name within its time budget (no target: the fallback; the figure says how far it is).
// - a name on every line of every file (`createHash`), by both: the first 200 matches.
// - cancel latency under a catastrophic pattern (`^(a+)+$` over 36 `a` and a `!`, JavaScript
//   search): from `session/cancel` sent to the prompt's `cancelled` answer; target <= 100 ms.
// Medians of BENCH_SEARCH_RUNS runs (default 5) [min], after a discarded warm-up (the tree then in the
// page cache for every contender alike). Loopback only; the tree is removed afterwards.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onJsonLines } from './json-lines.mjs';
import { sse, startModelServer } from './model-server.mjs';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const FOLDERS = 500;
const PER_FOLDER = 100;
const NAME = 'computeUniqueBenchNeedle';
const RUNS = Math.max(1, Number(process.env.BENCH_SEARCH_RUNS ?? 5));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const line = (m) => `${JSON.stringify(m)}\n`;

/** The tree: 50,000 files of ~20 lines each; NAME defined once, in the last folder's last file. */
function makeTree() {
  const root = mkdtempSync(join(tmpdir(), 'openai-acp-bench-search-'));
  const body = (f, i) =>
    Array.from(
      { length: 20 },
      (_, k) => `export function helper_${f}_${i}_${k}(value) { return String(value).padStart(${k % 7}, ' ') + createHash('sha256'); }`,
    ).join('\n') + '\n';
  for (let f = 0; f < FOLDERS; f++) {
    const dir = join(root, `pkg${String(f).padStart(3, '0')}`, 'lib');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < PER_FOLDER; i++) writeFileSync(join(dir, `m${i}.js`), body(f, i));
  }
  writeFileSync(join(root, `pkg${FOLDERS - 1}`, 'lib', `m${PER_FOLDER - 1}.js`), `${body(FOLDERS - 1, PER_FOLDER - 1)}export function ${NAME}() {}\n`);
  mkdirSync(join(root, 'redos'));
  writeFileSync(join(root, 'redos', 'a.txt'), `${'a'.repeat(36)}!\n`);
  return root;
}

/** `rg -l NAME root`, spawn to exit, in ms. */
function timeRg(root) {
  const t0 = performance.now();
  const run = spawnSync('rg', ['--no-config', '-l', NAME, root], { encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (!run.stdout.includes(`m${PER_FOLDER - 1}.js`)) throw new Error(`rg did not find the name: ${run.stderr}`);
  return ms;
}

/** A model that answers each prompt with one search_files call (its arguments from the prompt text), then "done". */
function startModel() {
  return startModelServer(({ messages }, res) => {
    const last = messages[messages.length - 1];
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const delta =
      last.role === 'user'
        ? {
            tool_calls: [
              {
                index: 0,
                id: `call_${Date.now()}`,
                type: 'function',
                function: {
                  name: 'search_files',
                  arguments: JSON.parse(typeof last.content === 'string' ? last.content : last.content.map((p) => p.text ?? '').join('')).args,
                },
              },
            ],
          }
        : { content: 'done' };
    res.write(sse({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] }));
    res.write(
      sse({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: last.role === 'user' ? 'tool_calls' : 'stop' }] }),
    );
    res.end('data: [DONE]\n\n');
  }).then(({ server }) => server);
}

/** One agent process on `root`, with `env`; `search(args)` runs one prompt and times its search_files call. */
async function startAgent(base, root, env) {
  const child = spawn(process.execPath, [CLI], {
    env: { PATH: process.env.PATH, HOME: root, OPENAI_BASE_URL: base, OPENAI_MODEL: 'bench', OPENAI_ACP_LOG: 'error', OPENAI_ACP_STATE_DIR: 'off', ...env },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let id = 0;
  const waiting = new Map();
  const watchers = new Set();
  onJsonLines(child.stdout, (m) => {
    if (m.id !== undefined && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    }
    for (const watch of watchers) watch(m);
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(line({ jsonrpc: '2.0', id, method, params }));
    });
  await request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { result } = await request('session/new', { cwd: root, mcpServers: [] });
  const sessionId = result.sessionId;
  return {
    /** Runs one prompt; resolves with ms from the tool_call to its final update, and that update's text. */
    async search(args, { cancelAfterStartMs } = {}) {
      let started = 0;
      let ended = 0;
      let text = '';
      let cancelledAt = 0;
      const watch = (m) => {
        const u = m.method === 'session/update' && m.params.sessionId === sessionId ? m.params.update : undefined;
        if (u?.sessionUpdate === 'tool_call') {
          started = performance.now();
          if (cancelAfterStartMs !== undefined) {
            setTimeout(() => {
              cancelledAt = performance.now();
              child.stdin.write(line({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } }));
            }, cancelAfterStartMs);
          }
        }
        if (u?.sessionUpdate === 'tool_call_update' && (u.status === 'completed' || u.status === 'failed')) {
          ended = performance.now();
          text = u.content?.map((c) => c.content?.text ?? '').join('') ?? '';
        }
      };
      watchers.add(watch);
      const answer = await request('session/prompt', { sessionId, prompt: [{ type: 'text', text: JSON.stringify({ args: JSON.stringify(args) }) }] });
      const answeredAt = performance.now();
      watchers.delete(watch);
      return { ms: ended - started, text, stopReason: answer.result?.stopReason, cancelMs: cancelledAt ? answeredAt - cancelledAt : NaN };
    },
    stop() {
      child.kill('SIGKILL');
    },
  };
}

const fmt = (xs) => `${median(xs).toFixed(0)} ms [${Math.min(...xs).toFixed(0)}]`;

/** Rows for bench/run.mjs: [what, value, against, ratio, ok]. */
export async function searchRows() {
  const hasRg = spawnSync('rg', ['--version']).status === 0;
  const root = makeTree();
  const server = await startModel();
  const base = `http://127.0.0.1:${server.address().port}/v1`;
  const rows = [];
  try {
    const find = { pattern: NAME };
    if (hasRg) {
      const agent = await startAgent(base, root, {});
      const ours = [];
      const alone = [];
      timeRg(root);
      await agent.search(find);
      for (let i = 0; i < RUNS; i++) {
        alone.push(timeRg(root));
        const run = await agent.search(find);
        if (!run.text.includes(NAME)) throw new Error(`search_files did not find the name: ${run.text.slice(0, 300)}`);
        ours.push(run.ms);
      }
      const common = [];
      for (let i = 0; i < RUNS; i++) common.push((await agent.search({ pattern: 'createHash' })).ms);
      agent.stop();
      const target = Math.max(2 * median(alone), median(alone) + 300);
      rows.push([
        `search 50k files, unique name (ripgrep)`,
        fmt(ours),
        `rg alone ${fmt(alone)}`,
        `${(median(ours) / median(alone)).toFixed(2)}x`,
        median(ours) <= target,
      ]);
      rows.push(['search 50k files, common name (ripgrep)', fmt(common), 'first 200 matches', '', true]);
    } else {
      rows.push(['search 50k files, unique name (ripgrep)', 'skipped', 'rg is not on the PATH', '', true]);
    }
    const fallback = await startAgent(base, root, { OPENAI_ACP_RIPGREP: 'off' });
    const js = [];
    let found = true;
    let stopped = '';
    await fallback.search(find);
    for (let i = 0; i < Math.min(RUNS, 3); i++) {
      const run = await fallback.search(find);
      js.push(run.ms);
      found &&= run.text.includes(NAME);
      stopped = /\[stopped after [^\]]*\]/.exec(run.text)?.[0] ?? stopped;
    }
    rows.push(['search 50k files, unique name (built-in)', fmt(js), found ? 'found' : `not found: ${stopped}`, '', true]);
    const jsCommon = [];
    for (let i = 0; i < Math.min(RUNS, 3); i++) jsCommon.push((await fallback.search({ pattern: 'createHash' })).ms);
    rows.push(['search 50k files, common name (built-in)', fmt(jsCommon), 'first 200 matches', '', true]);
    const cancels = [];
    for (let i = 0; i < RUNS; i++) {
      const run = await fallback.search({ pattern: '^(a+)+$', path: 'redos' }, { cancelAfterStartMs: 200 });
      if (run.stopReason !== 'cancelled') throw new Error(`the catastrophic search was not cancelled: ${run.stopReason} ${run.text}`);
      cancels.push(run.cancelMs);
    }
    fallback.stop();
    rows.push(['cancel during a catastrophic pattern (built-in)', fmt(cancels), 'target <= 100 ms', '', median(cancels) <= 100]);
  } finally {
    server.close();
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await searchRows();
  for (const [what, value, against, ratio, ok] of rows)
    console.log(`${ok ? 'ok  ' : 'MISS'} ${what.padEnd(48)} ${value.padEnd(18)} ${against.padEnd(34)} ${ratio}`);
  process.exitCode = rows.every((r) => r[4]) ? 0 : 1;
}
