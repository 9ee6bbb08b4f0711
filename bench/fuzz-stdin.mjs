// Issue 11 figure: of N fuzzed stdin lines (random and mutated JSON-RPC, deeply nested, oversized),
// how many the built CLI survives. Lines go in batches; after each batch a `session/list` probe
// must be answered. A batch whose probe is answered counts as survived; when the agent dies or
// stops answering, the batch counts as lost and a fresh agent is spawned.
//
//   node bench/fuzz-stdin.mjs [path/to/cli.js] [lines=10000] [seed=1]
//
// Deterministic for a seed. Loopback only (the endpoint is a closed port).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onJsonLines } from './json-lines.mjs';
import { scriptEnv } from '../test/helpers/clean-env.mjs';

const CLI = process.argv[2] ?? fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const TOTAL = Number(process.argv[3] ?? 10_000);
let seed = Number(process.argv[4] ?? 1);
const BATCH = 50;
const PROBE_MS = 10_000;

/** mulberry32: a small seeded generator. */
function random() {
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (xs) => xs[Math.floor(random() * xs.length)];
const int = (n) => Math.floor(random() * n);

const METHODS = [
  'initialize',
  'session/new',
  'session/load',
  'session/resume',
  'session/list',
  'session/prompt',
  'session/cancel',
  'session/close',
  'session/delete',
  'session/set_config_option',
  'session/set_model',
  'authenticate',
  'providers/list',
  'providers/set',
  'providers/disable',
  '$/cancel_request',
  'x/unknown',
  '',
];
const nested = (depth, open, close) => open.repeat(depth) + close.repeat(depth);
function junkValue(depth = 0) {
  switch (int(depth > 3 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return pick([0, -1, 1e308, 3.5, 2 ** 53 + 1]);
    case 3:
      return pick(['', 'x', '/tmp', 'relative', '~/x', '\u0000', '\ud800', 'é'.repeat(int(50))]);
    case 4:
      return [];
    case 5:
      return {};
    case 6:
      return Array.from({ length: int(4) }, () => junkValue(depth + 1));
    case 7:
      return Object.fromEntries(
        Array.from({ length: int(4) }, () => [
          pick(['sessionId', 'cwd', 'prompt', 'mcpServers', '_meta', 'type', 'text', 'data', 'mimeType', 'id']),
          junkValue(depth + 1),
        ]),
      );
    default:
      return {
        type: pick(['text', 'image', 'resource', 'resource_link', 'audio']),
        text: 'hi',
        data: pick(['@@', 'aGk=', '']),
        mimeType: pick(['image/png', 'text/html', 1]),
      };
  }
}

/** One fuzzed line (without the line feed). */
function fuzzLine(i) {
  const kind = int(100);
  const base = {
    jsonrpc: pick(['2.0', '2.0', '2.0', '1.0', 2, undefined]),
    id: pick([1000 + i, `s${i}`, null, undefined, [], {}, 1.5]),
    method: pick(METHODS),
    params: junkValue(),
  };
  if (kind < 40) return JSON.stringify(base);
  if (kind < 55) {
    // A valid line cut or corrupted somewhere.
    const text = JSON.stringify(base);
    const at = int(text.length);
    return random() < 0.5 ? text.slice(0, at) : text.slice(0, at) + pick(['"', '{', ']', '\\', '\u0000', 'ÿ', ',']) + text.slice(at);
  }
  if (kind < 65) return pick(['null', '[]', '[1,2]', '42', '"str"', 'true', '{}', '{"jsonrpc":"2.0"}', '\t', '{"jsonrpc":"2.0","id":1}']);
  if (kind < 75) {
    const depth = pick([100, 1000, 5000, 10_000, 50_000]);
    const deep = random() < 0.5 ? nested(depth, '[', ']') : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const where = pick(['params', 'id', 'meta']);
    if (where === 'id') return `{"jsonrpc":"2.0","id":${deep},"method":"x"}`;
    if (where === 'meta')
      return `{"jsonrpc":"2.0","id":${i},"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"t","_meta":{"d":${deep}}}]}}`;
    return `{"jsonrpc":"${pick(['2.0', '1.0'])}","id":${i},"method":"x","params":${deep}}`;
  }
  if (kind < 80) {
    // Large lines: a few MB, rarely over the 64 MiB limit.
    const size = random() < 0.02 ? 70_000_000 : int(3_000_000);
    return JSON.stringify({
      jsonrpc: pick(['2.0', '1.0']),
      id: i,
      method: pick(['session/prompt', 'x', 5]),
      params: { sessionId: 'x', prompt: [{ type: 'text', text: 'z'.repeat(size) }] },
    });
  }
  if (kind < 90) return Buffer.from(Array.from({ length: int(200) }, () => int(256)).filter((b) => b !== 10)).toString('latin1');
  return JSON.stringify({ ...base, sessionId: pick(['bus-1', 7, undefined]) });
}

function startAgent() {
  const child = spawn(process.execPath, [CLI], {
    env: scriptEnv({
      OPENAI_ACP_STATE_DIR: 'off',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_MODEL: 'm',
      OPENAI_MAX_RETRIES: '0',
      OPENAI_ACP_LOG: 'error',
    }),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const waiting = new Map();
  let badStdout = 0;
  onJsonLines(
    child.stdout,
    (message) => {
      if (message?.jsonrpc !== '2.0') badStdout++;
      waiting.get(message?.id)?.(message);
    },
    () => badStdout++,
  );
  child.stdin.on('error', () => undefined);
  const exited = new Promise((resolve) => child.on('exit', () => resolve('exited')));
  const agent = {
    child,
    exited,
    get badStdout() {
      return badStdout;
    },
    write: (line) => new Promise((resolve) => (child.stdin.writable ? child.stdin.write(`${line}\n`, () => resolve()) : resolve())),
    async ask(id, method, params) {
      const answered = new Promise((resolve) => waiting.set(id, resolve));
      await agent.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), PROBE_MS).unref());
      return Promise.race([answered, exited, timeout]);
    },
  };
  return agent;
}

async function main() {
  let agent = startAgent();
  await agent.ask('init', 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  let survived = 0;
  let restarts = 0;
  let badStdout = 0;
  const started = performance.now();
  for (let sent = 0; sent < TOTAL; ) {
    const n = Math.min(BATCH, TOTAL - sent);
    for (let k = 0; k < n; k++) await agent.write(fuzzLine(sent + k));
    sent += n;
    const probe = await agent.ask(`probe-${sent}`, 'session/list', {});
    if (typeof probe === 'object' && probe.result) {
      survived += n;
      continue;
    }
    restarts++;
    badStdout += agent.badStdout;
    agent.child.kill('SIGKILL');
    agent = startAgent();
    await agent.ask('init', 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  }
  badStdout += agent.badStdout;
  agent.child.kill('SIGKILL');
  console.log(
    `fuzzed stdin lines survived: ${survived} of ${TOTAL} (${restarts} agent restarts; ${badStdout} non-JSON-RPC stdout lines; ${Math.round((performance.now() - started) / 1000)} s) for ${CLI}`,
  );
}

await main();
