// `openai-acp serve` under idle connections, run alone:
// `node bench/serve-idle.mjs` (after `node scripts/build.mjs`). Loopback only, bounded.
// 1. RSS of the serve process with BENCH_IDLE_SOCKETS (default 512) WebSockets open that never
//    send a byte (upgraded, never initialized), and with as many that sent `initialize` and then
//    nothing; each figure after a settle, against the RSS before the first socket.
// 2. RSS with BENCH_PARTIAL_SOCKETS (default 128) WebSockets that each sent 2 MiB of a 4 MiB text
//    frame and then nothing (the server buffers what came, up to --max-message-bytes): 2 s after
//    they sent it, and again after the handshake time (the default 10 s here, unless
//    BENCH_IDLE_OLD=1, whose build has none).
// (`/health` while nested messages are refused: bench/serve-nested.mjs.)
// The idle limits are raised so no socket is closed while it is counted.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import WebSocket from 'ws';
import { startServe } from './serve-process.mjs';

const SOCKETS = Math.max(1, Number(process.env.BENCH_IDLE_SOCKETS ?? 512));
const TOKEN = 'bench-idle-token-0123456789';
const headers = { Authorization: `Bearer ${TOKEN}` };
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function startIdleServe(extra = []) {
  const args = ['--max-connections', String(2 * SOCKETS + 8)];
  // Older builds do not know the idle and per-address flags: BENCH_IDLE_OLD=1 leaves them out.
  if (!process.env.BENCH_IDLE_OLD)
    args.push('--max-connections-per-address', String(2 * SOCKETS + 8), ...(extra.length > 0 ? extra : ['--handshake-timeout-ms', '600000']));
  return startServe({ token: TOKEN, args });
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
  const { child, url } = await startIdleServe(handshake);
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
    const { child, url } = await startIdleServe();
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

for (const row of await idleRows()) console.log(row);
for (const row of await partialRows()) console.log(row);
