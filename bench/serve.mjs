// `openai-acp serve` under many clients, run by bench/run.mjs after its own rows, or
// alone: `node bench/serve.mjs`. One serve process; BENCH_SERVE_CLIENTS clients (default 200:
// half WebSocket, half Streamable HTTP, through the SDK's own ws-client and http-client), each
// with one session running BENCH_SERVE_TURNS prompt turns (default 10) back to back, all clients
// at once, against a loopback mock model that streams each answer in five chunks naming the prompt.
// Figures: turns per second; time from a prompt sent to its first chunk received, p50 and p95;
// RSS of the serve process per idle connection (connected and initialized, no session) and per
// active session (after its turns); and that no update was lost or crossed (every client got
// exactly its own answers, each update on its own session). Loopback only.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { client } from '@agentclientprotocol/sdk/unstable';
import WebSocket from 'ws';
import { sse, startModelServer } from './model-server.mjs';
import { startServe } from './serve-process.mjs';

const CLIENTS = Math.max(2, Number(process.env.BENCH_SERVE_CLIENTS ?? 200));
const TURNS = Math.max(1, Number(process.env.BENCH_SERVE_TURNS ?? 10));
const TOKEN = 'bench-serve-token-0123456789';
const PIECES = 5;

const rssKiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));

/** The answer to a prompt: `reply:<prompt>` in five chunks. */
const answerOf = (prompt) => `reply:${prompt}`;

/** One client: connected and initialized; `run()` opens its session and runs its turns. */
async function connect(url, transport, index) {
  const headers = { Authorization: `Bearer ${TOKEN}` };
  const stream = transport === 'ws' ? createWebSocketStream(url.replace(/^http/, 'ws'), { WebSocket, headers }) : createHttpStream(url, { headers });
  const received = [];
  let firstChunk;
  const connection = client()
    .onNotification('session/update', ({ params }) => {
      received.push(params);
      if (params.update.sessionUpdate === 'agent_message_chunk') firstChunk?.();
    })
    .connect(stream);
  await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return {
    close: () => connection.close(),
    async run(firstChunks) {
      const { sessionId } = await connection.agent.request('session/new', { cwd: '/', mcpServers: [] });
      const asked = [];
      for (let turn = 0; turn < TURNS; turn++) {
        const prompt = `${transport}${index}-turn${turn}`;
        asked.push(prompt);
        const sentAt = performance.now();
        const first = new Promise((resolve) => (firstChunk = resolve));
        const answer = connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: prompt }] });
        await first;
        firstChunks.push(performance.now() - sentAt);
        firstChunk = undefined;
        if ((await answer).stopReason !== 'end_turn') throw new Error(`turn ${prompt} did not end`);
      }
      // Lost or crossed: every update on this client's session, and the answers exactly its own, in order.
      const text = received
        .filter((n) => n.update.sessionUpdate === 'agent_message_chunk')
        .map((n) => n.update.content.text)
        .join('');
      const crossed = received.filter((n) => n.sessionId !== sessionId).length;
      return { ok: crossed === 0 && text === asked.map(answerOf).join(''), crossed };
    },
  };
}

/** The figures, as rows of bench/run.mjs: [what, value, against, ratio, ok]. */
export async function serveRows() {
  const { server, base } = await startModelServer((body, res) => {
    const prompt = String(body.messages.at(-1).content);
    const text = answerOf(prompt);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const size = Math.ceil(text.length / PIECES);
    for (let i = 0; i < text.length; i += size)
      res.write(sse({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: text.slice(i, i + size) }, finish_reason: null }] }));
    res.write(sse({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    res.end('data: [DONE]\n\n');
  });
  const serve = await startServe({ token: TOKEN, base, args: ['--max-connections', String(CLIENTS + 8)] });
  try {
    await settle();
    const rssStart = rssKiB(serve.child.pid);
    const clients = [];
    for (let i = 0; i < CLIENTS; i++) clients.push(await connect(serve.url, i % 2 === 0 ? 'ws' : 'http', i));
    await settle();
    const rssIdle = rssKiB(serve.child.pid);
    const firstChunks = [];
    const t0 = performance.now();
    const results = await Promise.all(clients.map((c) => c.run(firstChunks)));
    const seconds = (performance.now() - t0) / 1000;
    await settle();
    const rssActive = rssKiB(serve.child.pid);
    for (const c of clients) c.close();
    const turns = CLIENTS * TURNS;
    const intact = results.filter((r) => r.ok).length;
    const perIdle = (rssIdle - rssStart) / CLIENTS;
    const perSession = (rssActive - rssIdle) / CLIENTS;
    const kib = (value) => `${value.toFixed(0)} KiB`;
    return [
      [
        `serve: turns/s (${CLIENTS / 2} WS + ${CLIENTS / 2} HTTP clients)`,
        `${(turns / seconds).toFixed(0)} turns/s`,
        `${turns} turns in ${seconds.toFixed(1)} s`,
        '',
        true,
      ],
      [
        'serve: time to first chunk, p50 / p95',
        `${percentile(firstChunks, 50).toFixed(1)} / ${percentile(firstChunks, 95).toFixed(1)} ms`,
        '(no target)',
        '',
        true,
      ],
      ['serve: RSS per idle connection', kib(perIdle), `${(rssStart / 1024).toFixed(0)} MiB at rest`, '', true],
      ['serve: RSS per active session', kib(perSession), `${(rssActive / 1024).toFixed(0)} MiB with ${CLIENTS} sessions`, '', true],
      ['serve: updates lost or crossed', `${CLIENTS - intact} of ${CLIENTS} clients`, 'target 0', '', intact === CLIENTS],
    ];
  } finally {
    serve.child.kill('SIGTERM');
    await new Promise((resolve) => serve.child.once('exit', resolve));
    server.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [what, value, against, , ok] of await serveRows()) console.log(`${ok ? 'ok  ' : 'MISS'} ${what.padEnd(44)} ${value.padEnd(24)} ${against}`);
}
