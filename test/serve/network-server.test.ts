/**
 * The network server of `openai-acp serve` in process (the lazy chunk's source), with small limits:
 * a Streamable HTTP connection whose client never opens its event stream is ended after the
 * handshake time; one whose client went away without a DELETE once it has had no event stream
 * open for a while (its turns then cancelled, as a closed WebSocket's are at once), while a
 * connection with a stream open stays; one whose stream sits idle after the idle time, its
 * sessions let go of; and the bookkeeping of connections and their clients. Waits for outcomes.
 */
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { client } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { clientIdOf, HttpConnections } from '../../src/serve/http-connections.js';
import type { ServeLimits } from '../../src/serve/serve-flags.js';
import { INITIALIZE, networkServers, until } from '../helpers/network-server.js';

const serveTest = networkServers();
const start = (httpIdleMs: number, limits: Partial<ServeLimits> = {}) => serveTest({ httpIdleMs, limits });

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/list', params: {} });

async function initialize(url: string): Promise<Record<string, string>> {
  const answer = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: INITIALIZE });
  expect(answer.status).toBe(200);
  return { 'Acp-Connection-Id': answer.headers.get('acp-connection-id')!, Cookie: answer.headers.get('set-cookie')!.split(';')[0]! };
}

const post = (url: string, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: LIST });

describe('Streamable HTTP connections whose client went away', () => {
  it('are ended after the idle time without an event stream once they had one; one with a stream open stays', async () => {
    // Long enough for both to be made on a busy machine before the first is ended.
    const server = await start(1_500);
    const staying = await initialize(server.url);
    const stream = await fetch(server.url, { headers: { ...staying, Accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    const gone = await initialize(server.url);
    const goneStream = await fetch(server.url, { headers: { ...gone, Accept: 'text/event-stream' } });
    await goneStream.body?.cancel();
    await until(() => server.connections === 1);
    expect((await post(server.url, gone)).status).toBe(404);
    expect((await post(server.url, staying)).status).toBe(202);
    await stream.body?.cancel();
  });
});

describe('Streamable HTTP connections that are not used', () => {
  it('one whose client never opens its event stream after initialize is ended after the handshake time', async () => {
    const server = await start(60_000, { handshakeTimeoutMs: 300 });
    const never = await initialize(server.url);
    await until(() => server.connections === 0);
    expect((await post(server.url, never)).status).toBe(404);
  });

  it('one whose event stream sits idle (no message either way) is ended after the idle time, its sessions let go of', async () => {
    // Long enough for the other client's first delete to come while the idle one still holds the session on a busy machine.
    const server = await start(60_000, { idleTimeoutMs: 8_000 });
    const connect = async () => {
      const connection = client().connect(createHttpStream(server.url));
      await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      return connection;
    };
    const other = await connect();
    const idle = await connect();
    const { sessionId } = await idle.agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    // While the idle connection holds the session, another may not delete it.
    await expect(other.agent.request('session/delete', { sessionId })).rejects.toMatchObject({ code: -32600, data: { sessionId, reason: 'held' } });
    // The other one keeps asking (a message each time, so it stays) until the idle one is ended and its hold let go of.
    await until(async () =>
      other.agent.request('session/delete', { sessionId }).then(
        () => true,
        () => false,
      ),
    );
    await idle.closed;
    expect(server.connections).toBe(1);
    other.close();
  }, 60_000);
});

describe('HttpConnections', () => {
  it('knows each connection by its client, counts its streams, and names the ones to end, with why', () => {
    const timeouts = { handshakeMs: 100, streamlessMs: 10, idleMs: 1_000 };
    const connections = new HttpConnections();
    connections.created('c1', 'client-a', 1_000, '10.0.0.1');
    expect(connections.owns('c1', 'client-a')).toBe(true);
    expect(connections.owns('c1', 'client-b')).toBe(false);
    expect(connections.owns('c1', undefined)).toBe(false);
    expect(connections.owns('c2', 'client-a')).toBe(false);
    expect(connections.addressOf('c1')).toBe('10.0.0.1');
    // Never streamed: ended after the handshake time, not the shorter streamless one.
    expect(connections.expired(1_099, timeouts)).toEqual([]);
    expect(connections.expired(1_100, timeouts)).toEqual([
      { connectionId: 'c1', address: '10.0.0.1', reason: expect.stringContaining('no event stream opened') },
    ]);
    connections.streamOpened('c1');
    connections.streamOpened('c1');
    expect(connections.expired(1_500, timeouts)).toEqual([]);
    connections.streamClosed('c1', 1_600);
    expect(connections.expired(1_700, timeouts)).toEqual([]);
    connections.streamClosed('c1', 1_800);
    expect(connections.expired(1_809, timeouts)).toEqual([]);
    expect(connections.expired(1_810, timeouts).map((e) => e.reason)).toEqual([expect.stringContaining('no event stream open for 10 ms')]);
    // A stream open but no message either way: ended after the idle time, counted from the last message.
    connections.streamOpened('c1');
    connections.messaged('c1', 1_900);
    expect(connections.expired(2_899, timeouts)).toEqual([]);
    expect(connections.expired(2_900, timeouts).map((e) => e.reason)).toEqual(['idle for 1000 ms']);
    connections.forget('c1');
    expect(connections.size).toBe(0);
    expect(connections.addressOf('c1')).toBeUndefined();
  });

  it('reads the client cookie among others', () => {
    expect(clientIdOf('a=1; acp-client=xyz; b=2')).toBe('xyz');
    expect(clientIdOf('acp-clientx=1')).toBeUndefined();
    expect(clientIdOf(undefined)).toBeUndefined();
  });
});
