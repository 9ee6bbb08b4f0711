// npm run bench: start-up, relay speed, CPU and memory of the built CLI, each against a baseline.
// Targets (the tool figures are in bench/tools.mjs, the agent's
// efficiency in small context windows in bench/agent-efficiency.mjs, search_files on
// 50,000 files and its cancel in bench/search.mjs, near-miss tool calls of small models in
// bench/small-model.mjs, `node bench/small-model.mjs` alone; calls written as text in hostile
// answers in bench/text-calls.mjs; the prompt cache of a real llama-server in bench/real-llama.mjs,
// skipped with a line saying why without the kit; `openai-acp serve` under 200 clients in
// bench/serve.mjs, `/health` while 15 MiB nested messages are refused in bench/serve-nested.mjs, and
// the soak in bench/soak.mjs, run alone): cold start
// <= 1.5x bare node; relay >= 100,000 tokens/s and <= 1.5x a plain fetch read of the same
// stream; peak RSS <= 80 MiB. Loopback only. Prints a table (each figure with its target) and
// exits 0; with `--check` (`npm run bench -- --check`) it exits 1 when a target is missed. The
// targets were set on a 2-core machine; figures vary with the machine and its load.
//
// Fairness: baseline and agent runs are interleaved (machine load hits both alike), the first
// run of each is a discarded warm-up, figures are medians of BENCH_RUNS runs (default 9; min in
// brackets), the relay and the plain read fetch the very same bytes from the same loopback
// server, and the relayed text is checked to be exactly the streamed text.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { onJsonLines } from './json-lines.mjs';
import { scriptEnv } from '../test/helpers/clean-env.mjs';
import { toolRows } from './tools.mjs';
import { efficiencyRows } from './agent-efficiency.mjs';
import { modeSwitchRows } from './mode-switch.mjs';
import { searchRows } from './search.mjs';
import { smallModelRows } from './small-model.mjs';
import { textCallRows } from './text-calls.mjs';
import { serveRows } from './serve.mjs';
import { nestedRows } from './serve-nested.mjs';
import { realLlamaRows } from './real-llama.mjs';
import { realLlamaThreadsRows } from './real-llama-threads.mjs';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const TOKENS = 20_000;
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 9));
/** `--check`: exit 1 when a target is missed (default: print and exit 0). */
const CHECK = process.argv.includes('--check');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;

// The stream: one content delta per token, then finish, usage and [DONE].
const piece = (t) =>
  `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: t }, finish_reason: null }] })}\n\n`;
const parts = [];
let expectedText = '';
for (let i = 0; i < TOKENS; i++) {
  parts.push(piece(` t${i % 100}`));
  expectedText += ` t${i % 100}`;
}
parts.push(
  `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: TOKENS, total_tokens: TOKENS + 5 } })}\n\n`,
  'data: [DONE]\n\n',
);
const body = Buffer.from(parts.join(''));

// A loopback endpoint: `GET /models` lists one model (the agent asks at `initialize`), every other
// request gets the stream in 16 KiB writes, as a real server's socket would deliver it.
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method === 'GET' && req.url?.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'bench', object: 'model' }] }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let offset = 0; offset < body.length; offset += 16_384) res.write(body.subarray(offset, offset + 16_384));
    res.end();
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}/v1`;
/** The agent as configured for a real endpoint (also used for the relay). */
const CONFIGURED = { OPENAI_BASE_URL: base, OPENAI_MODEL: 'bench', OPENAI_ACP_LOG: 'error' };
/** Nothing configured: the agent looks for a local server (Ollama, LM Studio, …) at start-up. */
const UNCONFIGURED = { OPENAI_ACP_LOG: 'error' };

/** Spawn `node ...args`, write one `initialize` line, and time the first line out, in ms. */
async function timeToFirstLine(args, env) {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { env: scriptEnv(env), stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdin.write(INITIALIZE);
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const ms = performance.now() - t0;
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  return ms;
}

const BARE = "process.stdin.once('data',()=>{process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:1,result:{protocolVersion:1}})+'\\n')})";

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

/** Relay one 20,000-token turn through the agent; returns ms, CPU ms and peak RSS (whole life). */
async function relay() {
  const child = spawn(process.execPath, [CLI], { env: scriptEnv(CONFIGURED), stdio: ['pipe', 'pipe', 'ignore'] });
  let text = '';
  const waiting = new Map();
  onJsonLines(child.stdout, (m) => {
    if (m.method === 'session/update' && m.params.update.sessionUpdate === 'agent_message_chunk') text += m.params.update.content.text;
    if (m.id !== undefined && waiting.has(m.id)) waiting.get(m.id)(m);
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { result } = await request('session/new', { cwd: '/', mcpServers: [] });
  // Warm-up turn (loads node:http, JIT), then the measured turn.
  await request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'warm up' }] });
  text = '';
  const before = procStat(child.pid);
  const t0 = performance.now();
  const answer = await request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'go' }] });
  const ms = performance.now() - t0;
  const after = procStat(child.pid);
  child.kill('SIGKILL');
  if (answer.result?.stopReason !== 'end_turn' || text !== expectedText)
    throw new Error(`relay failed: ${JSON.stringify(answer).slice(0, 300)} (text ${text.length}/${expectedText.length} chars)`);
  return { ms, cpuMs: after.cpuMs - before.cpuMs, peakMiB: after.peakKiB / 1024 };
}

const cold = { bare: [], configured: [], unconfigured: [] };
for (let i = 0; i <= RUNS; i++) {
  const bare = await timeToFirstLine(['-e', BARE], {});
  const configured = await timeToFirstLine([CLI], CONFIGURED);
  const unconfigured = await timeToFirstLine([CLI], UNCONFIGURED);
  if (i === 0) continue; // warm-up
  cold.bare.push(bare);
  cold.configured.push(configured);
  cold.unconfigured.push(unconfigured);
}
const plain = [];
const relays = [];
await plainRead();
await relay();
for (let i = 0; i < RUNS; i++) {
  plain.push(await plainRead());
  relays.push(await relay());
}
server.close();

const ms = (xs) => `${median(xs).toFixed(1)} ms [${Math.min(...xs).toFixed(1)}]`;
const coldBare = median(cold.bare);
const relayMs = median(relays.map((r) => r.ms));
const plainMs = median(plain);
const tokensPerSecond = (TOKENS / relayMs) * 1000;
const cpuPer1k = median(relays.map((r) => r.cpuMs)) / (TOKENS / 1000);
const peak = Math.max(...relays.map((r) => r.peakMiB));
const rows = [
  [
    'cold start, endpoint configured',
    ms(cold.configured),
    `bare node ${ms(cold.bare)}`,
    `${(median(cold.configured) / coldBare).toFixed(2)}x (≤ 1.5x)`,
    median(cold.configured) <= 1.5 * coldBare,
  ],
  [
    'cold start, nothing configured (discovery)',
    ms(cold.unconfigured),
    `bare node ${ms(cold.bare)}`,
    `${(median(cold.unconfigured) / coldBare).toFixed(2)}x (≤ 1.5x)`,
    median(cold.unconfigured) <= 1.5 * coldBare,
  ],
  [
    'relay of 20,000 tokens',
    ms(relays.map((r) => r.ms)),
    `plain fetch read ${ms(plain)}`,
    `${(relayMs / plainMs).toFixed(2)}x (≤ 1.5x)`,
    relayMs <= 1.5 * plainMs,
  ],
  ['relay throughput', `${Math.round(tokensPerSecond).toLocaleString('en')} tokens/s`, 'target ≥ 100,000', '', tokensPerSecond >= 100_000],
  ['CPU per 1,000 tokens', `${cpuPer1k.toFixed(2)} ms`, '(no target)', '', true],
  ['peak RSS (whole session, worst run)', `${peak.toFixed(1)} MiB`, 'target ≤ 80 MiB', '', peak <= 80],
];
// The tool figures: bench/tools.mjs.
rows.push(...(await toolRows(RUNS)));
// Agent efficiency in 4k–32k windows: bench/agent-efficiency.mjs.
rows.push(...(await efficiencyRows()));
rows.push(...(await modeSwitchRows()));
rows.push(...(await searchRows()));
// Near-miss tool calls of small models: bench/small-model.mjs.
rows.push(...(await smallModelRows()));
// Calls written as text in hostile answers: bench/text-calls.mjs.
for (const [what, readMs, calls, holdMs, ok] of await textCallRows())
  rows.push([`text calls: ${what}`, `${readMs.toFixed(1)} ms read`, `${holdMs.toFixed(1)} ms streamed, ${calls} calls`, 'target <= 100 ms', ok]);
// The prompt cache of a real llama-server: bench/real-llama.mjs, skipped without the kit.
rows.push(...(await realLlamaRows()));
rows.push(...(await realLlamaThreadsRows()));
// `openai-acp serve` with 100 WebSocket and 100 Streamable HTTP clients: bench/serve.mjs.
rows.push(...(await serveRows()));
// `/health` while 15 MiB nested messages are refused over each transport: bench/serve-nested.mjs.
rows.push(...(await nestedRows()));
console.log(`median of ${RUNS} runs [min]`);
for (const [what, value, against, ratio, ok] of rows)
  console.log(`${ok ? 'ok  ' : 'MISS'} ${what.padEnd(44)} ${value.padEnd(24)} ${against.padEnd(34)} ${ratio}`);
const missed = rows.filter((r) => !r[4]).length;
if (missed > 0) console.log(`${missed} target(s) missed${CHECK ? '' : ' (exit code 0; `npm run bench -- --check` fails on a miss)'}`);
process.exitCode = CHECK && missed > 0 ? 1 : 0;
