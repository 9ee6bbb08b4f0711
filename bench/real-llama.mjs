// The prompt cache of a real llama.cpp server: one scripted session of the built CLI
// against `llama-server` from the real-llama kit (../shared/tools/real-llama; its README), through
// a loopback proxy that records every chat request and the `timings` of its answer. `prompt_n` is
// what the server had to read for a request after reusing the longest prefix it held (`cache_n`).
// The session: a turn; AGENTS.md edited, a turn; the mode changed, a turn; the agent restarted and
// the session loaded (`session/load`), a turn; then a long tool loop (turns of file reads) in the
// server's 8,192-token window. Every request's prompt_n is printed (BENCH_VERBOSE=1: with its
// messages). Targets: after the first request, none reads more than 300 tokens except the first
// one after the context was cut (old tool results stubbed, or a summary); in the long loop, the
// share of prompt tokens the cache served ≥ 80 %, and no request over the window.
//
// The model is the kit's `readlong` (reads a random file of the kit's small project 92 % of the
// time, else answers) with the Hermes tool template; its choices are random, so the loop's length
// is made by asking again until it has LONG_LOOP_REQUESTS requests. Needs root (the kit runs the
// server in a chroot); skipped with a line saying why when the kit, its models or root are missing.
// REAL_LLAMA_KIT: the kit's folder; REAL_LLAMA_DIR: where its setup put the server and models
// (default ~/.cache/real-llama). Loopback only; the server is stopped and the temp dir removed.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAgent } from './agent-client.mjs';
import { scriptEnv } from '../test/helpers/clean-env.mjs';

const KIT = process.env.REAL_LLAMA_KIT ?? fileURLToPath(new URL('../../shared/tools/real-llama', import.meta.url));
const DATA = process.env.REAL_LLAMA_DIR ?? join(homedir(), '.cache', 'real-llama');
const MODEL = 'readlong';
const WINDOW = 8192;
const READ_TARGET = 300;
const REUSE_TARGET = 0.8;
const LONG_LOOP_REQUESTS = 90;
const MAX_LOOP_TURNS = 40;
const VERBOSE = process.env.BENCH_VERBOSE === '1';

/** Why the bench cannot run here, or undefined. */
function missing() {
  if (!existsSync(join(KIT, 'start-server.sh'))) return `no kit at ${KIT} (set REAL_LLAMA_KIT)`;
  if (!existsSync(join(DATA, 'models', `${MODEL}.gguf`)) || !existsSync(join(DATA, 'sid'))) return `the kit is not set up in ${DATA} (run its setup.sh)`;
  if (process.getuid?.() !== 0) return 'the kit needs root (it runs llama-server in a chroot)';
  return undefined;
}

/** A free loopback port. */
function freePort() {
  return new Promise((resolve) => {
    const probe = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts llama-server through the kit; resolves with its pid and port once /health answers 200. */
async function startServer() {
  const port = await freePort();
  const pid = Number(
    execFileSync(join(KIT, 'start-server.sh'), [MODEL, String(WINDOW), String(port), '--chat-template-file', '/models/hermes.jinja'], {
      env: { ...process.env, REAL_LLAMA_DIR: DATA },
      encoding: 'utf8',
    }).trim(),
  );
  for (let i = 0; i < 240; i++) {
    const status = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return { pid, port };
    await sleep(250);
  }
  process.kill(pid);
  throw new Error(`llama-server on port ${port} did not become healthy (log: ${DATA}/logs)`);
}

/** The `timings` of an SSE or JSON answer, when it has them. */
function timingsOf(text) {
  let found;
  for (const line of text.split('\n')) {
    const data = line.startsWith('data: ') ? line.slice(6) : line;
    if (!data.includes('"timings"')) continue;
    try {
      found = JSON.parse(data).timings ?? found;
    } catch {}
  }
  return found;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A proxy in front of the server recording each chat request: its phase, whether it only appends
 * to the previous request (same tools, the previous messages as its opening messages), whether
 * it asks for a summary, and the answer's prompt_n and cache_n.
 */
function startProxy(target) {
  const requests = [];
  let phase = '';
  let previous;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const chat = req.method === 'POST' && req.url.includes('/chat/completions');
      let entry;
      if (chat) {
        const parsed = JSON.parse(body.toString('utf8'));
        const appends =
          previous !== undefined &&
          same(previous.tools, parsed.tools) &&
          previous.messages.length <= parsed.messages.length &&
          previous.messages.every((m, i) => same(m, parsed.messages[i]));
        const last = parsed.messages.at(-1);
        const summary = !parsed.tools && last?.role === 'user' && /Summari[sz]e/.test(JSON.stringify(last.content));
        entry = { phase, appends, summary, status: 0, messages: parsed.messages.length };
        if (VERBOSE) entry.body = parsed;
        requests.push(entry);
        previous = parsed;
      }
      // A connection of its own per request: llama-server closes each one after a streamed answer.
      const upstream = http.request({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers, agent: false }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const seen = [];
        answer.on('data', (c) => {
          if (entry) seen.push(c);
          res.write(c);
        });
        answer.on('end', () => {
          if (entry) {
            entry.status = answer.statusCode;
            const timings = timingsOf(Buffer.concat(seen).toString('utf8'));
            entry.promptN = timings?.prompt_n;
            entry.cacheN = timings?.cache_n;
          }
          res.end();
        });
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        requests,
        base: `http://127.0.0.1:${server.address().port}/v1`,
        phase: (name) => {
          phase = name;
        },
      }),
    ),
  );
}

/**
 * The kit's project in `dir`, with AGENTS.md, and the agent's environment. Its README.md is made
 * short (the model reads it like the sources): then no tool result is over 300 tokens, so a request
 * reading more than that read something again.
 */
function prepare(base, dir) {
  const ws = join(dir, 'ws');
  cpSync(join(KIT, 'ws'), ws, { recursive: true });
  writeFileSync(join(ws, 'README.md'), '# ws\n\nA small project: `src/math.js` adds, `src/util.js` helps, `src/index.js` runs them.\n');
  writeFileSync(join(ws, 'AGENTS.md'), '# Project rules\n\nUse two spaces for indentation.\n');
  const env = scriptEnv({
    OPENAI_BASE_URL: base,
    OPENAI_API_KEY: 'none',
    OPENAI_MODEL: `/models/${MODEL}.gguf`,
    OPENAI_ACP_LOG: 'error',
    OPENAI_ACP_STATE_DIR: join(dir, 'state'),
    OPENAI_ACP_MAX_STEPS: '60',
  });
  return { env, ws };
}

/** Rows for bench/run.mjs: [what, value, against, ratio, ok]. */
export async function realLlamaRows() {
  const why = missing();
  if (why) return [['real llama-server session', 'skipped', why, '', true]];
  const { pid, port } = await startServer();
  const proxy = await startProxy(port);
  const dir = mkdtempSync(join(tmpdir(), 'openai-acp-real-llama-'));
  try {
    const { env, ws } = prepare(proxy.base, dir);
    const prompt = (agent, sessionId, text) => agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
    let agent = startAgent(env);
    await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { result } = await agent.request('session/new', { cwd: ws, mcpServers: [] });
    const sessionId = result.sessionId;
    proxy.phase('first turn');
    await prompt(agent, sessionId, 'What does add return?');
    writeFileSync(join(ws, 'AGENTS.md'), '# Project rules\n\nUse two spaces for indentation.\nPrefer const over let.\n');
    proxy.phase('after AGENTS.md edit');
    await prompt(agent, sessionId, 'Look again, please.');
    await agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    proxy.phase('after mode change');
    await prompt(agent, sessionId, 'And the other files?');
    await agent.close();
    agent = startAgent(env);
    await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await agent.request('session/load', { sessionId, cwd: ws, mcpServers: [] });
    proxy.phase('after restart + load');
    await prompt(agent, sessionId, 'Where were we?');
    proxy.phase('long loop');
    const loopStart = proxy.requests.length;
    for (let turn = 0; turn < MAX_LOOP_TURNS && proxy.requests.length - loopStart < LONG_LOOP_REQUESTS; turn++)
      await prompt(agent, sessionId, 'Read the files again, one by one.');
    await agent.close();
    return rowsOf(proxy.requests);
  } finally {
    proxy.server.close();
    try {
      process.kill(pid);
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The printed table and the rows. */
function rowsOf(requests) {
  for (const [i, r] of requests.entries()) {
    const mark = i === 0 ? 'first' : r.summary ? 'summary' : r.appends ? '' : 'cut';
    const counts = `prompt_n ${String(r.promptN ?? '?').padStart(5)}  cache_n ${String(r.cacheN ?? '?').padStart(5)}`;
    console.log(`  #${String(i).padStart(3)} ${r.phase.padEnd(22)} ${counts}  ${r.messages} messages ${r.status === 200 ? '' : `HTTP ${r.status}`} ${mark}`);
    if (VERBOSE && !r.appends) console.log(JSON.stringify(r.body.messages.map((m) => [m.role, JSON.stringify(m.content ?? m.tool_calls).slice(0, 100)])));
  }
  const firstOf = (phase) => requests.find((r) => r.phase === phase);
  const rows = [];
  for (const phase of ['after AGENTS.md edit', 'after mode change', 'after restart + load']) {
    const r = firstOf(phase);
    const n = r?.promptN;
    rows.push([`real llama-server: first request ${phase}`, `prompt_n ${n ?? '?'}`, `target ≤ ${READ_TARGET}`, '', n !== undefined && n <= READ_TARGET]);
  }
  const loop = requests.filter((r) => r.phase === 'long loop');
  const cuts = requests.slice(1).filter((r) => !r.appends || r.summary).length;
  const heavy = requests.slice(1).filter((r) => r.appends && !r.summary && (r.promptN ?? 0) > READ_TARGET).length;
  const failed = requests.filter((r) => r.status !== 200).length;
  const read = loop.reduce((sum, r) => sum + (r.promptN ?? 0), 0);
  const cached = loop.reduce((sum, r) => sum + (r.cacheN ?? 0), 0);
  const reuse = cached / Math.max(1, read + cached);
  rows.push([
    'real llama-server: requests reading > 300 tok',
    `${heavy} of ${requests.length - 1}`,
    `outside ${cuts} cuts; ${failed} failed`,
    'target 0',
    heavy === 0 && failed === 0,
  ]);
  rows.push([
    `real llama-server: long loop @${WINDOW / 1024}k reuse`,
    `${(reuse * 100).toFixed(1)} %`,
    `${loop.length} requests, ${read.toLocaleString('en')} tok read`,
    `target ≥ ${REUSE_TARGET * 100} %`,
    reuse >= REUSE_TARGET,
  ]);
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await realLlamaRows();
  for (const [what, value, against, ratio, ok] of rows)
    console.log(`${ok ? 'ok  ' : 'MISS'} ${what.padEnd(48)} ${value.padEnd(16)} ${against.padEnd(34)} ${ratio}`);
  process.exitCode = rows.every((r) => r[4]) ? 0 : 1;
}
