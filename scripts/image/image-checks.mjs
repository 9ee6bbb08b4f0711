// What `npm run check:image` asks of the built image, each through `buildah run` (chroot
// isolation, the host's network, as the image's own user): `--help`; `initialize` and a prompt
// on stdio against a mock Chat Completions endpoint on the host's loopback; and `serve`, whose
// `/ready` must answer 200 and which scripts/serve-client.mjs must get an answer from.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const ANSWER = 'Olá from the mock endpoint';

/** A loopback Chat Completions endpoint that streams {@link ANSWER}; resolves with its base URL and a close(). */
async function mockEndpoint() {
  const sse = (body) => `data: ${JSON.stringify(body)}\n\n`;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.endsWith('/models'))
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'mock' }] }));
      if (req.method !== 'POST') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        sse({ choices: [{ index: 0, delta: { content: ANSWER }, finish_reason: null }] }) +
          sse({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 } }) +
          'data: [DONE]\n\n',
      );
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { baseUrl: `http://127.0.0.1:${server.address().port}/v1`, close: () => server.close() };
}

/** Collects a child's output; resolves `exited` with its code. */
function watch(child) {
  const out = { stdout: '', stderr: '' };
  child.stdout?.setEncoding('utf8').on('data', (data) => (out.stdout += data));
  child.stderr?.setEncoding('utf8').on('data', (data) => (out.stderr += data));
  out.exited = new Promise((done) => child.once('exit', (code, signal) => done(code ?? signal)));
  return out;
}

/** Resolves once `test()` holds, polling every 100 ms; throws naming `what` after `ms`. */
async function until(test, ms, what) {
  const end = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** `initialize`, `session/new` in /workspace and one prompt on the agent's stdio; returns the answer's text. */
async function stdioPrompt(child, out) {
  let buffer = '';
  let text = '';
  const answers = new Map();
  child.stdout.setEncoding('utf8').on('data', (data) => {
    buffer += data;
    for (let i; (i = buffer.indexOf('\n')) >= 0; buffer = buffer.slice(i + 1)) {
      const message = JSON.parse(buffer.slice(0, i));
      if (message.method === 'session/update' && message.params.update.sessionUpdate === 'agent_message_chunk') text += message.params.update.content.text;
      else if (message.method === undefined) answers.get(message.id)?.(message);
    }
  });
  void out.exited.then((code) => {
    for (const answer of answers.values()) answer({ error: { message: `the agent exited (${code}): ${out.stderr}` } });
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((done, fail) => {
      answers.set(++id, (m) => (m.error ? fail(new Error(`${method}: ${m.error.message}`)) : done(m.result)));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const init = await request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  if (init.protocolVersion !== 1) throw new Error(`initialize answered ${JSON.stringify(init)}`);
  const { sessionId } = await request('session/new', { cwd: '/workspace', mcpServers: [] });
  const { stopReason } = await request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Say hi in Portuguese' }] });
  if (stopReason !== 'end_turn') throw new Error(`the prompt ended with ${stopReason}`);
  child.stdin.end();
  return text;
}

/**
 * Runs the checks in the working container `container` of the image; `buildah(args)` spawns
 * buildah with the check's storage options. Logs each result; throws at the first failure.
 */
export async function checkImage(buildah, container, log) {
  const agent = (env, args, stdio) =>
    buildah(
      [
        'run',
        '--isolation',
        'chroot',
        '--network',
        'host',
        '--user',
        'node',
        ...env.flatMap((e) => ['--env', e]),
        container,
        '--',
        'node',
        '/app/dist/cli.js',
        ...args,
      ],
      stdio,
    );
  const help = watch(agent([], ['--help'], ['ignore', 'pipe', 'pipe']));
  if ((await help.exited) !== 0 || !help.stdout.includes('openai-acp serve')) throw new Error(`--help failed:\n${help.stdout}${help.stderr}`);
  log('image: --help answers');
  const endpoint = await mockEndpoint();
  try {
    const env = [`OPENAI_BASE_URL=${endpoint.baseUrl}`, 'OPENAI_MODEL=mock', 'OPENAI_ACP_LOG=warn'];
    const stdio = agent(env, [], ['pipe', 'pipe', 'pipe']);
    const out = watch(stdio);
    out.stdout = '(read by the client)';
    const text = await Promise.race([
      stdioPrompt(stdio, out),
      new Promise((_, fail) => setTimeout(() => fail(new Error(`no answer on stdio within 120 s: ${out.stderr}`)), 120_000)),
    ]);
    if (text !== ANSWER) throw new Error(`the prompt answered ${JSON.stringify(text)}`);
    if ((await out.exited) !== 0) throw new Error(`the agent exited with ${await out.exited} after its stdin closed: ${out.stderr}`);
    log(`image: initialize and a prompt on stdio answer (${JSON.stringify(text)})`);

    const token = 'check-image-token-0123456789';
    const serve = agent([...env, `OPENAI_ACP_SERVE_TOKEN=${token}`], ['serve', '--port', '0', '--root', '/workspace'], ['ignore', 'pipe', 'pipe']);
    const served = watch(serve);
    try {
      let url;
      await until(
        () => (url = /openai-acp serve on (http:\/\/\S+)/.exec(served.stderr)?.[1]) !== undefined || serve.exitCode !== null,
        120_000,
        'serve to listen',
      );
      if (!url) throw new Error(`serve exited (${await served.exited}): ${served.stderr}`);
      const ready = new URL('/ready', url);
      await until(async () => (await fetch(ready).catch(() => undefined))?.status === 200, 60_000, `${ready} to answer 200`);
      log(`image: serve answers 200 on ${ready}`);
      const clientScript = fileURLToPath(new URL('../serve-client.mjs', import.meta.url));
      const remote = watch(
        spawn(process.execPath, [clientScript, '--url', url, '--cwd', '/workspace', 'Say hi in Portuguese'], {
          env: { ...process.env, OPENAI_ACP_SERVE_TOKEN: token },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      const code = await remote.exited;
      if (code !== 0 || remote.stdout.trim() !== ANSWER)
        throw new Error(`scripts/serve-client.mjs exited ${code}: ${remote.stdout}${remote.stderr}\nserve: ${served.stderr}`);
      log(`image: scripts/serve-client.mjs got the answer over WebSocket (${JSON.stringify(remote.stdout.trim())})`);
    } finally {
      serve.kill('SIGTERM');
      const stopped = await Promise.race([served.exited, new Promise((done) => setTimeout(() => done('timeout'), 30_000))]);
      if (stopped === 'timeout') serve.kill('SIGKILL');
    }
  } finally {
    endpoint.close();
  }
}
