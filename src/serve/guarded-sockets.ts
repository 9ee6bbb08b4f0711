/**
 * The `ws` server as the SDK's upgrade adapter uses it, for one client address: each socket it
 * accepts is counted for that address while open, its events run in the connection's log context
 * (`connection-log.ts`: the SDK's session reads its messages there), and it is guarded
 * (`socket-guard.ts`) before the SDK's session reads it. Imported only by the network server's
 * lazy chunk.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { ConnectionLog } from './connection-log.js';
import { guardSocket, type SocketGuardOptions } from './socket-guard.js';

/** What the sockets of one address share with the server. */
export interface GuardedSocketsOptions {
  /** WebSockets open, by client address (kept here). */
  openFrom: Map<string, number>;
  connectionLog: ConnectionLog;
  /** How each socket is guarded. */
  guard: SocketGuardOptions;
}

/** `sockets` as the SDK's `createNodeWebSocketUpgradeHandler` takes it, for the client at `address`. */
export function guardedSockets(sockets: WebSocketServer, address: string, options: GuardedSocketsOptions) {
  const { openFrom, connectionLog } = options;
  return {
    on: sockets.on.bind(sockets),
    off: sockets.off.bind(sockets),
    handleUpgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer, done: (ws: WebSocket) => void) =>
      sockets.handleUpgrade(req, socket, head, (ws) => {
        openFrom.set(address, (openFrom.get(address) ?? 0) + 1);
        ws.once('close', () => {
          const left = (openFrom.get(address) ?? 1) - 1;
          if (left > 0) openFrom.set(address, left);
          else openFrom.delete(address);
        });
        const emit = ws.emit.bind(ws) as (event: string | symbol, ...args: unknown[]) => boolean;
        ws.emit = ((event: string | symbol, ...args: unknown[]) => connectionLog.run(address, () => emit(event, ...args))) as typeof ws.emit;
        guardSocket(ws, socket, options.guard);
        done(ws);
      }),
  };
}
