// The reader of calls written as text under hostile answers: a 10 MB answer
// with 10,000 `<tool_call>` markers (calls, unclosed calls, garbage between tags) and the other
// formats' markers 10,000 times, read whole and screened while streamed in 4 KiB pieces. Target: each
// read or streamed screen within 100 ms, and never more than MAX_CALLS_PER_ANSWER calls.
// The reader is bundled from src/ by esbuild (a devDependency) and imported, so the figure is the
// reader's own, without the agent around it.
//
//   node bench/text-calls.mjs
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const source = (path) => fileURLToPath(new URL(`../src/tools/calls/text/${path}`, import.meta.url));
const bundled = await build({
  stdin: {
    contents: [
      `export { readTextCalls, MAX_CALLS_PER_ANSWER } from ${JSON.stringify(source('read-text-calls.ts'))};`,
      `export { TextCallScreen } from ${JSON.stringify(source('text-call-screen.ts'))};`,
    ].join('\n'),
    resolveDir: fileURLToPath(new URL('..', import.meta.url)),
    loader: 'ts',
  },
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
});
const { readTextCalls, MAX_CALLS_PER_ANSWER, TextCallScreen } = await import(
  `data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`
);

const TARGET_MS = 100;
const MARKERS = 10_000;
const SIZE = 10_000_000;
const tools = new Map([
  ['read_file', { path: { type: 'string' } }],
  ['write_file', { path: { type: 'string' }, content: { type: 'string' } }],
]);
/** `unit` repeated MARKERS times, padded with prose to SIZE characters. */
const answer = (unit) => {
  const pad = 'x'.repeat(Math.max(0, Math.floor(SIZE / MARKERS) - unit.length));
  return `${unit}${pad}`.repeat(MARKERS);
};
const CASES = [
  ['10k <tool_call> calls', answer('<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>')],
  ['10k <tool_call> never closed', answer('<tool_call>{"name": "read_file", "arguments": {"path": "a')],
  ['10k <tool_call> around garbage', answer('<tool_call>nah {[ "')],
  ['10k <tool_call> glued, no </tool_call>', answer('<tool_call>{"name": "write_file", "arguments": {"content": "')],
  ['10k <function= unclosed', answer('<function=read_file>\n<parameter=path>\n')],
  ['10k [TOOL_CALLS] open', answer('[TOOL_CALLS]read_file[ARGS]{"path": [')],
  ['10k Harmony headers, no call', answer('<|channel|>analysis<|message|>to=')],
  ['10k DeepSeek begins, no separator', answer('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file')],
  ['10 MB of nested brackets after one marker', `<tool_call>{"name": "read_file", "arguments": ${'['.repeat(SIZE)}`],
  ['10 MB bare JSON', `{"name": "write_file", "arguments": {"content": "${'y'.repeat(SIZE)}"}}`],
  // A model stuck on whitespace: the answer may still turn out to be a bare call while nothing else came.
  ['10 MB of line breaks', '\n'.repeat(SIZE)],
  ['{ then 10 MB of spaces', `{${' '.repeat(SIZE)}`],
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function time(fn) {
  const runs = [];
  let result;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    result = fn();
    runs.push(performance.now() - t0);
  }
  return { ms: median(runs), result };
}

/** One row per case: [what, read ms, calls, screen ms, ok]. */
export function textCallRows() {
  return CASES.map(([what, text]) => {
    const read = time(() => readTextCalls(text, tools));
    const screen = time(() => {
      const h = new TextCallScreen([...tools.keys()]);
      for (let i = 0; i < text.length; i += 4096) h.push(text.slice(i, i + 4096));
      return h.shownLength;
    });
    const calls = read.result.calls.length;
    return [what, read.ms, calls, screen.ms, read.ms <= TARGET_MS && screen.ms <= TARGET_MS && calls <= MAX_CALLS_PER_ANSWER];
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = textCallRows();
  for (const [what, readMs, calls, screenMs, ok] of rows)
    console.log(
      `${ok ? 'ok  ' : 'MISS'} ${what.padEnd(42)} read ${readMs.toFixed(1).padStart(6)} ms, ${String(calls).padStart(2)} calls;`,
      `streamed screen ${screenMs.toFixed(1).padStart(6)} ms (target ≤ ${TARGET_MS} ms each, ≤ ${MAX_CALLS_PER_ANSWER} calls)`,
    );
  process.exitCode = rows.every((r) => r[4]) ? 0 : 1;
}
