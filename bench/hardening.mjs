// Issue 11 figures: peak RSS (VmHWM of the agent process) for a 50 MB upstream line, a 30 MB
// prompt and a 100 MB error body, and the time to end a comment-only stream at
// OPENAI_TIMEOUT_MS=2000. Spawns the built CLI against a loopback server; no timed assertions.
//
//   node bench/hardening.mjs [path/to/cli.js]     (default dist/cli.js; pass an older build to compare)
//
// Prints one line per case. A case that does not end within its cap reports "> cap".
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onJsonLines } from './json-lines.mjs';
import { cleanEnv } from '../test/helpers/clean-env.mjs';

const CLI = process.argv[2] ?? fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const MB = 1_000_000;
/** Run only the cases whose label contains this text (`BENCH_CASE=prompt`). */
const ONLY = process.env.BENCH_CASE ?? '';
const want = (label) => label.includes(ONLY);

/** One loopback endpoint whose chat answer `answer(res)` writes. */
async function endpoint(answer) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'bench', object: 'model' }] }));
        return;
      }
      answer(res);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, close: () => (server.closeAllConnections(), server.close()) };
}

const sse = (body) => `data: ${JSON.stringify(body)}\n\n`;
const delta = (content, finish = null) =>
  sse({ id: 'h', object: 'chat.completion.chunk', choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] });

/** Peak resident set of `pid` in MiB (Linux `VmHWM`). */
function peakMiB(pid) {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Spawn the agent, open a session, send `prompt`, and measure until the answer (or `capMs`). */
async function runCase({ url, prompt, env = {}, capMs = 60_000 }) {
  const state = mkdtempSync(join(tmpdir(), 'openai-acp-bench-'));
  const child = spawn(process.execPath, [CLI], {
    env: cleanEnv(state, { OPENAI_BASE_URL: url, OPENAI_MODEL: 'bench', OPENAI_MAX_RETRIES: '0', OPENAI_ACP_LOG: 'error', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  const waiting = new Map();
  onJsonLines(
    child.stdout,
    (message) => {
      if (message?.id !== undefined && message.method === undefined) waiting.get(message.id)?.(message);
    },
    () => undefined,
  );
  const exited = new Promise((resolve) => child.on('exit', () => resolve('exited')));
  const request = (id, method, params) => {
    const answered = new Promise((resolve) => waiting.set(id, resolve));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return Promise.race([answered, exited]);
  };
  try {
    await request(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    const created = await request(2, 'session/new', { cwd: state, mcpServers: [] });
    const sessionId = created.result?.sessionId;
    const idle = peakMiB(child.pid);
    const started = performance.now();
    const cap = new Promise((resolve) => setTimeout(() => resolve('cap'), capMs).unref());
    const answer = await Promise.race([request(3, 'session/prompt', { sessionId, prompt }), cap]);
    const ms = performance.now() - started;
    const peak = answer === 'exited' ? NaN : peakMiB(child.pid);
    return { idle, peak, ms, answer };
  } finally {
    child.kill('SIGKILL');
    rmSync(state, { recursive: true, force: true });
  }
}

const fmt = (n) => (Number.isFinite(n) ? n.toFixed(0) : 'n/a');
const outcome = (answer) => {
  if (answer === 'cap') return 'no answer';
  if (answer === 'exited') return 'process exited';
  if (answer.error) return `error ${answer.error.code}`;
  const failed = answer.result._meta?.['openai-acp']?.error;
  return failed ? `${answer.result.stopReason} (failed: ${failed.kind})` : answer.result.stopReason;
};

async function main() {
  console.log(`openai-acp hardening figures for ${CLI}`);
  if (want('upstream')) {
    // One SSE event with a 50 MB string.
    const line = delta('x'.repeat(50 * MB));
    const server = await endpoint((res) =>
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(line + delta(undefined, 'stop') + 'data: [DONE]\n\n'),
    );
    const r = await runCase({ url: server.url, prompt: [{ type: 'text', text: 'hi' }] });
    console.log(`50 MB upstream line:   peak RSS ${fmt(r.peak)} MiB (idle ${fmt(r.idle)} MiB), ${outcome(r.answer)} in ${fmt(r.ms)} ms`);
    server.close();
  }
  if (want('prompt')) {
    const server = await endpoint((res) =>
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(delta('ok') + delta(undefined, 'stop') + 'data: [DONE]\n\n'),
    );
    const r = await runCase({ url: server.url, prompt: [{ type: 'text', text: 'p'.repeat(30 * MB) }] });
    console.log(
      `30 MB prompt:          peak RSS ${fmt(r.peak)} MiB (idle ${fmt(r.idle)} MiB; growth ${((r.peak - r.idle) / ((30 * MB) / 1048576)).toFixed(1)}x the prompt), ${outcome(r.answer)} in ${fmt(r.ms)} ms`,
    );
    server.close();
  }
  if (want('error body')) {
    const server = await endpoint((res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('e'.repeat(100 * MB)));
    const r = await runCase({ url: server.url, prompt: [{ type: 'text', text: 'hi' }] });
    console.log(`100 MB error body:     peak RSS ${fmt(r.peak)} MiB (idle ${fmt(r.idle)} MiB), ${outcome(r.answer)} in ${fmt(r.ms)} ms`);
    server.close();
  }
  if (want('comment')) {
    const server = await endpoint((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(': ping\n\n'), 250);
      res.on('close', () => clearInterval(timer));
    });
    const r = await runCase({ url: server.url, prompt: [{ type: 'text', text: 'hi' }], env: { OPENAI_TIMEOUT_MS: '2000' }, capMs: 30_000 });
    console.log(`comment-only stream:   ${r.answer === 'cap' ? '> 30000' : fmt(r.ms)} ms to end at OPENAI_TIMEOUT_MS=2000 (${outcome(r.answer)})`);
    server.close();
  }
}

await main();
