// `/health` of `openai-acp serve` while messages nested ~7.8 million levels deep (15 MiB, under the
// 16 MiB limit) are refused, over a WebSocket and over Streamable HTTP. Run by bench/run.mjs, or
// alone: `node bench/serve-nested.mjs` (after `node scripts/build.mjs`). Loopback only, bounded.
//
// A probe process of its own (this one is busy sending) asks `/health` every 10 ms; a figure is the
// slowest answer while one message goes out and its refusal comes back, the median over
// BENCH_NESTED_RUNS runs per transport (default 5; the worst run in brackets), with the CPU time the
// serve process spent meanwhile (median, from /proc: what the load of the machine does not change). The same probes with
// no message measure what the machine's own load costs them. Target: ≤ 100 ms (issue: one message
// must not hold the other clients up). The 1-minute load average is printed with the figures: on a
// busy machine the probe's own scheduling shows in every row.
//
// BENCH_CLI: another build to measure (e.g. an older dist/cli.js). BENCH_NODE_ARGS: node flags for
// the serve process (`--cpu-prof --cpu-prof-dir=/tmp/prof` to see where its time goes).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { startServe } from './serve-process.mjs';

const RUNS = Math.max(1, Number(process.env.BENCH_NESTED_RUNS ?? 5));
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const TARGET_MS = 100;
const TOKEN = 'bench-nested-token-0123456789';
const headers = { Authorization: `Bearer ${TOKEN}` };
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** CPU time the process `pid` has used, in ms (Linux `/proc/<pid>/stat` utime + stime at 100 ticks/s; NaN elsewhere). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** `/health` asked every 10 ms from a process of its own; `stop()` resolves with the slowest answer's time in ms. */
function probe(url) {
  const code = `let slowest = 0, stop = false; process.stdin.on('data', () => (stop = true)); process.stdout.write('started\\n');
    while (!stop) { const t = performance.now(); try { await fetch(${JSON.stringify(url)}); } catch {} slowest = Math.max(slowest, performance.now() - t); await new Promise((r) => setTimeout(r, 10)); }
    process.stdout.write(String(slowest) + '\\n'); process.exit(0);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  const started = new Promise((resolve) =>
    child.stdout.on('data', (data) => {
      out += data;
      if (out.includes('started')) resolve();
    }),
  );
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.write('x');
    await exited;
    return Number(out.trim().split('\n').at(-1));
  };
  return { started, stop };
}

/** 15 MiB of `[` … `]`, depth ~7.8 million, inside a JSON-RPC request. */
function nested() {
  const depth = Math.floor((15 * 1024 * 1024 - 200) / 2);
  return `{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"cursor":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
}

function openSocket(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers });
    ws.once('open', () => {
      ws.send(INITIALIZE);
      ws.once('message', () => resolve(ws));
    });
    ws.once('error', reject);
  });
}

/** Sends `body` over `via` on a new connection; resolves with what came back, in words. */
async function send(url, via, body) {
  if (via === 'ws') {
    const ws = await openSocket(url);
    const answer = new Promise((resolve) => {
      ws.once('message', (data) => resolve(String(data).slice(0, 100)));
      ws.once('close', (code) => resolve(`closed ${code}`));
    });
    ws.send(body);
    const outcome = await answer;
    ws.terminate();
    return outcome;
  }
  const init = await fetch(url, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: INITIALIZE });
  const mine = { ...headers, 'Acp-Connection-Id': init.headers.get('acp-connection-id'), Cookie: init.headers.get('set-cookie')?.split(';')[0] ?? '' };
  const answer = await fetch(url, { method: 'POST', headers: { ...mine, 'Content-Type': 'application/json' }, body }).catch((error) => error);
  await fetch(url, { method: 'DELETE', headers: mine }).catch(() => undefined);
  return answer instanceof Error ? `failed: ${answer.cause?.code ?? answer.message}` : `HTTP ${answer.status} ${(await answer.text()).slice(0, 100)}`;
}

/** The rows, as bench/run.mjs prints them: [what, value, against, note, ok]. */
export async function nestedRows(runs = RUNS) {
  const { child, url } = await startServe({ token: TOKEN, nodeArgs: NODE_ARGS });
  const base = url.replace(/\/acp$/, '');
  const body = nested();
  const rows = [];
  try {
    await sleep(1_000);
    const quiet = probe(`${base}/health`);
    await quiet.started;
    await sleep(3_000);
    const noise = await quiet.stop();
    rows.push(['serve: /health, no message (machine noise)', `${noise.toFixed(1)} ms`, `load ${loadavg()[0].toFixed(2)}`, '', true]);
    for (const via of ['ws', 'http']) {
      const slowest = [];
      const cpu = [];
      let outcome = '';
      for (let run = 0; run < runs; run++) {
        const prober = probe(`${base}/health`);
        await prober.started;
        await sleep(300);
        const cpuBefore = cpuMs(child.pid);
        outcome = await send(url, via, body);
        await sleep(200);
        cpu.push(cpuMs(child.pid) - cpuBefore);
        slowest.push(await prober.stop());
      }
      const ok = outcome.includes('-32600') && median(slowest) <= TARGET_MS;
      rows.push([
        `serve: /health under a 15 MiB nested (${via})`,
        `${median(slowest).toFixed(1)} ms [max ${Math.max(...slowest).toFixed(1)}]`,
        `target ≤ ${TARGET_MS} ms, load ${loadavg()[0].toFixed(2)}`,
        `${outcome.includes('-32600') ? 'refused -32600' : `not refused: ${outcome}`}; serve CPU ${median(cpu).toFixed(0)} ms/message`,
        ok,
      ]);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [what, value, against, note, ok] of await nestedRows())
    console.log(`${ok ? 'ok  ' : 'MISS'} ${what.padEnd(44)} ${value.padEnd(24)} ${against.padEnd(34)} ${note}`);
}
