// npm run bench: start-up, relay speed, CPU and memory of the built CLI, each against a baseline.
// Targets (issue 2): cold start <= 1.5x bare node; relay >= 100,000 tokens/s and <= 1.5x a plain
// fetch read of the same stream; peak RSS <= 80 MiB. Loopback only. Prints a table and exits 1
// when a target is missed, so a regression is visible.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const TOKENS = 20_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One line of JSON-RPC in, the time until the first line out, in ms. */
async function timeToFirstLine(args, env = {}) {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const ms = performance.now() - t0;
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  return ms;
}

const BARE = "process.stdin.once('data',()=>{process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:1,result:{protocolVersion:1}})+'\\n')})";

// The stream: one content delta per token, then finish, usage and [DONE].
const piece = (t) => `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: t }, finish_reason: null }] })}\n\n`;
const parts = [];
for (let i = 0; i < TOKENS; i++) parts.push(piece(` t${i % 100}`));
parts.push(`data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: TOKENS, total_tokens: TOKENS + 5 } })}\n\n`, 'data: [DONE]\n\n');
const body = Buffer.from(parts.join(''));

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // 16 KiB writes, as a real server's socket would deliver them.
    for (let offset = 0; offset < body.length; offset += 16_384) res.write(body.subarray(offset, offset + 16_384));
    res.end();
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}/v1`;

async function plainRead() {
  const t0 = performance.now();
  const res = await fetch(`${base}/chat/completions`, { method: 'POST', body: '{}' });
  let bytes = 0;
  for await (const b of res.body) bytes += b.length;
  if (bytes !== body.length) throw new Error('short read');
  return performance.now() - t0;
}

function procStat(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuMs: (ticks * 1000) / 100, peakKiB: hwm ? Number(hwm[1]) : NaN };
}

/** Relay one 20,000-token turn through the agent; returns ms, CPU ms and peak RSS. */
async function relay() {
  const child = spawn(process.execPath, [CLI], {
    env: { PATH: process.env.PATH, OPENAI_BASE_URL: base, OPENAI_MODEL: 'bench', OPENAI_ACP_LOG: 'error' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let buf = '';
  let text = 0;
  const waiting = new Map();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (m.method === 'session/update' && m.params.update.sessionUpdate === 'agent_message_chunk') text += m.params.update.content.text.length;
      if (m.id !== undefined && waiting.has(m.id)) waiting.get(m.id)(m);
    }
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { result } = await request('session/new', { cwd: '/', mcpServers: [] });
  // Warm-up turn (loads undici, JIT), then the measured turn.
  await request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'warm up' }] });
  text = 0;
  const before = procStat(child.pid);
  const t0 = performance.now();
  const answer = await request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'go' }] });
  const ms = performance.now() - t0;
  const after = procStat(child.pid);
  if (answer.result?.stopReason !== 'end_turn' || text === 0) throw new Error(`relay failed: ${JSON.stringify(answer)}`);
  child.kill('SIGKILL');
  return { ms, cpuMs: after.cpuMs - before.cpuMs, peakMiB: after.peakKiB / 1024 };
}

const bare = [];
const agent = [];
for (let i = 0; i < RUNS; i++) {
  bare.push(await timeToFirstLine(['-e', BARE]));
  agent.push(await timeToFirstLine([CLI], { OPENAI_ACP_LOG: 'error' }));
}
await plainRead();
const plain = [];
const relays = [];
for (let i = 0; i < RUNS; i++) {
  plain.push(await plainRead());
  relays.push(await relay());
}
server.close();

const coldBare = median(bare);
const coldAgent = median(agent);
const relayMs = median(relays.map((r) => r.ms));
const plainMs = median(plain);
const tokensPerSecond = (TOKENS / relayMs) * 1000;
const cpuPer1k = median(relays.map((r) => r.cpuMs)) / (TOKENS / 1000);
const peak = Math.max(...relays.map((r) => r.peakMiB));
const rows = [
  ['cold start (spawn → initialize answered)', `${coldAgent.toFixed(1)} ms`, `bare node ${coldBare.toFixed(1)} ms`, `${(coldAgent / coldBare).toFixed(2)}x`, coldAgent <= 1.5 * coldBare],
  ['relay of 20,000 tokens', `${relayMs.toFixed(1)} ms`, `plain fetch read ${plainMs.toFixed(1)} ms`, `${(relayMs / plainMs).toFixed(2)}x`, relayMs <= 1.5 * plainMs],
  ['relay throughput', `${Math.round(tokensPerSecond).toLocaleString('en')} tokens/s`, 'target ≥ 100,000', '', tokensPerSecond >= 100_000],
  ['CPU per 1,000 tokens', `${cpuPer1k.toFixed(2)} ms`, '', '', true],
  ['peak RSS', `${peak.toFixed(1)} MiB`, 'target ≤ 80 MiB', '', peak <= 80],
];
for (const [what, value, against, ratio, ok] of rows) console.log(`${ok ? 'ok  ' : 'MISS'} ${what.padEnd(42)} ${value.padEnd(22)} ${against.padEnd(26)} ${ratio}`);
process.exitCode = rows.every((r) => r[4]) ? 0 : 1;
