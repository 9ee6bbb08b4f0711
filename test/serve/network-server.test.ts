/**
 * The network server of `openai-acp serve` in process (the lazy chunk's source): a Streamable
 * HTTP client that went away without a DELETE has its connection ended once it has had no event
 * stream open for a while (its turns then cancelled, as a closed WebSocket's are at once), while a
 * connection with a stream open stays; and the bookkeeping of connections and their clients.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIAgent } from '../../src/acp/agent.js';
import { createLogger } from '../../src/shared/log.js';
import { startNetworkServer, type NetworkServer } from '../../src/serve/network-server.lazy.js';
import { clientIdOf, HttpConnections } from '../../src/serve/http-connections.js';
import { SERVE_LIMITS } from '../../src/serve/serve-flags.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { testConfig } from '../helpers/in-process.js';

const quiet = createLogger({ level: 'error', write: () => undefined });
const running: NetworkServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

async function start(httpIdleMs: number): Promise<NetworkServer> {
  const agent = createOpenAIAgent({
    config: testConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }),
    logger: quiet,
    store: openSessionStore({ stateDir: 'off', env: {}, logger: quiet }),
  });
  const server = await startNetworkServer({
    agent,
    host: '127.0.0.1',
    port: 0,
    token: undefined,
    allowOrigins: [],
    limits: SERVE_LIMITS,
    logger: quiet,
    notReady: () => undefined,
    httpIdleMs,
  });
  running.push(server);
  return server;
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/list', params: {} });

async function initialize(url: string): Promise<Record<string, string>> {
  const answer = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: INITIALIZE });
  expect(answer.status).toBe(200);
  return { 'Acp-Connection-Id': answer.headers.get('acp-connection-id')!, Cookie: answer.headers.get('set-cookie')!.split(';')[0]! };
}

describe('Streamable HTTP connections whose client went away', () => {
  it('are ended after the idle time without an event stream; one with a stream open stays', async () => {
    // Long enough for both to be made on a busy machine before the first is ended.
    const server = await start(1_500);
    const staying = await initialize(server.url);
    const stream = await fetch(server.url, { headers: { ...staying, Accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    const gone = await initialize(server.url);
    expect(server.connections).toBe(2);
    for (let i = 0; i < 1_000 && server.connections > 1; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.connections).toBe(1);
    const post = (headers: Record<string, string>) =>
      fetch(server.url, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: LIST });
    expect((await post(gone)).status).toBe(404);
    expect((await post(staying)).status).toBe(202);
    await stream.body?.cancel();
  });
});

describe('HttpConnections', () => {
  it('knows each connection by its client, counts its streams, and names the idle ones', () => {
    const connections = new HttpConnections();
    connections.created('c1', 'client-a', 1_000);
    expect(connections.owns('c1', 'client-a')).toBe(true);
    expect(connections.owns('c1', 'client-b')).toBe(false);
    expect(connections.owns('c1', undefined)).toBe(false);
    expect(connections.owns('c2', 'client-a')).toBe(false);
    connections.streamOpened('c1');
    connections.streamOpened('c1');
    expect(connections.idle(99_999, 10)).toEqual([]);
    connections.streamClosed('c1', 2_000);
    expect(connections.idle(99_999, 10)).toEqual([]);
    connections.streamClosed('c1', 3_000);
    expect(connections.idle(3_009, 10)).toEqual([]);
    expect(connections.idle(3_010, 10)).toEqual(['c1']);
    connections.forget('c1');
    expect(connections.size).toBe(0);
  });

  it('reads the client cookie among others', () => {
    expect(clientIdOf('a=1; acp-client=xyz; b=2')).toBe('xyz');
    expect(clientIdOf('acp-clientx=1')).toBeUndefined();
    expect(clientIdOf(undefined)).toBeUndefined();
  });
});
