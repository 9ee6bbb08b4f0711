/**
 * A bare `node:http` server on 127.0.0.1 (port 0) for chat-client tests: every request's JSON
 * body and headers are recorded, and the test's handler answers it however it likes (errors,
 * stalls, dropped connections). Never listens beyond loopback.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Answers one request; `body` is the parsed JSON body, `n` the 0-based request number. */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: any, n: number) => void;

export interface LoopbackServer {
  /** `http://127.0.0.1:PORT/v1/chat/completions` (a fresh port, so a fresh URL, per server). */
  url: string;
  requests: Array<{ headers: http.IncomingHttpHeaders; body: any }>;
  /** Destroys open connections and stops listening. */
  close(): Promise<void>;
}

export async function serve(handler: Handler): Promise<LoopbackServer> {
  const requests: LoopbackServer['requests'] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const body = JSON.parse(text || '{}');
      requests.push({ headers: req.headers, body });
      handler(req, res, body, requests.length - 1);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
