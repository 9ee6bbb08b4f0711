/**
 * A message nested too deep is refused by `openai-acp serve` as its first bracket past the limit
 * arrives, not once the whole message is in: over Streamable HTTP the 400 comes while the client is
 * still sending the body (a body that never ends), over a WebSocket the -32600 comes after the
 * first fragment of a message whose last never comes. In process; raw
 * sockets, as a hostile client would write.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { INITIALIZE, networkServers } from '../helpers/network-server.js';

const start = networkServers();

describe('a message nested too deep', () => {
  it('over Streamable HTTP is answered 400 (-32600) while its body is still coming', async () => {
    const server = await start();
    const init = await fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: INITIALIZE });
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8').on('data', (data: string) => (answer += data));
    // Announced as 8 MiB; only its first 64 KiB are ever sent.
    socket.write(
      [
        'POST /acp HTTP/1.1',
        'Host: 127.0.0.1',
        'Content-Type: application/json',
        `Acp-Connection-Id: ${init.headers.get('acp-connection-id')}`,
        `Cookie: ${init.headers.get('set-cookie')!.split(';')[0]}`,
        `Content-Length: ${8 * 1024 * 1024}`,
        '',
        `{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"cursor":${'['.repeat(64 * 1024)}`,
      ].join('\r\n'),
    );
    while (!answer.includes('-32600')) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('"maxDepth":128');
    socket.destroy();
  });

  it('over a WebSocket is answered -32600 after its first fragment, its end never sent', async () => {
    const server = await start();
    const ws = new WebSocket(server.url.replace(/^http/, 'ws'));
    await new Promise((resolve) => ws.once('open', resolve));
    const next = () => new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
    let message = next();
    ws.send(INITIALIZE);
    await message;
    message = next();
    // The first fragment of a text message (FIN unset); no other ever follows.
    ws.send(`{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"cursor":${'['.repeat(1_000)}`, { fin: false });
    expect(JSON.parse(await message)).toMatchObject({ id: null, error: { code: -32600, data: { maxDepth: 128 } } });
  });
});
