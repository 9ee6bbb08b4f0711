/**
 * `openai-acp serve` keeping itself and other clients safe from one client (the built CLI; the
 * SDK's ws and http clients, raw `ws` and `fetch` where a hostile client would send raw bytes):
 * stdio MCP servers a client names are refused unless the operator allowed the command; HTTP MCP
 * servers are not reached at private addresses unless allowed; a WebSocket that never initializes
 * and an idle one are closed; connections are limited per address; a deeply nested message is
 * refused while `/health` answers; wrong tokens are throttled and junk is logged in summary; and
 * SIGTERM (twice) answers every running turn `cancelled` before the process exits.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { chunk, fakeServerPool, type ChatHandler } from '../helpers/fake-openai.js';
import { serveFixtures, until, type ServeProcess, type Transport } from '../helpers/serve-client.js';
import { startHttpServers, stdioServer } from '../tools/mcp/helpers.js';

const TOKEN = 'limits-token-0123456789';
const servers = fakeServerPool();
const fixtures = serveFixtures();
const bearer = { Authorization: `Bearer ${TOKEN}` };
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });

async function serve(args: string[] = [], handler?: ChatHandler): Promise<ServeProcess & { root: string; home: string }> {
  const { home, root } = fixtures.scratch();
  const model = await servers(handler);
  const started = await fixtures.start(home, { OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: 'test-model' }, ['--token', TOKEN, '--root', root, ...args]);
  return Object.assign(started, { root, home });
}

/**
 * One server (`--allow-mcp` node) for the cases that neither set limits nor use them up, stop it
 * or prompt: each works in a folder of its own inside the root.
 */
const sharedServe = fixtures.sharedForFile(['--token', TOKEN, '--allow-mcp', process.execPath]);

/** A raw WebSocket to the server, open. */
async function rawSocket(url: string, headers: Record<string, string> = bearer): Promise<WebSocket> {
  const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return ws;
}

/** The status a WebSocket upgrade gets (101 when it opens; closed again at once). */
function upgradeStatus(url: string, headers: Record<string, string> = bearer): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers });
    ws.once('open', () => resolve(101));
    ws.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    ws.once('error', reject);
  });
}

describe.each(['ws', 'http'] as Transport[])('stdio MCP servers named by a client over %s', (transport) => {
  it('are refused with -32602 naming --allow-mcp, before anything runs or any session is made; an allowed command runs', async () => {
    const server = await sharedServe();
    const client = await fixtures.connect(server.url, transport, { token: TOKEN });
    const outside = join(server.home, `ran-${transport}.txt`);
    const shell = { name: 'x', command: '/bin/sh', args: ['-c', `id -u > ${outside}`], env: [] };
    const refused = await client.agent.request('session/new', { cwd: server.cwd, mcpServers: [shell] }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32602, data: { mcpServers: 0, name: 'x', command: '/bin/sh', flag: '--allow-mcp' } });
    expect((refused as Error).message).toContain('openai-acp serve --allow-mcp /bin/sh');
    const listed: { sessions: unknown[] } = await client.agent.request('session/list', { cwd: server.cwd });
    expect(listed.sessions).toEqual([]);
    // The operator's command (node, running the MCP fixture) is let in.
    const { sessionId } = (await client.agent.request('session/new', { cwd: server.cwd, mcpServers: [stdioServer('fx')] })) as { sessionId: string };
    expect(sessionId).toEqual(expect.any(String));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(outside)).toBe(false);
  });
});

describe('HTTP MCP servers named by a client', () => {
  it('are not reached at a loopback address unless the operator allows it (--allow-private-urls)', async () => {
    const mcp = await startHttpServers();
    try {
      const entry = { type: 'http' as const, name: 'web', url: `${mcp.url}/mcp`, headers: [{ name: 'Authorization', value: 'Bearer client-chosen' }] };
      const closed = await sharedServe();
      const client = await fixtures.connect(closed.url, 'ws', { token: TOKEN });
      await client.agent.request('session/new', { cwd: closed.cwd, mcpServers: [entry] });
      expect(mcp.headers.get('/mcp')).toBeUndefined();
      const open = await serve(['--allow-private-urls', '127.0.0.1']);
      const allowed = await fixtures.connect(open.url, 'ws', { token: TOKEN });
      await allowed.agent.request('session/new', { cwd: open.root, mcpServers: [entry] });
      expect(mcp.headers.get('/mcp')?.[0]?.authorization).toBe('Bearer client-chosen');
    } finally {
      await mcp.close();
    }
  });
});

describe('connections', () => {
  it('a WebSocket that never initializes is closed after the handshake time, or past 256 KiB before it; an initialized one that goes quiet after the idle time', async () => {
    const server = await serve(['--handshake-timeout-ms', '500', '--idle-timeout-ms', '1500']);
    const silent = await rawSocket(server.url);
    const code = await new Promise<number>((resolve) => silent.once('close', (c) => resolve(c)));
    expect(code).toBe(1008);
    expect(server.stderr()).toMatch(/ACP client closed: no initialize within 500 ms .*"address":"127\.0\.0\.1"/);
    // Nor may it send more than 256 KiB before initialize (the unfinished message would be held in memory).
    const flooding = await rawSocket(server.url);
    const cut = new Promise<number>((resolve) => flooding.once('close', (c) => resolve(c)));
    flooding.send('x'.repeat(300 * 1024));
    expect(await cut).toBe(1006);
    expect(server.stderr()).toContain('ACP client closed: more than 262144 bytes before initialize');
    const client = await fixtures.connect(server.url, 'ws', { token: TOKEN });
    await client.closed;
    expect(server.stderr()).toMatch(/ACP client closed: idle for 1500 ms/);
  });

  it('are limited per client address (429), while /ready stays 200', async () => {
    const server = await serve(['--max-connections-per-address', '2']);
    const base = server.url.replace(/\/acp$/, '');
    await fixtures.connect(server.url, 'ws', { token: TOKEN });
    await fixtures.connect(server.url, 'http', { token: TOKEN });
    expect(await upgradeStatus(server.url)).toBe(429);
    const third = await post(server.url, INITIALIZE, bearer);
    expect(third.status).toBe(429);
    expect(await third.text()).toContain('--max-connections-per-address');
    expect((await fetch(`${base}/ready`)).status).toBe(200);
  });

  it('a message nested 7 million levels deep is refused with -32600 on either transport while /health answers; the connection goes on', async () => {
    const server = await sharedServe();
    const base = server.url.replace(/\/acp$/, '');
    const depth = 7_800_000;
    const nested = `{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"cursor":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const ws = await rawSocket(server.url);
    ws.send(INITIALIZE);
    await new Promise((resolve) => ws.once('message', resolve));
    const answer = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
    ws.send(nested);
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(JSON.parse(await answer)).toMatchObject({ id: null, error: { code: -32600, data: { maxDepth: 128 } } });
    const listed = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'session/list', params: { cwd: server.cwd } }));
    expect(JSON.parse(await listed)).toMatchObject({ id: 3, result: { sessions: [] } });
    ws.close();

    const init = await post(server.url, INITIALIZE, bearer);
    const mine = { ...bearer, 'Acp-Connection-Id': init.headers.get('acp-connection-id')!, Cookie: init.headers.get('set-cookie')!.split(';')[0]! };
    const [refused, probe] = await Promise.all([post(server.url, nested, mine), fetch(`${base}/health`)]);
    expect(probe.status).toBe(200);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: -32600 } });
    expect(server.stderr()).toMatch(/ACP client refused a message nested deeper than 128 levels .*"address":"127\.0\.0\.1"/);
  }, 60_000);

  it('wrong tokens from one address are throttled (429, even with the right token, until the delay passes); junk is logged in summary', async () => {
    const server = await serve();
    const wrong = { Authorization: 'Bearer not-the-token-at-all' };
    const statuses: number[] = [];
    // Five failures are free; the sixth starts a delay of 1 s.
    for (let i = 0; i < 7; i++) statuses.push((await post(server.url, INITIALIZE, wrong)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
    const blocked = await post(server.url, INITIALIZE, bearer);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await upgradeStatus(server.url)).toBe(429);
    expect(server.stderr()).toMatch(/ACP client refused: missing or wrong token .*"address":"127\.0\.0\.1"/);
    // After the delay the right token gets in.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const junk = await fixtures.connect(server.url, 'ws', { token: TOKEN }).catch(() => undefined);
    expect(junk).toBeDefined();
    const ws = await rawSocket(server.url);
    for (let i = 0; i < 300; i++) ws.send(Buffer.from([0, 1, 2]), { binary: true });
    ws.send(INITIALIZE);
    await new Promise((resolve) => ws.once('message', resolve));
    const lines = server
      .stderr()
      .split('\n')
      .filter((line) => line.includes('binary frame'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(4);
    ws.close();
  });
});

describe('SIGTERM', () => {
  it('answers all 5 running turns cancelled before the process exits; a second SIGTERM waits for the same drain', async () => {
    const hanging: ChatHandler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'Working on it' }));
    };
    const server = await serve([], hanging);
    const running = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const client = await fixtures.connect(server.url, i % 2 === 0 ? 'ws' : 'http', { token: TOKEN });
        const { sessionId } = await client.agent.request('session/new', { cwd: server.root, mcpServers: [] });
        const answer = client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `turn ${i}` }] }).catch((error: unknown) => error);
        await until(() => client.text(sessionId).length > 0, 20_000, `the first chunk of turn ${i}`);
        // Wrapped: an async function returning the promise itself would wait for it.
        return { answer: answer as Promise<{ stopReason?: string }> };
      }),
    );
    const turns = running.map((turn) => turn.answer);
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 20));
    server.child.kill('SIGTERM');
    const answers = await Promise.all(turns);
    expect(answers.map((answer) => answer.stopReason)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
    expect(await server.exited).toBe(0);
    expect(server.stderr()).toContain('SIGTERM again: still stopping');
  }, 60_000);

  it('SIGKILL mid-turn loses at most the answer: the prompt was saved as the turn started', async () => {
    const hanging: ChatHandler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ content: 'Half' }));
    };
    const { home, root } = fixtures.scratch();
    const model = await servers(hanging);
    const env = { OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: 'test-model' };
    const first = await fixtures.start(home, env, ['--token', TOKEN, '--root', root]);
    const client = await fixtures.connect(first.url, 'ws', { token: TOKEN });
    const { sessionId } = (await client.agent.request('session/new', { cwd: root, mcpServers: [] })) as { sessionId: string };
    void client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'the question that must survive' }] }).catch(() => undefined);
    await until(() => client.text(sessionId).length > 0, 20_000, 'the first chunk');
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await fixtures.start(home, env, ['--token', TOKEN, '--root', root]);
    const back = await fixtures.connect(second.url, 'ws', { token: TOKEN });
    await back.agent.request('session/load', { sessionId, cwd: root, mcpServers: [] });
    const replayed = back.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
    expect(replayed.find((u) => u.sessionUpdate === 'user_message_chunk')).toMatchObject({ content: { text: 'the question that must survive' } });
  }, 60_000);
});
