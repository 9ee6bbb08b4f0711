// Agent efficiency of `npm run bench`: one scripted coding task of STEPS tool steps
// (reads of 100–1,000-line files, command output, a search) run by the built CLI with local tools
// at 4k, 8k, 16k and 32k context windows (OPENAI_CONTEXT_WINDOW), against a loopback model that
// records every request. Per window it reports:
// - requests over the window (target 0): the request's prompt estimate plus its max_tokens above it;
// - prompt tokens sent over the whole task;
// - prefix reuse: for each request but the last, the share of its bytes that the next request
//   repeats as its opening bytes (what OpenAI/DeepSeek cached input, vLLM prefix caching and
//   llama.cpp/Ollama KV reuse can skip), averaged;
// - tokens past the common prefix with the previous request, summed (what a prefix cache cannot
//   skip: on a local machine, the prompt-processing time of the task);
//   targets: reuse ≥ 80 % at 8k, ≥ 85 % at 16k and 32k, with 0 requests over the window
//   and the task kept;
// - compactions (requests asking for a summary) and whether the task message was in every request;
// and once, the overhead of the system prompt plus the built-in tool definitions (target ≤ 1,200),
// with the system prompt's share and each tool's definition apart, so what a new tool costs shows,
// and the same for the text path (the tools described in the system message, target ≤ 1,200).
// Token figures use one fixed estimate (ASCII characters / 4 plus 4 per message), the same for
// every build measured, so before/after compare like for like. Loopback only; the temp dir is removed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { runTask as runAgentTask } from './agent-client.mjs';
import { sse, startModelServer } from './model-server.mjs';
import { scriptEnv } from '../test/helpers/clean-env.mjs';

const WINDOWS = [4_000, 8_000, 16_000, 32_000];
const TASK = 'Find where the configuration is parsed in this project, check that the tests pass, and explain how the parser handles a missing value.';
const OVERHEAD_TARGET = 1_200;
/** Prefix reuse targets by window; none at 4k. */
const REUSE_TARGETS = { 8000: 0.8, 16000: 0.85, 32000: 0.85 };

/** A code-like file of `lines` lines (deterministic). */
function sourceFile(name, lines) {
  const out = [];
  for (let i = 1; i <= lines; i++) out.push(i % 7 === 0 ? '' : `  const value${i} = parse(${name.replace(/\W/g, '_')}, ${(i * 31) % 97}); // step ${i}`);
  return `${out.join('\n')}\n`;
}

/** The files of the workspace and the script of tool calls (30 steps). */
const FILES = [120, 230, 480, 1000, 350, 760, 150, 900, 610, 300].map((lines, i) => ({ name: `src/module${i}.ts`, lines }));
const SCRIPT = [];
for (let i = 0; i < 30; i++) {
  const file = FILES[i % FILES.length];
  if (i % 6 === 4) SCRIPT.push({ name: 'run_command', arguments: { command: `seq 1 ${200 + i * 40}` } });
  else if (i % 10 === 9) SCRIPT.push({ name: 'search_files', arguments: { pattern: `value${i}\\b`, path: 'src' } });
  else SCRIPT.push({ name: 'read_file', arguments: { path: file.name } });
}

/** The bench's fixed token estimate of a request's prompt: messages and tools. */
function promptTokens(body) {
  let tokens = 3;
  for (const m of body.messages) tokens += 4 + Math.ceil(JSON.stringify({ ...m, role: undefined }).length / 4);
  if (body.tools) tokens += Math.ceil(JSON.stringify(body.tools).length / 4);
  return tokens;
}

/** The text of a message's content. */
const contentText = (m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text ?? '').join('') : '');

/** The scripted model: records each request, answers the script's next tool call, a summary, or "done". */
function startModel() {
  const state = { step: 0, requests: [] };
  return startModelServer((body, res) => {
    const prompt = JSON.stringify([body.tools ?? null, body.messages]);
    const tokens = promptTokens(body);
    const last = body.messages.at(-1);
    const summary = last?.role === 'user' && /^Summari[sz]e/.test(contentText(last).trim().split('\n').at(-1) ?? '');
    state.requests.push({
      prompt,
      tokens,
      maxTokens: body.max_tokens ?? body.max_completion_tokens ?? 0,
      summary,
      task: body.messages.some((m) => m.role === 'user' && contentText(m).includes(TASK)),
    });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta, finish = null, usage) => ({
      id: 'b',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...(usage ? { usage } : {}),
    });
    const usage = { prompt_tokens: tokens, completion_tokens: 20, total_tokens: tokens + 20 };
    if (summary) {
      res.write(
        sse(
          chunk({
            content: `The task so far: read ${state.step} files and outputs; the parser lives in src/module3.ts, value3 handles missing values by default.`,
          }),
        ),
      );
      res.write(sse(chunk({}, 'stop', usage)));
    } else if (state.step < SCRIPT.length) {
      const call = SCRIPT[state.step];
      res.write(
        sse(
          chunk({
            tool_calls: [{ index: 0, id: `call_${state.step}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }],
          }),
        ),
      );
      res.write(sse(chunk({}, 'tool_calls', usage)));
      state.step++;
    } else {
      res.write(sse(chunk({ content: 'The parser is in src/module3.ts; a missing value falls back to the default.' })));
      res.write(sse(chunk({}, 'stop', usage)));
    }
    res.end('data: [DONE]\n\n');
  }).then(({ server, base }) => ({ server, state, base }));
}

/** Runs the task once at `window` tokens; returns the recorded requests and the stop reason. */
async function runTask(window, cwd) {
  const model = await startModel();
  const env = scriptEnv({
    OPENAI_ACP_LOG: 'error',
    OPENAI_ACP_STATE_DIR: 'off',
    OPENAI_BASE_URL: model.base,
    OPENAI_MODEL: 'bench',
    OPENAI_CONTEXT_WINDOW: String(window),
    OPENAI_ACP_MAX_STEPS: '60',
  });
  const answer = await runAgentTask(env, cwd, TASK);
  model.server.close();
  return { requests: model.state.requests, steps: model.state.step, stopReason: answer.result?.stopReason ?? answer.error?.message };
}

const commonPrefix = (a, b) => {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
};

/** The figures of one run. */
function figures(window, { requests, steps, stopReason }) {
  let reuse = 0;
  let uncached = requests[0]?.tokens ?? 0;
  for (let i = 1; i < requests.length; i++) {
    const [prev, next] = [requests[i - 1], requests[i]];
    const shared = commonPrefix(prev.prompt, next.prompt);
    reuse += shared / prev.prompt.length;
    uncached += Math.round(next.tokens * (1 - shared / next.prompt.length));
  }
  return {
    window,
    requests: requests.length,
    steps,
    stopReason,
    over: requests.filter((r) => r.tokens + r.maxTokens > window).length,
    sent: requests.reduce((sum, r) => sum + r.tokens, 0),
    largest: Math.max(...requests.map((r) => r.tokens)),
    reuse: requests.length > 1 ? reuse / (requests.length - 1) : 1,
    uncached,
    compactions: requests.filter((r) => r.summary).length,
    task: requests.every((r) => r.task),
  };
}

/**
 * The system prompt plus built-in tool definitions of the first request, in the bench's estimate:
 * the total, the system prompt's part, and each tool definition's (its JSON's characters / 4).
 */
function overhead(request) {
  const [tools, messages] = JSON.parse(request.prompt);
  const system = messages.find((m) => m.role === 'system');
  const systemChars = system ? contentText(system).length : 0;
  return {
    total: Math.ceil((systemChars + (tools ? JSON.stringify(tools).length : 0)) / 4),
    system: Math.ceil(systemChars / 4),
    tools: (tools ?? []).map((tool) => ({ name: tool.function.name, tokens: Math.ceil(JSON.stringify(tool).length / 4) })),
  };
}

/**
 * The same first request spelled for the text path (a template without tools: the tools described
 * in the system message, `context/text-tool-path.ts`, bundled from src/ by esbuild): its system
 * message in the bench's estimate.
 */
async function textPathOverhead(request) {
  const [tools, messages] = JSON.parse(request.prompt);
  const source = fileURLToPath(new URL('../src/context/text-tool-path.ts', import.meta.url));
  const bundled = await build({ entryPoints: [source], bundle: true, write: false, format: 'esm', platform: 'node' });
  const { toTextToolPath } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);
  const [system] = toTextToolPath(
    messages.filter((m) => m.role === 'system'),
    tools ?? [],
  );
  return Math.ceil(contentText(system).length / 4);
}

/** Rows for bench/run.mjs: [what, value, against, ratio, ok]. */
export async function efficiencyRows() {
  const cwd = mkdtempSync(join(tmpdir(), 'openai-acp-bench-'));
  try {
    mkdirSync(join(cwd, 'src'));
    for (const file of FILES) writeFileSync(join(cwd, file.name), sourceFile(file.name, file.lines));
    const rows = [];
    let first;
    for (const window of WINDOWS) {
      const run = await runTask(window, cwd);
      first ??= run.requests[0];
      const f = figures(window, run);
      const k = `${window / 1000}k`;
      const n = (x) => Math.round(x).toLocaleString('en');
      rows.push([
        `agent task @${k}: requests over the window`,
        `${f.over} of ${f.requests}`,
        `${f.steps}/${SCRIPT.length} steps, ${f.stopReason}`,
        'target 0',
        f.over === 0,
      ]);
      rows.push([`agent task @${k}: prompt tokens sent`, n(f.sent), `largest request ${n(f.largest)}`, '', true]);
      const target = REUSE_TARGETS[window];
      rows.push([
        `agent task @${k}: prefix reuse`,
        `${(f.reuse * 100).toFixed(1)} %`,
        `${n(f.uncached)} tok to read (past the prefix)`,
        target ? `target ≥ ${target * 100} %` : '',
        !target || f.reuse >= target,
      ]);
      rows.push([`agent task @${k}: compactions / task kept`, `${f.compactions} / ${f.task ? 'yes' : 'NO'}`, '', '', f.task]);
    }
    const cost = first ? overhead(first) : { total: NaN, system: NaN, tools: [] };
    rows.push(['system prompt + built-in tools', `${n0(cost.total)} tokens`, `target ≤ ${n0(OVERHEAD_TARGET)}`, '', cost.total <= OVERHEAD_TARGET]);
    rows.push(['  of which the system prompt', `${n0(cost.system)} tokens`, '', '', true]);
    const textPath = first ? await textPathOverhead(first) : NaN;
    rows.push(['system prompt + tools on the text path', `${n0(textPath)} tokens`, `target ≤ ${n0(OVERHEAD_TARGET)}`, '', textPath <= OVERHEAD_TARGET]);
    for (const tool of cost.tools) rows.push([`  of which ${tool.name}`, `${n0(tool.tokens)} tokens`, '', '', true]);
    return rows;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

const n0 = (x) => Math.round(x).toLocaleString('en');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await efficiencyRows();
  for (const [what, value, against, ratio, ok] of rows)
    console.log(`${ok ? 'ok  ' : 'MISS'} ${what.padEnd(48)} ${value.padEnd(16)} ${against.padEnd(34)} ${ratio}`);
  process.exitCode = rows.every((r) => r[4]) ? 0 : 1;
}
