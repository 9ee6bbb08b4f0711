/**
 * Puts a test's `node:http` server on 127.0.0.1 at a free port, and closes it for good: open
 * connections (a stream the test left hanging, a keep-alive socket) are destroyed first, so
 * `close()` never waits on them.
 */
import type http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A listening loopback server. */
export interface Listening {
  /** The port chosen by the system. */
  port: number;
  /** Destroys open connections and stops listening. */
  close(): Promise<void>;
}

/** Listens on 127.0.0.1, port 0, tracking connections for {@link Listening.close}. */
export async function listenLoopback(server: http.Server): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
