// The prefix across mode switches: one session of three turns run by the built CLI
// against a loopback model that records every request: a turn in `ask` (two file reads), then
// `plan` (a read and a plan, approved with "Start: switch to Ask"), then a turn in `ask` again,
// then one in `read-only`. For each request that follows a mode change (the first in `plan`, the
// one after the approval, the first in `ask` again, the first in `read-only`) it reports the share
// of the previous request's bytes that it repeats as its opening bytes (what a server's prefix
// cache keeps: llama.cpp/Ollama KV reuse, vLLM prefix caching, OpenAI cached input), and the
// tokens past that shared prefix (what the server must process again; the bench's fixed estimate,
// ASCII characters / 4). Target: the whole earlier request is shared (100 %) at every switch.
// BENCH_CLI measures another build (e.g. one made from an earlier commit) for before/after.
// Loopback only; the temp dir is removed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAgent } from './agent-client.mjs';
import { sse, startModelServer } from './model-server.mjs';

/** The model's answers, in order: tool calls or text. */
const SCRIPT = [
  { call: ['read_file', { path: 'src/a.ts' }] },
  { call: ['read_file', { path: 'src/b.ts' }] },
  { text: 'a.ts parses, b.ts prints.' },
  // plan
  { call: ['read_file', { path: 'src/c.ts' }] },
  {
    call: [
      'update_plan',
      {
        entries: [
          { content: 'Change c.ts', status: 'pending' },
          { content: 'Run the tests', status: 'pending' },
        ],
      },
    ],
  },
  { text: 'Starting on the plan.' },
  // ask again
  { text: 'Done.' },
  // read-only
  { text: 'I would change c.ts.' },
];

function startModel() {
  const requests = [];
  let step = 0;
  return startModelServer((body, res) => {
    // The request as a prefix cache sees it: tools, then each message, nothing closing after the last.
    requests.push([JSON.stringify(body.tools ?? null), ...body.messages.map((m) => JSON.stringify(m))].join('\n'));
    const next = SCRIPT[Math.min(step++, SCRIPT.length - 1)];
    const chunk = (delta, finish = null) => ({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (next.call) {
      res.write(
        sse(
          chunk({
            tool_calls: [{ index: 0, id: `call_${step}`, type: 'function', function: { name: next.call[0], arguments: JSON.stringify(next.call[1]) } }],
          }),
        ),
      );
      res.write(sse(chunk({}, 'tool_calls')));
    } else {
      res.write(sse(chunk({ content: next.text })));
      res.write(sse(chunk({}, 'stop')));
    }
    res.end('data: [DONE]\n\n');
  }).then(({ server, base }) => ({ server, requests, base }));
}

const commonPrefix = (a, b) => {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
};

/** Runs the session; returns the recorded requests and the index of the first request after each switch. */
async function runSession(cwd) {
  const model = await startModel();
  const env = { PATH: process.env.PATH, HOME: cwd, OPENAI_ACP_LOG: 'error', OPENAI_ACP_STATE_DIR: 'off', OPENAI_BASE_URL: model.base, OPENAI_MODEL: 'bench' };
  // Starting on the plan is approved by switching to ask (its own option), anything else allowed.
  const { request, close } = startAgent(env, (options) => options.find((o) => o.optionId === 'plan_start_ask'));
  await request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { result } = await request('session/new', { cwd, mcpServers: [] });
  const sessionId = result.sessionId;
  const prompt = (text) => request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  const switches = [];
  await prompt('What do a.ts and b.ts do?');
  await request('session/set_mode', { sessionId, modeId: 'plan' });
  switches.push(['ask → plan', model.requests.length]);
  const before = model.requests.length;
  await prompt('Plan a change to c.ts.');
  // The request after the update_plan call, whose approval switched to ask.
  switches.push(['plan → ask (plan approved)', before + 2]);
  await request('session/set_mode', { sessionId, modeId: 'plan' });
  await request('session/set_mode', { sessionId, modeId: 'ask' });
  switches.push(['ask → plan → ask between turns', model.requests.length]);
  await prompt('Go on.');
  await request('session/set_mode', { sessionId, modeId: 'read-only' });
  switches.push(['ask → read-only', model.requests.length]);
  await prompt('What would you change?');
  await close();
  model.server.close();
  return { requests: model.requests, switches };
}

/** Rows for bench/run.mjs: [what, value, against, ratio, ok]. */
export async function modeSwitchRows() {
  const cwd = mkdtempSync(join(tmpdir(), 'openai-acp-bench-modes-'));
  try {
    mkdirSync(join(cwd, 'src'));
    for (const name of ['a', 'b', 'c'])
      writeFileSync(join(cwd, 'src', `${name}.ts`), Array.from({ length: 120 }, (_, i) => `export const ${name}${i} = ${i * 7};`).join('\n'));
    const { requests, switches } = await runSession(cwd);
    return switches.map(([what, index]) => {
      const [prev, next] = [requests[index - 1], requests[index]];
      if (!prev || !next) return [`mode switch ${what}: shared prefix`, 'n/a', `${requests.length} requests`, '', false];
      const shared = commonPrefix(prev, next);
      const share = shared / prev.length;
      const past = Math.ceil((next.length - shared) / 4);
      return [
        `mode switch ${what}: shared prefix`,
        `${(share * 100).toFixed(1)} %`,
        `${shared.toLocaleString('en')} of ${prev.length.toLocaleString('en')} chars; past it ${past.toLocaleString('en')} tok`,
        'target 100 %',
        share === 1,
      ];
    });
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await modeSwitchRows();
  for (const [what, value, against, ratio, ok] of rows)
    console.log(`${ok ? 'ok  ' : 'MISS'} ${what.padEnd(52)} ${value.padEnd(9)} ${against.padEnd(48)} ${ratio}`);
  process.exitCode = rows.every((r) => r[4]) ? 0 : 1;
}
