/**
 * Every log line of `openai-acp serve` about a connection carries the client's address, secrets
 * redacted: the SDK's own server lines (written with `console.warn`/`console.error`), the network
 * server's and the agent's lines over either transport, and lines outside any connection's work
 * that name a connection id. In process, with a logger that keeps its lines.
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ConnectionLog } from '../../src/serve/connection-log.js';
import type { NetworkServer } from '../../src/serve/network-server.lazy.js';
import type { ServeLimits } from '../../src/serve/serve-flags.js';
import { createLogger } from '../../src/shared/log.js';
import { INITIALIZE, networkServers, until } from '../helpers/network-server.js';

const SECRET = 'sekrit-token-0123456789';
const serveTest = networkServers();

/** A server whose log lines (the agent's and its own) are kept, redacting {@link SECRET}. */
async function start(limits: Partial<ServeLimits> = {}): Promise<{ server: NetworkServer; lines: string[] }> {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', secrets: [SECRET], write: (line) => void lines.push(line) });
  return { server: await serveTest({ limits, logger, connectionLog: new ConnectionLog() }), lines };
}

const lineWith = (lines: string[], text: string) => () => lines.some((line) => line.includes(text));

async function openSocket(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url.replace(/^http/, 'ws'));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return ws;
}

/** The lines written once a connection was made (the start-up lines before it say nothing of one). */
const connectionLines = (lines: string[]) => lines.slice(lines.findIndex((line) => line.includes('ACP connection opened')));

describe("serve's log lines about a connection", () => {
  it("over a WebSocket: the SDK's, the server's and the agent's lines all carry the client's address", async () => {
    const { server, lines } = await start();
    const first = await openSocket(server.url);
    first.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/list', params: {} }));
    await until(lineWith(lines, 'First ACP WebSocket message must be initialize'));
    await until(lineWith(lines, 'ACP connection closed'));
    const ws = await openSocket(server.url);
    ws.send(INITIALIZE);
    await new Promise((resolve) => ws.once('message', resolve));
    ws.terminate();
    await until(() => lines.filter((line) => line.includes('ACP connection closed')).length === 2);
    const written = connectionLines(lines);
    expect(written.length).toBeGreaterThanOrEqual(4);
    for (const line of written) expect(line).toContain('"address":"127.0.0.1"');
  });

  it("over Streamable HTTP: the server's and the agent's lines carry it, the end of an unused connection too", async () => {
    const { server, lines } = await start({ handshakeTimeoutMs: 200 });
    await fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: INITIALIZE });
    await until(lineWith(lines, 'connection ended: no event stream opened within 200 ms'));
    await until(lineWith(lines, 'ACP connection closed'));
    const written = connectionLines(lines);
    expect(written.length).toBeGreaterThanOrEqual(3);
    for (const line of written) expect(line).toContain('"address":"127.0.0.1"');
  });
});

describe('ConnectionLog', () => {
  it('gives a console line outside any connection the address of the connection id it names, secrets redacted; repeats are summarised per address', () => {
    const lines: string[] = [];
    const log = new ConnectionLog();
    const restore = log.routeConsole(createLogger({ level: 'warn', secrets: [SECRET], write: (line) => void lines.push(line) }), (id) =>
      id === '0c6f1a52-3c7e-4a35-9d0e-5a8f0b6c1d2e' ? '10.1.2.3' : undefined,
    );
    try {
      console.warn('Closing ACP connection 0c6f1a52-3c7e-4a35-9d0e-5a8f0b6c1d2e:', 'output stalled');
      console.warn(`no connection named here, a secret: ${SECRET}`);
      log.run('10.9.9.9', () => {
        for (let i = 0; i < 150; i++) console.error(`junk frame ${i}`);
      });
    } finally {
      restore();
    }
    expect(lines[0]).toContain('"address":"10.1.2.3"');
    expect(lines[1]).not.toContain('address');
    expect(lines[1]).toContain('a secret: ***');
    const junk = lines.filter((line) => line.includes('junk frame'));
    expect(junk.length).toBe(2);
    expect(junk.every((line) => line.includes('"address":"10.9.9.9"'))).toBe(true);
    expect(junk[1]).toContain('"repeated":"100"');
  });
});
