// The real-llama kit (../shared/tools/real-llama; its README) for the benches: where it is, a
// llama-server started through it, a loopback proxy recording every chat request with the
// `timings` of its answer, and a copy of its small project for the agent to work in.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptEnv } from '../test/helpers/clean-env.mjs';

export const KIT = process.env.REAL_LLAMA_KIT ?? fileURLToPath(new URL('../../shared/tools/real-llama', import.meta.url));
export const DATA = process.env.REAL_LLAMA_DIR ?? join(homedir(), '.cache', 'real-llama');
export const MODEL = 'readlong';
export const WINDOW = 8192;
export const VERBOSE = process.env.BENCH_VERBOSE === '1';

/** Why the bench cannot run here, or undefined. */
export function missing() {
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

/** Starts llama-server through the kit (`flags` added to its command line, `window` its -c); resolves with its pid and port once /health answers 200. */
export async function startServer(flags = [], window = WINDOW) {
  const port = await freePort();
  const pid = Number(
    execFileSync(join(KIT, 'start-server.sh'), [MODEL, String(window), String(port), '--chat-template-file', '/models/hermes.jinja', ...flags], {
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

/** The text of a streamed answer and whether it called a tool (structured, or written as a Hermes `<tool_call>`). */
function answerOf(text) {
  let content = '';
  let called = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    try {
      const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta ?? {};
      content += delta.content ?? '';
      called ||= Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0;
    } catch {}
  }
  return { content, called: called || content.includes('<tool_call>') };
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A proxy in front of the server recording each chat request: its phase, whether it only appends
 * to the previous request (same tools, the previous messages as its opening messages), whether
 * it asks for a summary, and the answer's prompt_n and cache_n.
 */
export function startProxy(target) {
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
        const summary = last?.role === 'user' && /^"?Summari[sz]e our conversation/.test(JSON.stringify(last.content).slice(1));
        entry = { phase, appends, summary, status: 0, messages: parsed.messages.length, idSlot: parsed.id_slot, body: VERBOSE ? parsed : undefined };
        entry.parsed = parsed;
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
            const raw = Buffer.concat(seen).toString('utf8');
            const timings = timingsOf(raw);
            entry.promptN = timings?.prompt_n;
            entry.cacheN = timings?.cache_n;
            entry.answer = answerOf(raw);
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
export function prepare(base, dir, extraEnv = {}) {
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
    ...extraEnv,
  });
  return { env, ws };
}
