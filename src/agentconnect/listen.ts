/**
 * Starting a `node:http` server of a network front door (AgentConnect's, `openai-acp serve`'s) on
 * an address and port, as a URL names it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Listens on `host` and `port` (0 picks a free one); resolves with the address as a URL's
 * authority, `127.0.0.1:8765` or `[::1]:8765`.
 * @throws the listen error (e.g. EADDRINUSE, EACCES).
 */
export async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return `${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}
