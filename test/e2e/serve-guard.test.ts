/**
 * `openai-acp serve` refusing what it must (the built CLI, raw `fetch` and `ws` as a hostile or
 * careless client would send them): no token or a wrong one (401) and a foreign `Origin` (403)
 * before any method runs, neither echoing what was sent; malformed and oversized messages, an
 * unknown `Acp-Connection-Id`, a DELETE of another client's connection; a client that stops
 * reading; an address beyond loopback without a token; and the probes.
 */
import { join } from 'node:path';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { chunk, fakeServerPool } from '../helpers/fake-openai.js';
import { serveFixtures, startServe, until, type ServeProcess } from '../helpers/serve-client.js';

const TOKEN = 'guard-token-0123456789';
const servers = fakeServerPool();
const fixtures = serveFixtures();

async function serve(args: string[] = [], env: Record<string, string> = {}): Promise<ServeProcess & { root: string }> {
  const { home, root } = fixtures.scratch();
  const model = await servers();
  const started = await fixtures.start(home, { OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: 'test-model', ...env }, [
    '--token',
    TOKEN,
    '--root',
    root,
    ...args,
  ]);
  return Object.assign(started, { root });
}

/**
 * One server for the cases whose limits a case of another does not reach or use up (a foreign
 * Origin, the message size, the output stall): each case sets the model's handler, works in a
 * folder of its own inside the root and sees the server's stderr from its own start.
 */
const sharedServe = fixtures.sharedForFile([
  '--token',
  TOKEN,
  ...['--allow-origin', 'http://localhost:5173', '--max-message-bytes', '4096', '--max-buffered-bytes', '65536', '--max-output-stall-ms', '500'],
]);

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
const bearer = { Authorization: `Bearer ${TOKEN}` };

/** The HTTP status a WebSocket upgrade is refused with (or 101 when it opens). */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers });
    ws.once('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.once('unexpected-response', (_request, response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (d: string) => (body += d));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });
}

describe('openai-acp serve refuses', () => {
  it('401 without a token or with a wrong one, 403 for a foreign Origin, before any method runs and without echoing either', async () => {
    const server = await sharedServe();
    const wrong = 'not-the-token-but-long-enough';
    for (const headers of [{}, { Authorization: `Bearer ${wrong}` }, { Authorization: 'Basic Zm9vOmJhcg==' }] as Record<string, string>[]) {
      const answer = await post(server.url, INITIALIZE, headers);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toContain('Bearer');
      expect(answer.headers.get('acp-connection-id')).toBeNull();
      const body = await answer.text();
      expect(body).not.toContain(wrong);
      expect(body).toContain('missing or wrong token');
    }
    const ws = await upgradeStatus(server.url, { Authorization: `Bearer ${wrong}` });
    expect(ws.status).toBe(401);
    expect(ws.body).not.toContain(wrong);
    const evil = 'https://evil.example';
    const foreign = await post(server.url, INITIALIZE, { ...bearer, Origin: evil });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).not.toContain('evil');
    expect((await upgradeStatus(server.url, { ...bearer, Origin: evil })).status).toBe(403);
    // No method ran: no connection was ever opened.
    expect(server.stderr()).not.toContain('ACP connection opened');
    // The allowed page, with its token in the URL as a browser WebSocket must send it; its preflight too.
    expect((await upgradeStatus(`${server.url}?token=${TOKEN}`, { Origin: 'http://localhost:5173' })).status).toBe(101);
    const preflight = await fetch(server.url, { method: 'OPTIONS', headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    // The whole output, start-up lines included (where a --token would most likely be echoed).
    expect(server.allStderr()).not.toContain(wrong);
    expect(server.allStderr()).not.toContain(TOKEN);
  });

  it('to serve beyond loopback without a token, and a root that is not a directory, before listening', async () => {
    const { home } = fixtures.scratch();
    for (const [args, words] of [
      [['--host', '0.0.0.0'], '--host 0.0.0.0 serves beyond this machine, so a token is required: set OPENAI_ACP_SERVE_TOKEN (or --token)'],
      [['--root', join(home, 'missing')], `--root ${join(home, 'missing')} cannot be used (ENOENT)`],
      [['--allow-private-urls', '10.0.0.0/40'], '--allow-private-urls (or OPENAI_ACP_SERVE_ALLOW_PRIVATE_URLS) takes "all" or addresses and ranges'],
    ] as const) {
      const refused = await startServe(home, {}, [...args]).catch((error: { code?: number; message: string }) => error);
      expect(refused).toMatchObject({ code: 2, message: expect.stringContaining(words) });
    }
  });

  it('answers the probes without a token: /health while it runs, /ready while the process is healthy, a full table included', async () => {
    const server = await serve(['--max-connections', '1']);
    const base = server.url.replace(/\/acp$/, '');
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`${base}/ready`)).status).toBe(200);
    await fixtures.connect(server.url, 'ws', { token: TOKEN });
    // Full, yet healthy: a probe must not take it out of service for serving the clients it holds.
    const full = await fetch(`${base}/ready`);
    expect(full.status).toBe(200);
    expect(await full.json()).toEqual({ ready: true });
    // One connection more is refused, on either transport.
    expect((await post(server.url, INITIALIZE, bearer)).status).toBe(503);
    expect((await upgradeStatus(server.url, bearer)).status).toBe(503);
    expect((await fetch(`${base}/elsewhere`, { headers: bearer })).status).toBe(404);
  });

  it('malformed and oversized bodies, an unknown connection id, and a DELETE of another client’s connection get clear errors; nothing else is touched', async () => {
    const server = await sharedServe();
    const owner = await fixtures.connect(server.url, 'http', { token: TOKEN });
    const { sessionId } = await owner.agent.request('session/new', { cwd: server.cwd, mcpServers: [] });
    const initialize = await post(server.url, INITIALIZE, bearer);
    expect(initialize.status).toBe(200);
    const connectionId = initialize.headers.get('acp-connection-id')!;
    const cookie = initialize.headers.get('set-cookie')!.split(';')[0]!;
    const mine = { ...bearer, 'Acp-Connection-Id': connectionId, Cookie: cookie };

    expect((await post(server.url, '{"jsonrpc": "2.0", "id": 2, "method": ', mine)).status).toBe(400);
    expect((await fetch(server.url, { method: 'POST', headers: { ...mine, 'Content-Type': 'text/plain' }, body: '{}' })).status).toBe(415);
    const batch = await post(server.url, '[{"jsonrpc":"2.0","id":3,"method":"session/list"}]', mine);
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: { code: number } }).error.code).toBe(-32600);
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'session/list', params: { cursor: 'x'.repeat(8192) } });
    expect((await post(server.url, huge, mine)).status).toBe(413);
    const unknown = await post(server.url, '{"jsonrpc":"2.0","id":5,"method":"session/list","params":{}}', {
      ...bearer,
      'Acp-Connection-Id': 'no-such-connection',
      Cookie: cookie,
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe('Unknown Acp-Connection-Id');

    // Another client (no cookie, or its own) cannot post to, listen on, or delete this connection.
    for (const stranger of [bearer, { ...bearer, Cookie: 'acp-client=someone-else' }]) {
      const headers = { ...stranger, 'Acp-Connection-Id': connectionId };
      expect((await fetch(server.url, { method: 'DELETE', headers })).status).toBe(404);
      expect((await post(server.url, '{"jsonrpc":"2.0","id":6,"method":"session/list","params":{}}', headers)).status).toBe(404);
      expect((await fetch(server.url, { headers: { ...headers, Accept: 'text/event-stream' } })).status).toBe(404);
    }
    // Its owner can, and the other connection went on working throughout.
    expect((await fetch(server.url, { method: 'DELETE', headers: mine })).status).toBe(202);
    const listed: { sessions: { sessionId: string }[] } = await owner.agent.request('session/list', { cwd: server.cwd });
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([sessionId]);

    // A WebSocket message over the limit closes that socket (1009), not the server.
    const ws = new WebSocket(server.url.replace(/^http/, 'ws'), { headers: bearer });
    await new Promise((resolve) => ws.once('open', resolve));
    const code = new Promise<number>((resolve) => ws.once('close', (c) => resolve(c)));
    ws.send(huge);
    expect(await code).toBe(1009);
    const after: { sessions: unknown[] } = await owner.agent.request('session/list', { cwd: server.cwd });
    expect(after.sessions).toHaveLength(1);
  });

  it('disconnects a client that stops reading once its buffer is full, while another client goes on', async () => {
    const server = await sharedServe((_req, res, body) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (JSON.stringify(body.messages.at(-1)).includes('short')) {
        res.end(`${chunk({ content: 'A short answer.' }, 'stop')}data: [DONE]\n\n`);
        return;
      }
      // An endless answer: far more than the sockets and the buffer hold.
      const piece = chunk({ content: 'x'.repeat(16_384) });
      const pump = () => {
        while (!res.destroyed && res.write(piece));
      };
      pump();
      res.on('drain', pump);
    });
    let paused: WebSocket | undefined;
    const stalled = await fixtures.connect(server.url, 'ws', { token: TOKEN, onSocket: (socket) => (paused = socket) });
    const reader = await fixtures.connect(server.url, 'ws', { token: TOKEN });
    const { sessionId } = await stalled.agent.request('session/new', { cwd: server.cwd, mcpServers: [] });
    const turn = stalled.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'talk forever' }] }).catch((error: unknown) => error);
    await until(() => stalled.text(sessionId).length > 0, 10_000, 'the first chunk');
    // It stops reading: its socket takes nothing more.
    (paused as unknown as { _socket: { pause(): void } })._socket.pause();
    await until(() => /Closing ACP connection .*maxOutputStallMs/.test(server.stderr()), 20_000, 'the stalled connection to be closed');
    // The other client was served meanwhile, and still is.
    const other = (await reader.agent.request('session/new', { cwd: server.cwd, mcpServers: [] })).sessionId;
    const answer: { stopReason: string } = await reader.agent.request('session/prompt', { sessionId: other, prompt: [{ type: 'text', text: 'a short one' }] });
    expect(answer.stopReason).toBe('end_turn');
    expect(reader.text(other)).toBe('A short answer.');
    void turn;
    // The stalled client's turn was cancelled and saved: the reader can load what it said.
    await until(() => server.stderr().includes('ACP connection closed'), 10_000, 'the connection to close');
    await reader.agent.request('session/load', { sessionId, cwd: server.cwd, mcpServers: [] });
    expect(reader.text(sessionId)).toMatch(/^x{16384}/);
  });
});
