// Tool figures of `npm run bench`, run by bench/run.mjs after its own rows:
// - tool step: the agent's own time per tool step, from the model's last byte to the next model
//   request received, with an instant client fs (the bench answers fs/read_text_file at once) in
//   full-access mode; 50 read_file steps per turn; target median <= 2 ms. Beside it, the same
//   figure of a bare loop (tool-step-floor.mjs): what pipes, loopback and node:http cost alone.
// - session/new without MCP servers, against the same with OPENAI_ACP_TOOLS=off (the agent before
//   tools): target <= baseline + 2 ms.
// - session/new with one stdio MCP server (the test fixture), against that server's own start-up
//   (plain spawn -> `initialize` answered, and -> `tools/list` answered, which session/new needs
//   too): target <= start-up with tools/list + 20 ms. Measured in a fresh agent
//   each run (the first MCP session of a process, as Open Design's one-process-per-turn sees it,
//   loading the MCP client chunk first); a second session of the same process is shown beside it.
// Same fairness as run.mjs: interleaved runs, a discarded warm-up, medians [min]. Loopback only.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onJsonLines } from './json-lines.mjs';
import { sse, startModelServer } from './model-server.mjs';
import { scriptEnv } from '../test/helpers/clean-env.mjs';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const FLOOR = fileURLToPath(new URL('./tool-step-floor.mjs', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../test/tools/mcp/fixtures/mcp-stdio-server.mjs', import.meta.url));
const STEPS = 50;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const line = (m) => `${JSON.stringify(m)}\n`;

/** The scripted model: `STEPS` answers with one read_file call each, then text. Records step gaps. */
function startModel() {
  const state = { n: 0, lastByteAt: 0, gaps: [] };
  return startModelServer((_body, res) => {
    const receivedAt = performance.now();
    const step = state.n++;
    if (step > 0) state.gaps.push(receivedAt - state.lastByteAt);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const choice = (delta, finish = null) => ({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
    if (step < STEPS) {
      res.write(
        sse(
          choice({
            tool_calls: [{ index: 0, id: `c${step}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `f${step}.txt` }) } }],
          }),
        ),
      );
      res.write(sse(choice({}, 'tool_calls')));
    } else {
      res.write(sse(choice({ content: 'done' })));
      res.write(sse(choice({}, 'stop')));
    }
    res.end('data: [DONE]\n\n', () => (state.lastByteAt = performance.now()));
  }).then(({ server, base }) => ({ server, state, base }));
}

/** An agent process acting as a client that answers fs/read_text_file at once. */
function startClient(env, program = CLI) {
  const child = spawn(process.execPath, [program], {
    env: scriptEnv({ OPENAI_ACP_LOG: 'error', OPENAI_ACP_STATE_DIR: 'off', ...env }),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let id = 0;
  const waiting = new Map();
  onJsonLines(child.stdout, (m) => {
    if (m.method === 'fs/read_text_file') child.stdin.write(line({ jsonrpc: '2.0', id: m.id, result: { content: 'x\n' } }));
    else if (m.method === undefined && waiting.has(m.id)) waiting.get(m.id)(m);
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(line({ jsonrpc: '2.0', id, method, params }));
    });
  const close = () => {
    child.stdin.end();
    return new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
  };
  return { request, close };
}

/** Median time per tool step (ms) over one turn of `STEPS` steps, of the agent (or of `program`). */
async function toolSteps(program = CLI) {
  const model = await startModel();
  // The files exist (an editor's files usually do): the agent resolves each path on disk first.
  const cwd = mkdtempSync(join(tmpdir(), 'openai-acp-bench-'));
  for (let i = 0; i < STEPS; i++) writeFileSync(join(cwd, `f${i}.txt`), 'x\n');
  const client = startClient({ OPENAI_BASE_URL: model.base, OPENAI_MODEL: 'bench', OPENAI_ACP_MAX_STEPS: String(STEPS + 5) }, program);
  await client.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
  const { result } = await client.request('session/new', { cwd, mcpServers: [] });
  await client.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
  const answer = await client.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'go' }] });
  await client.close();
  model.server.close();
  rmSync(cwd, { recursive: true, force: true });
  if (answer.result?.stopReason !== 'end_turn' || model.state.gaps.length !== STEPS)
    throw new Error(`tool steps failed: ${JSON.stringify(answer).slice(0, 300)} (${model.state.gaps.length} steps)`);
  return median(model.state.gaps);
}

/**
 * Times of `session/new` (ms) in a fresh, initialized agent: `first`, and `second` (a second
 * session of the same process: lazy chunks such as the MCP client are loaded by then).
 */
async function sessionNew(env, mcpServers) {
  const client = startClient({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'bench', ...env });
  await client.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const times = [];
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    const answer = await client.request('session/new', { cwd: '/', mcpServers });
    times.push(performance.now() - t0);
    if (!answer.result?.sessionId) throw new Error(`session/new failed: ${JSON.stringify(answer).slice(0, 300)}`);
  }
  await client.close();
  return { first: times[0], second: times[1] };
}

/**
 * The fixture server's own start-up (ms), by a plain spawn: `initialize` answered, and its tool
 * list answered (`tools/list` sent right after `initialize`, as every MCP client does before it can
 * offer the tools: the agent answers session/new only then).
 */
async function serverStartup() {
  const t0 = performance.now();
  const child = spawn(process.execPath, [FIXTURE], { stdio: ['pipe', 'pipe', 'ignore'] });
  const answers = new Map();
  onJsonLines(child.stdout, (m) => answers.get(m.id)?.(performance.now() - t0));
  const answered = (id) => new Promise((resolve) => answers.set(id, resolve));
  child.stdin.write(
    line({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  );
  const initialize = await answered(1);
  child.stdin.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }) + line({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }));
  const tools = await answered(2);
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  return { initialize, tools };
}

/** Runs the tool figures `runs` times (after a warm-up); returns table rows `[what, value, against, ratio, ok]`. */
export async function toolRows(runs) {
  const steps = [];
  const floor = [];
  const plain = { off: [], on: [], mcp: [], mcpWarm: [], startup: [], listed: [] };
  const mcpServers = [{ name: 'fx', command: process.execPath, args: [FIXTURE], env: [] }];
  for (let i = 0; i <= runs; i++) {
    const step = await toolSteps();
    const bare = await toolSteps(FLOOR);
    const off = await sessionNew({ OPENAI_ACP_TOOLS: 'off' }, []);
    const on = await sessionNew({}, []);
    const startup = await serverStartup();
    const mcp = await sessionNew({}, mcpServers);
    if (i === 0) continue; // warm-up
    steps.push(step);
    floor.push(bare);
    plain.off.push(off.first);
    plain.on.push(on.first);
    plain.startup.push(startup.initialize);
    plain.listed.push(startup.tools);
    plain.mcp.push(mcp.first);
    plain.mcpWarm.push(mcp.second);
  }
  const ms = (xs) => `${median(xs).toFixed(1)} ms [${Math.min(...xs).toFixed(1)}]`;
  const ms2 = (xs) => `${median(xs).toFixed(2)} ms [${Math.min(...xs).toFixed(2)}]`;
  return [
    [`tool step (agent time, ${STEPS} read_file steps)`, ms2(steps), `bare stdio+http loop ${ms2(floor)}`, 'target ≤ 2 ms', median(steps) <= 2],
    [
      'session/new, no MCP servers',
      ms(plain.on),
      `tools off ${ms(plain.off)}`,
      `+${(median(plain.on) - median(plain.off)).toFixed(1)} ms (≤ +2 ms)`,
      median(plain.on) <= median(plain.off) + 2,
    ],
    ['MCP fixture server start-up (plain spawn)', ms(plain.startup), `+ tools/list ${ms(plain.listed)}`, '(no target)', true],
    [
      'session/new, one stdio MCP server (1st)',
      ms(plain.mcp),
      `start-up + tools/list ${ms(plain.listed)}`,
      `+${(median(plain.mcp) - median(plain.listed)).toFixed(1)} ms (≤ +20 ms)`,
      median(plain.mcp) <= median(plain.listed) + 20,
    ],
    [
      'session/new, one stdio MCP server (2nd)',
      ms(plain.mcpWarm),
      `start-up + tools/list ${ms(plain.listed)}`,
      `+${(median(plain.mcpWarm) - median(plain.listed)).toFixed(1)} ms (≤ +20 ms)`,
      median(plain.mcpWarm) <= median(plain.listed) + 20,
    ],
  ];
}
