// The soak of many long sessions: `node bench/soak.mjs` (after `node scripts/build.mjs`). One agent on stdio
// with SOAK_SESSIONS sessions (default 20) in full-access mode, each running SOAK_TURNS tool turns
// (default 2,500) back to back, the sessions in step (each round, one turn of every session at
// once) against a loopback mock model: reads, writes, edits, commands, searches, cancels (a
// command cancelled while it runs) and a `/compact` every 50 turns. Then the agent is killed with
// SIGKILL in the middle of a turn, and a fresh one loads every session.
//
// Targets (printed with the figures; exit code 1 with --check when one is missed):
// - RSS once the load has drained within 15 % of minute one (or of the first run's peak, for a
//   run shorter than a minute), and within 1.5x a fresh process holding the same sessions (after
//   session/load of each);
// - CPU per turn (the agent's own, /proc/<pid>/stat) flat, within 20 %, from turns 100-199 to the
//   last 100 turns of a session;
// - nothing lost: every saved turn of every session replayed in order after the SIGKILL, every file
//   the turns wrote as expected; descriptors and child processes back to where they were.
// Bounded (SOAK_TURNS x SOAK_SESSIONS turns), loopback only, everything in a temp home.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onJsonLines } from './json-lines.mjs';
import { sse, startModelServer } from './model-server.mjs';
import { makeHome, removeHome, cleanEnv } from '../test/helpers/clean-env.mjs';

const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const SESSIONS = Math.max(1, Number(process.env.SOAK_SESSIONS ?? 20));
const TURNS = Math.max(300, Number(process.env.SOAK_TURNS ?? 2_500));
const CHECK = process.argv.includes('--check');
const KINDS = ['read', 'write', 'edit', 'command', 'search', 'read', 'write', 'edit', 'cancel', 'command'];
const COMPACT_EVERY = 50;

/** What a turn of a session does: a tool call of `kind`, or `/compact`. */
const turnKind = (n) => (n > 0 && n % COMPACT_EVERY === 0 ? 'compact' : KINDS[n % KINDS.length]);
/** How many edits a session made before turn `n`: the edit turn n sets `count=<edits before + 1>`. */
const editsBefore = (n) => Array.from({ length: n }, (_, i) => turnKind(i)).filter((kind) => kind === 'edit').length;

const chunk = (delta, finish = null) => sse({ id: 's', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });

/** The mock model: the prompt `turn <n> <kind>` gets that tool call; a tool result or a summary request gets text. */
function answer(body, res) {
  const last = body.messages.at(-1);
  const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const say = (words) => res.end(`${chunk({ content: words })}${chunk({}, 'stop')}data: [DONE]\n\n`);
  if (last.role === 'tool') return say('Done.');
  if (text.includes('Summarize our conversation so far')) return say('Summary: the session read, wrote, edited, ran and searched files.');
  const match = /turn (\d+) (\w+)/.exec(text);
  if (!match) return say('Nothing to do.');
  const n = Number(match[1]);
  const calls = {
    read: ['read_file', { path: 'notes/notes.txt' }],
    write: ['write_file', { path: `out/file-${n}.txt`, content: `written by turn ${n}\n` }],
    edit: ['edit_file', { path: 'notes/notes.txt', old_string: `count=${editsBefore(n)}`, new_string: `count=${editsBefore(n) + 1}` }],
    command: ['run_command', { command: `echo ran turn ${n}` }],
    search: ['search_files', { pattern: 'count=\\d+', path: 'notes' }],
    cancel: ['run_command', { command: 'sleep 30' }],
  };
  const [name, args] = calls[match[2]];
  res.write(chunk({ tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] }));
  res.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
}

/** The agent on stdio: requests by id, updates kept per session. */
function startAgent(env) {
  const child = spawn(process.execPath, [CLI], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  const listeners = new Set();
  let id = 0;
  onJsonLines(child.stdout, (m) => {
    if (m.method === 'session/update') for (const listen of listeners) listen(m.params);
    else if (m.method === undefined && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    }
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const notify = (method, params) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  return { child, request, notify, listen: (fn) => listeners.add(fn), unlisten: (fn) => listeners.delete(fn) };
}

function procStat(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / 100, rssMiB: Number(rss?.[1]) / 1024 };
}
const fds = (pid) => readdirSync(`/proc/${pid}/fd`).length;
const children = (pid) =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    }).length;
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** One turn `n` of a session; a `cancel` turn is cancelled once its command runs. */
async function runTurn(agent, sessionId, n) {
  const kind = turnKind(n);
  const text = kind === 'compact' ? '/compact' : `turn ${n} ${kind}`;
  let watcher;
  if (kind === 'cancel') {
    watcher = (params) => {
      if (params.sessionId === sessionId && params.update.sessionUpdate === 'tool_call_update' && params.update.status === 'in_progress') {
        agent.unlisten(watcher);
        agent.notify('session/cancel', { sessionId });
      }
    };
    agent.listen(watcher);
  }
  const { result, error } = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  if (watcher) agent.unlisten(watcher);
  if (error) throw new Error(`turn ${n} of ${sessionId} failed: ${error.message}`);
  const expected = kind === 'cancel' ? 'cancelled' : 'end_turn';
  if (result.stopReason !== expected) throw new Error(`turn ${n} (${kind}) of ${sessionId} ended ${result.stopReason}, not ${expected}`);
}

const home = makeHome('openai-acp-soak-');
const { server, base } = await startModelServer(answer);
try {
  const env = cleanEnv(home, { OPENAI_BASE_URL: base, OPENAI_MODEL: 'bench', OPENAI_ACP_LOG: 'error', OPENAI_CONTEXT_WINDOW: '131072' });
  const agent = startAgent(env);
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const sessions = [];
  for (let s = 0; s < SESSIONS; s++) {
    const cwd = join(home, 'work', `s${s}`);
    mkdirSync(join(cwd, 'notes'), { recursive: true });
    mkdirSync(join(cwd, 'out'), { recursive: true });
    writeFileSync(join(cwd, 'notes', 'notes.txt'), 'the notes of this session\ncount=0\n');
    const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    sessions.push({ id: result.sessionId, cwd });
  }
  const pid = agent.child.pid;
  const start = performance.now();
  const startFds = fds(pid);
  let minuteOne;
  let peak = 0;
  const sampler = setInterval(() => {
    const { rssMiB } = procStat(pid);
    peak = Math.max(peak, rssMiB);
    if (minuteOne === undefined && performance.now() - start >= 60_000) minuteOne = rssMiB;
  }, 1_000);
  const cpuPerTurn = [];
  for (let n = 0; n < TURNS; n++) {
    const before = procStat(pid).cpuMs;
    await Promise.all(sessions.map((session) => runTurn(agent, session.id, n)));
    cpuPerTurn.push((procStat(pid).cpuMs - before) / SESSIONS);
    if (n % 250 === 249)
      process.stderr.write(`soak: round ${n + 1}/${TURNS}, ${((performance.now() - start) / 1000).toFixed(0)} s, RSS ${procStat(pid).rssMiB.toFixed(0)} MiB\n`);
  }
  const seconds = (performance.now() - start) / 1000;
  clearInterval(sampler);
  minuteOne ??= peak;
  // Drained: the agent collects what the turns left once quiet for 10 s (src/shared/collect-garbage.ts).
  await new Promise((resolve) => setTimeout(resolve, 20_000));
  const drained = procStat(pid).rssMiB;
  const endFds = fds(pid);
  const endChildren = children(pid);

  // SIGKILL in the middle of a turn (a command running in every session), then a fresh agent loads them all.
  const killedAt = TURNS;
  const running = sessions.map((session) =>
    agent.request('session/prompt', { sessionId: session.id, prompt: [{ type: 'text', text: `turn ${killedAt + 1} cancel` }] }),
  );
  void running;
  await new Promise((resolve) => setTimeout(resolve, 500));
  agent.child.kill('SIGKILL');
  await new Promise((resolve) => agent.child.once('exit', resolve));

  const fresh = startAgent(env);
  await fresh.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const problems = [];
  for (const session of sessions) {
    const prompts = [];
    const collect = (params) => {
      if (params.sessionId === session.id && params.update.sessionUpdate === 'user_message_chunk') prompts.push(params.update.content.text);
    };
    fresh.listen(collect);
    const { error } = await fresh.request('session/load', { sessionId: session.id, cwd: session.cwd, mcpServers: [] });
    fresh.unlisten(collect);
    if (error) problems.push(`load of ${session.id}: ${error.message}`);
    const expected = Array.from({ length: TURNS }, (_, n) => (turnKind(n) === 'compact' ? '/compact' : `turn ${n} ${turnKind(n)}`));
    if (JSON.stringify(prompts) !== JSON.stringify(expected))
      problems.push(`${session.id}: ${prompts.length} turns replayed, ${expected.length} expected, or out of order`);
    const notes = readFileSync(join(session.cwd, 'notes', 'notes.txt'), 'utf8');
    if (!notes.includes(`count=${editsBefore(TURNS)}\n`))
      problems.push(`${session.id}: notes.txt says ${/count=\d+/.exec(notes)?.[0]}, not count=${editsBefore(TURNS)}`);
    const written = Array.from({ length: TURNS }, (_, n) => n).filter((n) => turnKind(n) === 'write');
    for (const n of written)
      if (readFileSync(join(session.cwd, 'out', `file-${n}.txt`), 'utf8') !== `written by turn ${n}\n`) problems.push(`${session.id}: out/file-${n}.txt`);
  }
  await new Promise((resolve) => setTimeout(resolve, 20_000));
  const freshRss = procStat(fresh.child.pid).rssMiB;
  fresh.child.kill('SIGKILL');

  const early = mean(cpuPerTurn.slice(100, 200));
  const late = mean(cpuPerTurn.slice(-100));
  const rows = [
    [
      `turns answered (${SESSIONS} sessions x ${TURNS})`,
      `${SESSIONS * TURNS} in ${seconds.toFixed(0)} s`,
      `${((SESSIONS * TURNS) / seconds).toFixed(0)} turns/s`,
      problems.length === 0,
    ],
    [
      'RSS once the load drained vs minute one',
      `${drained.toFixed(0)} MiB`,
      `minute one ${minuteOne.toFixed(0)} MiB (≤ +15 %), peak ${peak.toFixed(0)} MiB`,
      drained <= minuteOne * 1.15,
    ],
    ['RSS vs a fresh process holding the sessions', `${drained.toFixed(0)} MiB`, `fresh ${freshRss.toFixed(0)} MiB (≤ 1.5x)`, drained <= freshRss * 1.5],
    [
      'CPU per turn, turns 100-199 vs the last 100',
      `${early.toFixed(2)} → ${late.toFixed(2)} ms`,
      `${(((late - early) / early) * 100).toFixed(0)} % (within ±20 %)`,
      Math.abs(late - early) <= early * 0.2,
    ],
    ['descriptors, child processes', `${startFds} → ${endFds} fds, ${endChildren} children`, 'flat', endFds <= startFds + 2 && endChildren === 0],
    [
      'after SIGKILL mid-turn: every turn replayed, files as written',
      problems.length === 0 ? 'nothing lost' : problems.slice(0, 3).join('; '),
      '',
      problems.length === 0,
    ],
  ];
  for (const [what, value, against, ok] of rows) console.log(`${ok ? 'ok  ' : 'MISS'} ${what.padEnd(60)} ${value.padEnd(26)} ${against}`);
  process.exitCode = CHECK && rows.some((row) => !row[3]) ? 1 : 0;
} finally {
  server.close();
  removeHome(home);
}
