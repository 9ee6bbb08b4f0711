// The small-model part of `npm run bench`: one scripted 20-step coding task (reads,
// edits, a new file, searches, commands) run by the built CLI with local tools, twice: once with
// every call written perfectly, once with a third of the calls (7 of 20) carrying the mistakes
// small local models really make: spaces for a Go file's tabs, almost-JSON arguments (single
// quotes, a trailing comma), a tool name with a leaked `<|channel|>` token, read_file's line
// prefixes copied into old_string, other agents' parameter names, an en dash for a hyphen,
// `functions.` before the name with camelCase parameters. The scripted model behaves like a
// model that is told its call failed: it sends the same step again, written right (one retry).
// Reported per run: model requests (steps) to finish, prompt tokens sent (the same fixed estimate
// as bench/agent-efficiency.mjs: characters / 4 plus 4 per message), and whether the files at the
// end are byte-for-byte those of the perfect run (a near miss must never become a wrong edit).
// Target: the run with mistakes takes no more steps than the perfect one, and ends with the same files.
// Loopback only; the temp dirs are removed.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTask as runAgentTask } from './agent-client.mjs';
import { sse, startModelServer } from './model-server.mjs';
import { scriptEnv } from '../test/helpers/clean-env.mjs';

/** The workspace at the start. */
const FILES = {
  'src/app.go': 'package main\n\nimport "fmt"\n\nfunc main() {\n\tname := "world"\n\tif name != "" {\n\t\tfmt.Println("hello", name)\n\t}\n}\n',
  'src/util.py':
    'def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n\n\ndef mean(items):\n    return total(items) / len(items)\n',
  'notes.md': '# Notes\n\nThe parser\'s default is "none" - see below.\n',
  'config.ini': '[main]\r\nlevel = 1\r\nname = demo\r\n',
};

const call = (name, args) => ({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
const edit = (path, old_string, new_string) => call('edit_file', { path, old_string, new_string });

/** The 20 steps: the perfect call, and for a third of them the call as a small model writes it. */
const STEPS = [
  { perfect: call('read_file', { path: 'src/app.go' }) },
  {
    perfect: edit('src/app.go', '\tif name != "" {\n\t\tfmt.Println("hello", name)\n\t}', '\tif name != "" {\n\t\tfmt.Println("hi", name)\n\t}'),
    mistake: edit(
      'src/app.go',
      '    if name != "" {\n        fmt.Println("hello", name)\n    }',
      '    if name != "" {\n        fmt.Println("hi", name)\n    }',
    ),
  },
  { perfect: call('read_file', { path: 'src/util.py' }) },
  { perfect: edit('src/util.py', '    return total(items) / len(items)', '    if not items:\n        return 0\n    return total(items) / len(items)') },
  {
    perfect: call('write_file', { path: 'src/extra.py', content: 'def double(x):\n    return 2 * x\n' }),
    mistake: call('write_file', String.raw`{'path': 'src/extra.py', 'content': 'def double(x):\n    return 2 * x\n',}`),
  },
  { perfect: call('list_directory', { path: 'src' }) },
  { perfect: call('search_files', { pattern: 'total', path: 'src' }) },
  { perfect: call('read_file', { path: 'notes.md' }), mistake: { name: 'read_file<|channel|>commentary', arguments: JSON.stringify({ path: 'notes.md' }) } },
  { perfect: edit('notes.md', 'The parser\'s default is "none"', 'The parser\'s default is "empty"') },
  { perfect: call('run_command', { command: 'ls src' }) },
  { perfect: edit('src/util.py', '    result = 0\n', '    result = 0.0\n'), mistake: edit('src/util.py', '2\t    result = 0\n', '2\t    result = 0.0\n') },
  { perfect: call('read_file', { path: 'config.ini' }) },
  { perfect: edit('config.ini', 'level = 1', 'level = 2') },
  {
    perfect: edit('src/app.go', 'import "fmt"', 'import (\n\t"fmt"\n)'),
    mistake: call('edit_file', { file_path: 'src/app.go', old_str: 'import "fmt"', new_str: 'import (\n\t"fmt"\n)' }),
  },
  { perfect: call('read_file', { path: 'src/extra.py' }) },
  { perfect: call('search_files', { pattern: 'double' }) },
  { perfect: edit('notes.md', '- see below.', '- see the parser.'), mistake: edit('notes.md', '\u2013 see below.', '\u2013 see the parser.') },
  { perfect: call('run_command', { command: 'cat src/extra.py' }) },
  { perfect: call('read_file', { path: 'src/util.py', offset: 1, limit: 3 }) },
  {
    perfect: edit('config.ini', 'level = 2\nname = demo', 'level = 2\nname = bench'),
    mistake: call('functions.edit_file', { filePath: 'config.ini', oldString: 'level = 2\nname = demo', newString: 'level = 2\nname = bench' }),
  },
];
const MISTAKES = STEPS.filter((s) => s.mistake).length;

/** What the agent says when a call failed (the scripted model then sends the step again, right); a result's closing "Note:" is not a failure. */
const FAILED = /not found|not valid JSON|no tool named|Unknown tool|cut off|must be|is missing|Edit refused|found \d+ times|matches \d+ places/;

/** The bench's fixed token estimate of a request's prompt: messages and tools. */
function promptTokens(body) {
  let tokens = 3;
  for (const m of body.messages) tokens += 4 + Math.ceil(JSON.stringify({ ...m, role: undefined }).length / 4);
  if (body.tools) tokens += Math.ceil(JSON.stringify(body.tools).length / 4);
  return tokens;
}

/** The scripted model: each request gets the next step (its mistake first, when `withMistakes`), a retry written right after a failure. */
async function startModel(withMistakes) {
  const state = { step: 0, requests: 0, tokens: 0, retries: 0, retrying: false };
  const { server, base } = await startModelServer((body, res) => {
    const tokens = promptTokens(body);
    state.requests++;
    state.tokens += tokens;
    const last = body.messages.at(-1);
    // The last step failed: send it again, written right; else go on.
    const failed = state.step > 0 && last?.role === 'tool' && FAILED.test(String(last.content).replace(/\s*\(?Note: [\s\S]*$/, '')) && !state.retrying;
    if (failed) {
      if (process.env.BENCH_DEBUG) console.error(`retry of step ${state.step}: ${String(last.content).slice(0, 300)}`);
      state.step--;
      state.retries++;
    }
    state.retrying = failed;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta, finish = null, usage) => ({
      id: 'b',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...(usage ? { usage } : {}),
    });
    const usage = { prompt_tokens: tokens, completion_tokens: 20, total_tokens: tokens + 20 };
    if (state.step < STEPS.length) {
      const step = STEPS[state.step];
      const next = withMistakes && step.mistake && !failed ? step.mistake : step.perfect;
      res.write(
        sse(chunk({ tool_calls: [{ index: 0, id: `call_${state.requests}`, type: 'function', function: { name: next.name, arguments: next.arguments } }] })),
      );
      res.write(sse(chunk({}, 'tool_calls', usage)));
      state.step++;
    } else {
      res.write(sse(chunk({ content: 'Done: the greeting, the mean of an empty list, the notes and the config are updated.' })));
      res.write(sse(chunk({}, 'stop', usage)));
    }
    res.end('data: [DONE]\n\n');
  });
  return { server, state, base };
}

/** The files under `dir`, by relative path. */
function snapshot(dir, prefix = '') {
  const out = {};
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(out, snapshot(dir, rel));
    else out[rel] = readFileSync(join(dir, rel), 'utf8');
  }
  return out;
}

/** Runs the task once in a fresh workspace; returns requests, prompt tokens, retries, stop reason and the files at the end. */
async function runTask(withMistakes) {
  const cwd = mkdtempSync(join(tmpdir(), 'openai-acp-bench-small-'));
  const model = await startModel(withMistakes);
  try {
    mkdirSync(join(cwd, 'src'));
    for (const [path, text] of Object.entries(FILES)) writeFileSync(join(cwd, path), text);
    const env = scriptEnv({
      OPENAI_ACP_LOG: 'error',
      OPENAI_ACP_STATE_DIR: 'off',
      OPENAI_BASE_URL: model.base,
      OPENAI_MODEL: 'bench',
      OPENAI_ACP_MAX_STEPS: '60',
    });
    const answer = await runAgentTask(env, cwd, 'Update the greeting, guard mean() against an empty list, add double(), fix the notes and the config.');
    return {
      requests: model.state.requests,
      tokens: model.state.tokens,
      retries: model.state.retries,
      stopReason: answer.result?.stopReason ?? answer.error?.message,
      files: snapshot(cwd),
    };
  } finally {
    model.server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** Rows for bench/run.mjs: [what, value, against, ratio, ok]. */
export async function smallModelRows() {
  const perfect = await runTask(false);
  const mistaken = await runTask(true);
  const n = (x) => Math.round(x).toLocaleString('en');
  const same = JSON.stringify(mistaken.files) === JSON.stringify(perfect.files);
  return [
    [
      'small model: 20 steps, perfect calls',
      `${perfect.requests} requests`,
      `${n(perfect.tokens)} prompt tok, ${perfect.stopReason}`,
      '',
      perfect.stopReason === 'end_turn',
    ],
    [
      `small model: ${MISTAKES} of 20 calls near misses`,
      `${mistaken.requests} requests`,
      `${n(mistaken.tokens)} prompt tok, ${mistaken.retries} retries`,
      `x${(mistaken.tokens / perfect.tokens).toFixed(2)} tokens`,
      mistaken.requests <= perfect.requests && mistaken.stopReason === 'end_turn',
    ],
    ['small model: files as with perfect calls', same ? 'yes' : 'NO', 'target yes (no wrong edit)', '', same],
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await smallModelRows();
  for (const [what, value, against, ratio, ok] of rows)
    console.log(`${ok ? 'ok  ' : 'MISS'} ${what.padEnd(48)} ${value.padEnd(16)} ${against.padEnd(34)} ${ratio}`);
  process.exitCode = rows.every((r) => r[4]) ? 0 : 1;
}
