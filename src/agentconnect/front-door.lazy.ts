/**
 * The AgentConnect front door: a WebSocket server (the `ws` library) speaking JSON-RPC 2.0, one
 * message per WebSocket text frame, as AgentConnect's hosts do. A ping after the answer opening a
 * session tells when the app has read it (its pong; RFC 6455 §5.5.2–5.5.3): the session's events
 * follow only then (`session-events.ts`). Every upgrade request passes the
 * gate (`gate.ts`: origin, token) before the WebSocket opens, so a refused page never reaches a
 * method. A message is at most {@link MAX_MESSAGE_BYTES}; a bad one is answered and logged, never
 * echoed. A lazy chunk: serving ACP never loads it or `ws`.
 *
 * Source: AgentConnect v0.2.6 `docs/PROTOCOL.md` ("Connection Model": `ws://127.0.0.1:9630` by
 * default; "AgentConnect Protocol": JSON-RPC 2.0 over WebSocket; "Session Events").
 */
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AgentCatalog } from '../acp/agent.js';
import type { Logger } from '../shared/log.js';
import type { ClientFactory } from './acp-bridge.js';
import { admit, type GateRules } from './gate.js';
import { listen } from './listen.js';
import { AgentConnectHost } from './host.js';
import type { Peer } from './host-sessions.js';
import type { FrontDoorAgent } from './peer-links.js';
import { AgentConnectError, type FrontDoorMode } from './protocol.js';

/** Largest WebSocket message accepted, in bytes (a larger one closes that connection with 1009). */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** What the front door is built from. */
export interface FrontDoorOptions extends GateRules {
  /** The agent served (`createOpenAIAgent`): each WebSocket gets its own connection into it. */
  agent: FrontDoorAgent;
  client: ClientFactory;
  catalog: AgentCatalog;
  /** Address to listen on, e.g. `127.0.0.1`. */
  host: string;
  /** Port to listen on; 0 picks a free one. */
  port: number;
  mode: FrontDoorMode;
  version: string;
  /** The working directory of sessions that name none. */
  cwd: string;
  logger: Logger;
  redact: (text: string) => string;
}

/** A running front door. */
export interface FrontDoor {
  /** `ws://host:port` as listened on. */
  url: string;
  /** Stops listening, cancels running turns and closes every connection. */
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** Starts the front door; resolves once it listens. @throws the listen error (e.g. EADDRINUSE). */
export async function serveAgentConnect(options: FrontDoorOptions): Promise<FrontDoor> {
  const { logger } = options;
  const host = new AgentConnectHost({
    agent: options.agent,
    client: options.client,
    mode: options.mode,
    catalog: options.catalog,
    version: options.version,
    baseCwd: options.cwd,
    logger,
    redact: options.redact,
  });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const peers = new Map<WebSocket, Peer>();

  const server = http.createServer((_request, response) => {
    response
      .writeHead(426, { 'content-type': 'text/plain; charset=utf-8', upgrade: 'websocket' })
      .end('openai-acp AgentConnect front door: connect with a WebSocket.\n');
  });
  server.on('upgrade', (request, socket, head) => {
    const verdict = admit({ origin: request.headers.origin, url: request.url, authorization: request.headers.authorization }, options);
    if (!verdict.ok) {
      logger.warn('AgentConnect connection refused', {
        reason: verdict.reason,
        ...(request.headers.origin ? { origin: request.headers.origin.slice(0, 200) } : {}),
      });
      socket.end(
        `HTTP/1.1 ${verdict.status} ${verdict.status === 403 ? 'Forbidden' : 'Unauthorized'}\r\n` +
          `Connection: close\r\nContent-Type: text/plain\r\n\r\n${verdict.reason}\n`,
      );
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
  });

  sockets.on('connection', (ws: WebSocket) => {
    const write = (message: Json) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    // Pings waiting for their pong, by payload: a pong comes after the app read what was written before the ping.
    const reads = new Map<string, () => void>();
    let pings = 0;
    ws.on('pong', (data) => {
      const key = data.toString();
      const then = reads.get(key);
      reads.delete(key);
      then?.();
    });
    const peer: Peer = {
      push: (sessionId, event) => write({ jsonrpc: '2.0', method: 'acp.session.event', params: { sessionId, type: event.type, data: event.data } }),
      whenRead: (then) => {
        if (ws.readyState !== ws.OPEN) return;
        const key = `read-${++pings}`;
        reads.set(key, then);
        ws.ping(key);
      },
    };
    peers.set(ws, peer);
    logger.debug('AgentConnect connection opened');
    ws.on('message', (data, isBinary) => void answer(isBinary ? undefined : data.toString(), write, peer));
    ws.on('error', (error) => logger.debug('AgentConnect connection error', { error: error.message }));
    ws.on('close', () => {
      peers.delete(ws);
      logger.debug('AgentConnect connection closed');
      void host.disconnect(peer);
    });
  });

  /** Reads one message and answers it (requests only; notifications from the app are ignored). */
  async function answer(text: string | undefined, write: (message: Json) => void, peer: Peer): Promise<void> {
    let message: unknown;
    try {
      message = text === undefined ? undefined : JSON.parse(text);
    } catch {
      message = undefined;
    }
    if (!message || typeof message !== 'object' || Array.isArray(message)) {
      logger.warn('AgentConnect message refused: not a JSON-RPC object');
      write({ jsonrpc: '2.0', id: null, error: { code: 'AC_ERR_INVALID_ARGS', message: 'Expected one JSON-RPC 2.0 request object per text message' } });
      return;
    }
    const { id, method, params } = message as Json;
    if (id === undefined || id === null) return;
    if (typeof id !== 'string' && typeof id !== 'number') {
      write({ jsonrpc: '2.0', id: null, error: { code: 'AC_ERR_INVALID_ARGS', message: 'id must be a string or a number' } });
      return;
    }
    try {
      if (typeof method !== 'string') throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'method must be a string');
      if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params)))
        throw new AgentConnectError('AC_ERR_INVALID_ARGS', 'params must be an object');
      logger.debug('AgentConnect request', { method: method.slice(0, 100) });
      const handled = await host.handle(peer, method, (params as Json | undefined) ?? {});
      write({ jsonrpc: '2.0', id, result: handled.result });
      handled.after?.();
    } catch (error) {
      const known = error instanceof AgentConnectError ? error : new AgentConnectError('AC_ERR_INTERNAL', 'internal error');
      if (!(error instanceof AgentConnectError)) logger.error('AgentConnect request failed', { error: (error as Error)?.stack ?? String(error) });
      write({ jsonrpc: '2.0', id, error: { code: known.code, message: options.redact(known.message) } });
    }
  }

  const authority = await listen(server, options.port, options.host);
  return {
    url: `ws://${authority}`,
    close: async () => {
      await Promise.all([...peers.values()].map((peer) => host.disconnect(peer)));
      for (const ws of peers.keys()) ws.close(1001, 'server shutting down');
      sockets.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
