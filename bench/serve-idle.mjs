// `openai-acp serve` under idle connections and a nested message, run alone:
// `node bench/serve-idle.mjs` (after `node scripts/build.mjs`). Loopback only, bounded.
// 1. RSS of the serve process with BENCH_IDLE_SOCKETS (default 512) WebSockets open that never
//    send a byte (upgraded, never initialized), and with as many that sent `initialize` and then
//    nothing; each figure after a settle, against the RSS before the first socket.
// 2. RSS with BENCH_PARTIAL_SOCKETS (default 128) WebSockets that each sent 2 MiB of a 4 MiB text
//    frame and then nothing (the server buffers what came, up to --max-message-bytes): 2 s after
//    they sent it, and again after the handshake time (the default 10 s here, unless
//    BENCH_IDLE_OLD=1, whose build has none).
// 3. `/health` latency while a 15 MiB message nested ~7.8 million levels deep is sent over a
//    WebSocket and over Streamable HTTP: the slowest of the probes sent every 10 ms meanwhile.
// The idle limits are raised so no socket is closed while it is counted.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { scriptEnv } from '../test/helpers/clean-env.mjs';

const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const SOCKETS = Math.max(1, Number(process.env.BENCH_IDLE_SOCKETS ?? 512));
const TOKEN = 'bench-idle-token-0123456789';
const headers = { Authorization: `Bearer ${TOKEN}` };
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startServe(extra = []) {
  const args = ['serve', '--port', '0', '--token', TOKEN, '--root', '/', '--max-connections', String(2 * SOCKETS + 8)];
  // Older builds do not know the idle and per-address flags: BENCH_IDLE_OLD=1 leaves them out.
  if (!process.env.BENCH_IDLE_OLD)
    args.push('--max-connections-per-address', String(2 * SOCKETS + 8), ...(extra.length > 0 ? extra : ['--handshake-timeout-ms', '600000']));
  const child = spawn(process.execPath, [CLI, ...args], {
    env: scriptEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'bench', OPENAI_ACP_LOG: 'error', OPENAI_ACP_TOOLS: 'off' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (data) => {
      stderr += data;
      const found = /openai-acp serve on (http:\/\/\S+)/.exec(stderr);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${stderr}`)));
  });
  return { child, url };
}

function open(url, initialize) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers });
    ws.once('open', () => {
      if (!initialize) return resolve(ws);
      ws.send(INITIALIZE);
      ws.once('message', () => resolve(ws));
    });
    ws.once('error', reject);
  });
}

const PARTIAL = Math.max(1, Number(process.env.BENCH_PARTIAL_SOCKETS ?? 128));

/** A raw upgraded socket that sends the head of a masked 4 MiB text frame and 2 MiB of its payload. */
function partialFrame(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(
        `GET /acp HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
      );
    });
    socket.once('data', () => {
      const head = Buffer.alloc(14);
      head[0] = 0x81;
      head[1] = 0x80 | 127;
      head.writeBigUInt64BE(4n * 1024n * 1024n, 2);
      socket.write(head);
      socket.write(Buffer.alloc(2 * 1024 * 1024, 0x20), () => resolve(socket));
    });
    socket.once('error', reject);
  });
}

async function partialRows() {
  const handshake = process.env.BENCH_IDLE_OLD ? [] : ['--handshake-timeout-ms', '10000'];
  const { child, url } = await startServe(handshake);
  await sleep(1_000);
  const before = rssMiB(child.pid);
  const sockets = [];
  for (let i = 0; i < PARTIAL; i++) sockets.push(await partialFrame(url));
  await sleep(2_000);
  const held = rssMiB(child.pid);
  await sleep(10_000);
  const later = rssMiB(child.pid);
  const closed = sockets.filter((socket) => socket.destroyed || socket.readableEnded).length;
  for (const socket of sockets) socket.destroy();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return [
    `${PARTIAL} WebSockets each 2 MiB into a message: RSS ${held.toFixed(0)} MiB (${before.toFixed(0)} before; ${(((held - before) * 1024) / PARTIAL).toFixed(0)} KiB each); 12 s later ${later.toFixed(0)} MiB, ${closed} of them closed by the server`,
  ];
}

async function idleRows() {
  const rows = [];
  for (const initialize of [false, true]) {
    const { child, url } = await startServe();
    await sleep(1_000);
    const before = rssMiB(child.pid);
    const sockets = [];
    for (let i = 0; i < SOCKETS; i++) sockets.push(await open(url, initialize));
    await sleep(2_000);
    const after = rssMiB(child.pid);
    const kind = initialize ? 'initialized' : 'never initialized';
    rows.push(
      `${SOCKETS} idle WebSockets (${kind}): RSS ${after.toFixed(0)} MiB (${before.toFixed(0)} MiB before them; ${(((after - before) * 1024) / SOCKETS).toFixed(0)} KiB each)`,
    );
    for (const ws of sockets) ws.terminate();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  return rows;
}

/**
 * `/health` asked every 10 ms from a process of its own (this one is busy sending the message);
 * `stop()` resolves with the slowest answer's time in ms.
 */
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

async function healthRows() {
  const { child, url } = await startServe();
  const base = url.replace(/\/acp$/, '');
  const body = nested();
  const rows = [];
  // The same probes with no message: what this machine's load alone costs them.
  const quiet = probe(`${base}/health`);
  await quiet.started;
  await sleep(3_000);
  rows.push(`/health with no message meanwhile (the machine's own noise): slowest answer ${(await quiet.stop()).toFixed(1)} ms`);
  for (const via of ['ws', 'http']) {
    const prober = probe(`${base}/health`);
    await prober.started;
    let outcome;
    if (via === 'ws') {
      const ws = await open(url, true);
      const answer = new Promise((resolve) => {
        ws.once('message', (data) => resolve(String(data).slice(0, 120)));
        ws.once('close', (code) => resolve(`closed ${code}`));
      });
      ws.send(body);
      outcome = await answer;
      ws.terminate();
    } else {
      const init = await fetch(url, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: INITIALIZE });
      const id = init.headers.get('acp-connection-id');
      const cookie = init.headers.get('set-cookie')?.split(';')[0] ?? '';
      const answer = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', 'Acp-Connection-Id': id, Cookie: cookie },
        body,
      }).catch((error) => error);
      outcome = answer instanceof Error ? `failed: ${answer.cause?.code ?? answer.message}` : `HTTP ${answer.status} ${(await answer.text()).slice(0, 120)}`;
    }
    await sleep(200);
    const slowest = await prober.stop();
    rows.push(`/health while a 15 MiB nested message comes over ${via}: slowest answer ${slowest.toFixed(1)} ms (the message: ${outcome})`);
  }
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return rows;
}

for (const row of await idleRows()) console.log(row);
for (const row of await partialRows()) console.log(row);
// BENCH_IDLE_ONLY=1: the memory rows alone (an old build takes minutes over the nested message).
if (!process.env.BENCH_IDLE_ONLY) for (const row of await healthRows()) console.log(row);
