// The prompt cache of a real llama.cpp server: one scripted session of the built CLI (and, in
// bench/real-llama-threads.mjs, two sessions alternating on one server and a /compact)
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
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAgent } from './agent-client.mjs';
import { VERBOSE, WINDOW, missing, prepare, startProxy, startServer } from './real-llama-kit.mjs';
import { realLlamaThreadsRows } from './real-llama-threads.mjs';

const READ_TARGET = 300;
const REUSE_TARGET = 0.8;
const LONG_LOOP_REQUESTS = 90;
const MAX_LOOP_TURNS = 40;

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
  // REAL_LLAMA_PART: `session` (one session), `threads` (two sessions, /compact), or both (default).
  const part = process.env.REAL_LLAMA_PART;
  const rows = [...(part === 'threads' ? [] : await realLlamaRows()), ...(part === 'session' ? [] : await realLlamaThreadsRows())];
  for (const [what, value, against, ratio, ok] of rows)
    console.log(`${ok ? 'ok  ' : 'MISS'} ${what.padEnd(48)} ${value.padEnd(16)} ${against.padEnd(34)} ${ratio}`);
  process.exitCode = rows.every((r) => r[4]) ? 0 : 1;
}
